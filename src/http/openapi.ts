import { createHash } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { pageHeadersBesidesPolicy } from '../common/page-headers.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { OpenAPIV3 } from 'openapi-types';
import type { AuthLevel } from './auth.ts';
import type { DocumentedSchemas } from '../common/documented-schemas.ts';

/**
 * The spec's security schemes, plus the legacy header that carries the same JWT. `bearer` is an
 * HTTP bearer scheme so that the docs page's Authorize dialog takes the bare token and sends
 * `Authorization: Bearer <token>`. `basic` belongs only on operations that take HTTP Basic (the
 * identity provider's `/token` routes), and no gateway operation does today.
 */
const securitySchemes = {
  basic: {
    type: 'http',
    scheme: 'basic',
    description: 'HTTP basic (identity-provider token routes only).',
  },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'An access token, sent as `Authorization: Bearer <JWT>`.',
  },
  vendorJwt: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Vendor-De-Jwt',
    description: 'The same JWT in the legacy header.',
  },
} as const;

export function routeSecurity(auth: AuthLevel): Array<Record<string, string[]>> {
  if (auth === 'none') return [];
  const schemes: Array<Record<string, string[]>> = [{ bearer: [] }, { vendorJwt: [] }];
  // An empty requirement documents that anonymous calls are accepted too.
  return auth === 'optional' ? [...schemes, {}] : schemes;
}

interface RouteSchema {
  body?: unknown;
  querystring?: unknown;
  response?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * A body schema that lets the body be absent: TypeBox's `Type.Optional` (its non-enumerable
 * `~optional` mark), or `nullable` (null stands for none) with no property required (a multipart
 * body the gateway streams unread is `nullable` only so that the validator lets it through).
 */
function isOptionalBody(schema: unknown): boolean {
  const body = schema as
    { nullable?: unknown; '~optional'?: unknown; required?: unknown[] } | undefined;
  return body?.['~optional'] === true || (body?.nullable === true && !(body.required?.length ?? 0));
}

/** `/apps/:systemId` → `/apps/{systemId}`, `/vice/:host/*` → `/vice/{host}/{*}`, as the document writes paths. */
function documentUrl(url: string): string {
  return url.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{*}');
}

/**
 * A route's schema with its documentation-only schemas (`config.openapi`) merged in: the route's
 * own body, query and answers win, documented answers join them (the relayed `default` stays).
 */
function withDocumented(
  schema: RouteSchema,
  documented: DocumentedSchemas | undefined,
): RouteSchema {
  if (!documented || !schema) return schema;
  const merged: RouteSchema = { ...schema };
  if (documented.body && !merged.body) merged.body = documented.body;
  if (documented.querystring && !merged.querystring) merged.querystring = documented.querystring;
  if (documented.response) merged.response = { ...documented.response, ...merged.response };
  return merged;
}

/**
 * Sends the OpenAPI document (about 400 KB, fixed once the routes are registered) serialized once,
 * with an ETag so that a reload of the docs page revalidates instead of downloading it again.
 */
function documentSender(app: FastifyInstance) {
  let document: { json: string; etag: string } | undefined;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!document) {
      const json = JSON.stringify(app.swagger());
      document = { json, etag: `"${createHash('sha256').update(json).digest('base64url')}"` };
    }
    reply.header('etag', document.etag).header('cache-control', 'no-cache');
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === document!.etag))
      return reply.code(304).send();
    return reply.type('application/json; charset=utf-8').send(document.json);
  };
}

/**
 * Registers the generator before any route (it collects routes as they are added; `tags` are
 * every tag they use, in the document's order), serves the document at `/openapi.json` and the interactive docs at `/docs`. Neither counts against the
 * rate limits: the docs page loads a dozen files and the document on every visit, all of them
 * fixed bytes that cost nothing to send again (a reload within the minute must still work).
 */
export async function registerOpenApi(
  app: FastifyInstance,
  tags: readonly string[],
): Promise<void> {
  const takingNoBody = new Set<string>();
  const optionalBody = new Set<string>();
  await app.register(swagger, {
    transform: ({ schema, url, route }) => {
      const documented = route.config?.openapi;
      const bodiless =
        (schema as Record<string, unknown> | undefined)?.['x-request-body'] === 'none';
      if (documented?.noBody || bodiless)
        for (const method of [route.method].flat())
          takingNoBody.add(`${method.toLowerCase()} ${documentUrl(url)}`);
      // The generator calls every body required; one that may be absent is not.
      if (isOptionalBody((schema as RouteSchema | undefined)?.body ?? documented?.body))
        for (const method of [route.method].flat())
          optionalBody.add(`${method.toLowerCase()} ${documentUrl(url)}`);
      return { schema: withDocumented(schema as RouteSchema, documented) as FastifySchema, url };
    },
    transformObject: (documentObject) => {
      const openapi = (documentObject as { openapiObject: Partial<OpenAPIV3.Document> })
        .openapiObject;
      for (const [path, operations] of Object.entries(openapi.paths ?? {}))
        for (const [method, operation] of Object.entries(operations ?? {})) {
          if (typeof operation !== 'object' || operation === null) continue;
          const key = `${method} ${path}`;
          if (takingNoBody.has(key))
            (operation as Record<string, unknown>)['x-request-body'] = 'none';
          const body = (operation as OpenAPIV3.OperationObject).requestBody as
            OpenAPIV3.RequestBodyObject | undefined;
          if (body && optionalBody.has(key)) body.required = false;
        }
      return openapi;
    },
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Platform Gateway',
        version: '0.1.0',
        description:
          'HTTP/JSON gateway for a computational research platform. Errors are JSON with `error_code` and `reason`.',
      },
      components: { securitySchemes },
      tags: tags.map((name) => ({ name })),
    },
  });

  const sendDocument = documentSender(app);
  app.get('/openapi.json', {
    config: { auth: 'none', rateLimit: false },
    schema: {
      tags: ['operations'],
      summary: 'This OpenAPI document',
      security: [],
      response: {
        200: { description: 'OpenAPI 3 document', type: 'object', additionalProperties: true },
        304: { description: 'Not modified (the `If-None-Match` ETag is current)', type: 'null' },
      },
    },
    handler: sendDocument,
  });

  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...route.config, auth: 'none', rateLimit: false };
      // The page loads the document from its own `/docs/json`: the same bytes as /openapi.json.
      if (route.url === '/docs/json') route.handler = sendDocument;
    });
    // The page's security headers (docs/authentication.md, "Pages and framing"): swagger-ui's own
    // Content-Security-Policy (its scripts by hash, framed by this origin alone), with two
    // changes. No `upgrade-insecure-requests`, which would send a page served over plain HTTP (a
    // gateway on 127.0.0.1) to fetch its own files over HTTPS; and inline styles allowed, which
    // swagger-ui sets as it renders (its hashes cover only its page's own, and a hash turns
    // 'unsafe-inline' off). Then the headers of every page.
    const besidesPolicy = pageHeadersBesidesPolicy("'self'");
    docs.addHook('onRequest', (_request, reply, done) => {
      reply.headers(besidesPolicy);
      done();
    });
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      staticCSP: true,
      transformStaticCSP: (header) =>
        header
          .split(';')
          .map((directive) => directive.trim())
          .filter((directive) => directive && directive !== 'upgrade-insecure-requests')
          .map((directive) =>
            directive.startsWith('style-src ') ? "style-src 'self' 'unsafe-inline'" : directive,
          )
          .join('; '),
    });
  });
}

/**
 * Route options for answers assembled from backend responses: the response schema documents the
 * usual shape, but a backend that answers differently is relayed, not turned into a 500 by the
 * schema-driven serializer.
 */
export const documentedNotEnforced = {
  serializerCompiler: () => (data: unknown) => JSON.stringify(data),
};

/**
 * Put in a route's schema (`...takesNoBody`): a POST, PUT or PATCH that reads no body, documented
 * as `x-request-body: none`.
 */
export const takesNoBody = { 'x-request-body': 'none' } as const;

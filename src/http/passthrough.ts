import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { Type, type TSchema } from 'typebox';
import {
  defaultIdentityStyle,
  type BackendName,
  type IdentityStyle,
} from '../common/backend-names.ts';
import type { AuthLevel } from './auth.ts';
import { unparsedBodyMethods } from './connection-limits.ts';
import { documentedNotEnforced, routeSecurity } from './openapi.ts';
import { routeAtBoth } from './secured-alias.ts';
import { qualifiedUsername } from '../common/users.ts';
import type { Forwarder } from './proxy.ts';
import type { BackendSchemas } from './backend-schemas.ts';
import type { DocumentedSchemas } from '../common/documented-schemas.ts';
import { gatewayError } from '../common/errors.ts';
import type { GatewayConfig } from '../config/index.ts';
import { allowList } from './address-allow-list.ts';

/**
 * A route the gateway serves by forwarding to one backend: the table row of DEVELOPERS.md.
 * Paths use the spec's `{name}` syntax; a backend path may also use `{user}` (short username)
 * and `{qualified-user}` (`user@uid-domain`) for backends that take the caller in the path.
 */
export interface PassthroughRoute<TagName extends string = string> {
  method: HTTPMethods | HTTPMethods[];
  path: string;
  backend: BackendName;
  /** Backend path; defaults to `path`. */
  backendPath?: string;
  /** Defaults to `user`. */
  auth?: AuthLevel;
  /** Defaults to the backend's convention. */
  identity?: IdentityStyle;
  /** The OpenAPI tag (the route files' tag list, src/routes/shared/tags.ts). */
  tag: TagName;
  summary: string;
  /** Also serve the route under `/secured` (where a user is always required). */
  securedAlias?: boolean;
  /** Documented (and validated) query parameters; other parameters still pass through. */
  query?: TSchema;
  /** When set, the body is parsed and validated as JSON, then re-sent; otherwise it is streamed. */
  body?: TSchema;
  /** Describes a streamed body in the OpenAPI document; the backend receives the bytes unchanged. */
  streamedBody?: TSchema;
  /** Streamed bodies larger than this are refused with 413 (default: the gateway's body limit). */
  bodyLimitBytes?: number;
  /** Request content types to document (e.g. `multipart/form-data`); bodies still reach the backend unread. */
  consumes?: string[];
  /** Documented answers by status; the backend's answer is still relayed unchanged. */
  responses?: Record<number, TSchema>;
  /** A POST, PUT or PATCH whose body the backend ignores (documented as taking none). */
  noBody?: boolean;
  /**
   * A door for another service rather than a user (no credentials): the client addresses (IPs
   * and CIDR ranges) it is accepted from, out of the configuration. Anyone else gets 403
   * ERR_FORBIDDEN before the body is read.
   */
  onlyFrom?: (config: GatewayConfig) => string[];
}

/**
 * `consumes` of a row whose backend reads every body as JSON whatever its content type (the
 * user-info service): JSON is documented, and any other type is taken as JSON too.
 */
export const anyTypeAsJson = ['application/json', '*/*'];

const paramPattern = /\{([^}]+)\}/g;

function camel(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

/** `/apps/{system-id}/{app-id}` → `/apps/:systemId/:appId` (find-my-way reads `-` as a separator). */
export function fastifyPath(specPath: string): string {
  return specPath.replace(paramPattern, (_match, name: string) => `:${camel(name)}`);
}

function pathParamNames(specPath: string): string[] {
  return [...specPath.matchAll(paramPattern)].map((match) => match[1]!);
}

/** Percent-encodes one path segment, keeping `@` and `:` readable (both are legal there, RFC 3986 pchar). */
function encodeSegment(value: string): string {
  return encodeURIComponent(value).replace(/%40/g, '@').replace(/%3A/gi, ':');
}

type BackendPath = (params: Record<string, string>, username: string) => string;

/**
 * A backend path template read once, at registration: per request, only its parameters are
 * encoded and joined (the template's literal parts and parameter names are not parsed again).
 */
function backendPathOf(template: string, uidDomain: string): BackendPath {
  const literals = template.split(paramPattern).filter((_part, index) => index % 2 === 0);
  const parts = pathParamNames(template).map(
    (name): ((params: Record<string, string>, username: string) => string) => {
      if (name === 'user') return (_params, username) => encodeSegment(username);
      if (name === 'qualified-user')
        return (_params, username) => encodeSegment(qualifiedUsername(username, uidDomain));
      const key = camel(name);
      return (params) => encodeSegment(params[key] ?? '');
    },
  );
  if (parts.length === 0) return () => template;
  return (params, username) => {
    let path = literals[0]!;
    for (let index = 0; index < parts.length; index++)
      path += parts[index]!(params, username) + literals[index + 1]!;
    return path;
  };
}

export interface PassthroughDeps {
  forwarder: Forwarder;
  config: GatewayConfig;
  uidDomain: string;
  bodyLimitBytes: number;
  /** The embedded services' route schemas: a row they answer is documented with them. */
  backendSchemas?: BackendSchemas;
}

/**
 * What the OpenAPI document says of one method of a row beyond its own schemas: the body, query
 * and answers of the embedded route that answers it (documented, never enforced: the backend's
 * answer is relayed unchanged).
 */
function documentedSchemas(
  route: PassthroughRoute,
  method: string,
  backendTemplate: string,
  deps: PassthroughDeps,
): DocumentedSchemas {
  const backend = deps.backendSchemas?.find(route.backend, method, backendTemplate) ?? {};
  const documented: DocumentedSchemas = {};
  if (!route.body && !route.streamedBody && backend.body) documented.body = backend.body;
  if (!route.query && backend.querystring) documented.querystring = backend.querystring;
  if (backend.response) documented.response = backend.response;
  if (route.noBody || backend.noBody) documented.noBody = true;
  return documented;
}

type RouteOptions = Parameters<FastifyInstance['route']>[0];

function routeOptions(
  route: PassthroughRoute,
  methods: HTTPMethods[],
  auth: AuthLevel,
  deps: PassthroughDeps,
): RouteOptions {
  const names = pathParamNames(route.path);
  const identityStyle = route.identity ?? defaultIdentityStyle[route.backend];
  const backendTemplate = route.backendPath ?? route.path;
  const backendPath = backendPathOf(backendTemplate, deps.uidDomain);
  const clientAllowed = route.onlyFrom ? allowList(route.onlyFrom(deps.config)) : undefined;
  return {
    ...(clientAllowed
      ? {
          onRequest: async (request: FastifyRequest) => {
            if (!clientAllowed(request.ip))
              throw gatewayError(
                'ERR_FORBIDDEN',
                `${route.path} is accepted only from the addresses the configuration allows`,
              );
          },
        }
      : {}),
    method: methods.length === 1 ? methods[0]! : methods,
    url: fastifyPath(route.path),
    config: {
      auth,
      openapi: documentedSchemas(
        route,
        methods.find((method) => method !== 'HEAD') ?? 'GET',
        backendTemplate,
        deps,
      ),
    },
    schema: {
      tags: [route.tag],
      summary: route.summary,
      description: `Forwarded to the ${route.backend} service (${backendTemplate}); its status, headers and body are relayed unchanged.`,
      security: routeSecurity(auth),
      ...(names.length > 0
        ? {
            params: Type.Object(
              Object.fromEntries(names.map((name) => [camel(name), Type.String()])),
            ),
          }
        : {}),
      ...(route.query ? { querystring: route.query } : {}),
      ...(route.body || route.streamedBody ? { body: route.body ?? route.streamedBody } : {}),
      ...(route.consumes ? { consumes: route.consumes } : {}),
      response: {
        ...route.responses,
        default: { description: `Relayed from the ${route.backend} service` },
      },
    },
    // Relayed bytes are never serialised; the response schemas only document.
    ...(route.responses ? documentedNotEnforced : {}),
    // Not async, and nothing returned: the relay sends the answer when the backend's arrives
    // (returning the reply would make Fastify watch the response's end for every request).
    handler: (request: FastifyRequest, reply: FastifyReply) => {
      const params = request.params as Record<string, string>;
      const username = request.identity?.username ?? 'anonymous';
      const questionMark = request.url.indexOf('?');
      deps.forwarder.forward(request, reply, route.backend, {
        method: request.method,
        path: backendPath(params, username),
        rawQuery: questionMark === -1 ? '' : request.url.slice(questionMark + 1),
        identity: request.identity,
        identityStyle,
        json: route.body ? request.body : undefined,
        bodyLimitBytes: route.bodyLimitBytes ?? deps.bodyLimitBytes,
      });
    },
  };
}

/**
 * Registers a table of passthrough routes. Streamed routes live in a context with no body
 * parsers, so the request body reaches the backend untouched; routes with a body schema
 * keep Fastify's JSON parser and validation.
 */
export async function registerPassthroughs(
  app: FastifyInstance,
  routes: readonly PassthroughRoute[],
  deps: PassthroughDeps,
): Promise<void> {
  // A route per documentation: methods answered by differently described embedded routes are
  // registered apart, each with its own (HEAD keeps GET's: the document lists HEAD only beside it).
  // Methods whose body is never parsed are apart from the others too: a route's hooks run for all
  // its methods, and the body deadlines' preHandler would otherwise run for every GET too.
  const register = (instance: FastifyInstance, route: PassthroughRoute) => {
    const auth = route.auth ?? 'user';
    const backendTemplate = route.backendPath ?? route.path;
    const groups = new Map<string, HTTPMethods[]>();
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      const described = method === 'HEAD' ? 'GET' : method;
      const bodies = unparsedBodyMethods.has(method) ? 'unparsed body' : 'parsed body';
      const key = `${bodies} ${JSON.stringify(documentedSchemas(route, described, backendTemplate, deps))}`;
      groups.set(key, [...(groups.get(key) ?? []), method]);
    }
    for (const methods of groups.values()) {
      const options = routeOptions(route, methods, auth, deps);
      if (route.securedAlias) routeAtBoth(instance, auth, options);
      else instance.route(options);
    }
  };

  await app.register(async (streamed) => {
    streamed.removeAllContentTypeParsers();
    // Leave the body unread: the forwarder pipes request.raw to the backend.
    streamed.addContentTypeParser('*', (_request, _payload, done) => done(null));
    for (const route of routes) if (!route.body) register(streamed, route);
  });
  await app.register(async (parsed) => {
    for (const route of routes) if (route.body) register(parsed, route);
  });
}

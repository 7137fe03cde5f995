import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { allTags } from '../routes/tags.js';
import type { AuthLevel } from './auth.js';

/** The spec's security schemes, plus the legacy header that carries the same JWT. */
const securitySchemes = {
  basic: { type: 'http', scheme: 'basic', description: 'HTTP basic (identity-provider token routes only).' },
  bearer: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'An access token: `Authorization: Bearer <JWT>`.' },
  vendorJwt: { type: 'apiKey', in: 'header', name: 'X-Vendor-De-Jwt', description: 'The same JWT in the legacy header.' },
} as const;

export function routeSecurity(auth: AuthLevel): Array<Record<string, string[]>> {
  if (auth === 'none') return [];
  const schemes: Array<Record<string, string[]>> = [{ bearer: [] }, { vendorJwt: [] }];
  // An empty requirement documents that anonymous calls are accepted too.
  return auth === 'optional' ? [...schemes, {}] : schemes;
}

/**
 * Registers the generator before any route (it collects routes as they are added), serves the
 * document at `/openapi.json` and the interactive docs at `/docs`.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Platform Gateway',
        version: '0.1.0',
        description:
          'HTTP/JSON gateway for a computational research platform. Errors are JSON with `error_code` and `reason`.',
      },
      components: { securitySchemes },
      tags: allTags.map((name) => ({ name })),
    },
  });

  app.get('/openapi.json', {
    config: { auth: 'none' },
    schema: {
      tags: ['operations'],
      summary: 'This OpenAPI document',
      security: [],
      response: { 200: { description: 'OpenAPI 3 document', type: 'object', additionalProperties: true } },
    },
    handler: async () => app.swagger(),
  });

  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...route.config, auth: 'none' };
    });
    await docs.register(swaggerUi, { routePrefix: '/docs' });
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

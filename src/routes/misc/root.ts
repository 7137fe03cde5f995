// Tag misc: the spec's unsecured basics, `GET /` and `GET /uuid`.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ErrorAnswer } from '../../common/error-replies.ts';
import { gatewayError } from '../../common/errors.ts';

const SERVICE_NAME = 'platform-gateway';
const plainText = {
  200: { description: 'Plain text', content: { 'text/plain': { schema: { type: 'string' } } } },
};

export async function rootRoutes(app: FastifyInstance): Promise<void> {
  app.get('/', {
    config: { auth: 'none' },
    schema: {
      tags: ['misc'],
      summary: 'Welcome message (also a liveness probe)',
      security: [],
      querystring: Type.Object({
        expecting: Type.Optional(
          Type.String({ description: `When given, must be "${SERVICE_NAME}"` }),
        ),
      }),
      response: {
        ...plainText,
        500: {
          ...ErrorAnswer,
          description: '`expecting` names another service: `ERR_UNEXPECTED_SERVICE` (routes.md §2)',
        },
      },
    },
    handler: async (request, reply) => {
      const { expecting } = request.query as { expecting?: string };
      if (expecting !== undefined && expecting !== SERVICE_NAME) {
        throw gatewayError(
          'ERR_UNEXPECTED_SERVICE',
          `Expected "${expecting}", but this is ${SERVICE_NAME}.`,
        );
      }
      return reply
        .type('text/plain; charset=utf-8')
        .send('Welcome to the Platform Gateway. Documentation: /docs\n');
    },
  });

  app.get('/uuid', {
    config: { auth: 'none' },
    schema: { tags: ['misc'], summary: 'One random UUID', security: [], response: plainText },
    handler: async (_request, reply) => reply.type('text/plain; charset=utf-8').send(randomUUID()),
  });
}

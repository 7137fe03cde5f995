// Tag user-info: describe users by username, from the groups service's subjects.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { GatewayError } from '../common/errors.ts';
import { documentedNotEnforced, routeSecurity } from '../http/openapi.ts';
import type { Forwarder } from '../http/proxy.ts';

const maxUsernames = 100;

const Subject = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    first_name: Type.String(),
    last_name: Type.String(),
    email: Type.String(),
    institution: Type.String(),
    description: Type.String(),
    source_id: Type.String(),
    display_name: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export async function userInfoRoutes(
  app: FastifyInstance,
  deps: { forwarder: Forwarder },
): Promise<void> {
  app.get('/secured/user-info', {
    ...documentedNotEnforced,
    schema: {
      tags: ['user-info'],
      summary: 'Details of the named users; unknown names are left out',
      security: routeSecurity('user'),
      querystring: Type.Object({
        username: Type.Optional(
          Type.Array(Type.String({ maxLength: 512 }), {
            maxItems: maxUsernames,
            description:
              'Repeat for several users; an empty one (`?username=`, what the web UI sends for no one) is ignored',
          }),
        ),
      }),
      response: { 200: Type.Record(Type.String(), Subject) },
    },
    handler: async (request) => {
      const { username = [] } = request.query as { username?: string[] };
      const names = [...new Set(username)].filter((name) => name !== '');
      const found = await Promise.all(
        names.map(async (name) => {
          try {
            const subject = await deps.forwarder.callJson<Record<string, unknown>>(
              'groups',
              {
                method: 'GET',
                path: `/subjects/${encodeURIComponent(name)}`,
                identity: request.identity,
                identityStyle: 'user',
              },
              request.id,
            );
            return [name, subject] as const;
          } catch (error) {
            if (
              error instanceof GatewayError &&
              error.statusCode === 404 &&
              error.errorCode !== 'ERR_NOT_IMPLEMENTED'
            )
              return undefined;
            throw error;
          }
        }),
      );
      return Object.fromEntries(found.filter((entry) => entry !== undefined));
    },
  });
}

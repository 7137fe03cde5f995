// Tag user-info: what the DE web UI asks of its "user portal" (`<user_portal_url>/api/users/...`),
// answered from the platform's own user records (the groups service's subjects), so that the UI's
// `user_portal_url` may point at the platform. The UI's server calls these with the signed-in
// user's access token: `/status` for the user themselves on every page (it reads
// `warning_required`, `update_required`, `update_url`), the details on the administrators'
// subscriptions page for any user (it reads `id`).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { gatewayError, GatewayError } from '../common/errors.ts';
import type { GatewayConfig } from '../config/index.ts';
import { routeSecurity } from '../http/openapi.ts';
import type { Forwarder } from '../http/proxy.ts';

const usernameParams = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 512, description: 'Short username' }),
});

const PortalUser = Type.Object(
  {
    id: Type.String({ description: 'The short username (the platform keeps no other user id)' }),
    username: Type.String(),
    first_name: Type.String(),
    last_name: Type.String(),
    email: Type.String(),
    institution: Type.String(),
  },
  { additionalProperties: false },
);

const PortalStatus = Type.Object(
  {
    username: Type.String(),
    update_required: Type.Boolean({
      description: 'Always false: the platform asks no one to renew their account',
    }),
    warning_required: Type.Boolean({ description: 'Always false, as update_required' }),
  },
  { additionalProperties: false },
);

type Subject = { id?: unknown; first_name?: unknown; last_name?: unknown; email?: unknown };
const text = (value: unknown) => (typeof value === 'string' ? value : '');

export async function userPortalRoutes(
  app: FastifyInstance,
  deps: { forwarder: Forwarder; config: GatewayConfig },
): Promise<void> {
  const { forwarder, config } = deps;

  /** The caller themselves, or an administrator (ADMIN_ROLES); anyone else is 403. */
  const mayRead = (request: FastifyRequest, username: string) => {
    const identity = request.identity!;
    if (identity.username === username) return;
    if (identity.roles.some((role) => config.auth.adminRoles.includes(role))) return;
    throw gatewayError('ERR_FORBIDDEN', `${identity.username} may not read ${username}'s account`);
  };

  /** The user's subject, or 404 ERR_NOT_FOUND for a user the platform has never seen. */
  const subjectOf = async (request: FastifyRequest, username: string): Promise<Subject> => {
    try {
      return await forwarder.callJson<Subject>(
        'groups',
        {
          method: 'GET',
          path: `/subjects/${encodeURIComponent(username)}`,
          identity: request.identity,
          identityStyle: 'user',
        },
        request.id,
      );
    } catch (error) {
      if (
        error instanceof GatewayError &&
        error.statusCode === 404 &&
        error.errorCode !== 'ERR_NOT_IMPLEMENTED'
      )
        throw gatewayError('ERR_NOT_FOUND', `user not found: ${username}`, { username });
      throw error;
    }
  };

  app.get('/api/users/:username', {
    config: { auth: 'user' },
    schema: {
      tags: ['user-info'],
      summary:
        "A user's account, as the DE's user portal answers it (the caller's own, or any for administrators)",
      security: routeSecurity('user'),
      params: usernameParams,
      response: { 200: PortalUser },
    },
    handler: async (request) => {
      const { username } = request.params as { username: string };
      mayRead(request, username);
      const subject = await subjectOf(request, username);
      return {
        id: text(subject.id) || username,
        username,
        first_name: text(subject.first_name),
        last_name: text(subject.last_name),
        email: text(subject.email),
        institution: '',
      };
    },
  });

  app.get('/api/users/:username/status', {
    config: { auth: 'user' },
    schema: {
      tags: ['user-info'],
      summary:
        "Whether a user must renew their account, as the DE's user portal answers it: never on the platform",
      security: routeSecurity('user'),
      params: usernameParams,
      response: { 200: PortalStatus },
    },
    handler: async (request) => {
      const { username } = request.params as { username: string };
      mayRead(request, username);
      // The caller is known (they are signed in); another user must be one the platform has seen.
      if (username !== request.identity!.username) await subjectOf(request, username);
      return { username, update_required: false, warning_required: false };
    },
  });
}

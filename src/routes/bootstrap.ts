// Tag bootstrap: everything a client needs at start-up, gathered in parallel; a failing part reports itself.
import type { FastifyInstance } from 'fastify';
import { Type, type TSchema } from 'typebox';
import type { BasePaths } from '../common/base-paths.ts';
import type { Identity } from '../common/identity.ts';
import { toGatewayError } from '../common/error-replies.ts';
import { documentedNotEnforced, routeSecurity } from '../http/openapi.ts';
import { qualifiedUsername } from '../common/users.ts';
import { loadPreferences, PreferencesSchema, type PreferencesDeps } from './misc/preferences.ts';

type Part<T> = T | { status?: number; error: string };

async function part<T>(work: () => Promise<T>): Promise<Part<T>> {
  try {
    return await work();
  } catch (error) {
    const failure = toGatewayError(error as Error);
    return { status: failure.statusCode, error: failure.reason };
  }
}

const Failure = Type.Object(
  { status: Type.Optional(Type.Integer()), error: Type.String() },
  { description: 'This part failed' },
);
const orFailure = (schema: TSchema) => Type.Union([schema, Failure]);

const BootstrapSchema = Type.Object({
  user_info: Type.Object({
    username: Type.String(),
    full_username: Type.String(),
    email: Type.String(),
    first_name: Type.String(),
    last_name: Type.String(),
  }),
  session: orFailure(
    Type.Object({
      login_time: Type.Number(),
      auth_redirect: Type.Record(Type.String(), Type.String()),
    }),
  ),
  apps_info: orFailure(
    Type.Object({
      system_ids: Type.Object({
        de_system_id: Type.String(),
        all_system_ids: Type.Array(Type.String()),
      }),
      workspace: Type.Object({}, { additionalProperties: true }),
      webhooks: Type.Array(Type.Unknown()),
    }),
  ),
  data_info: orFailure(
    Type.Object({
      user_home_path: Type.String(),
      user_trash_path: Type.String(),
      base_trash_path: Type.String(),
    }),
  ),
  preferences: orFailure(PreferencesSchema),
});

function userInfo(identity: Identity, uidDomain: string) {
  return {
    username: identity.username,
    full_username: qualifiedUsername(identity.username, uidDomain),
    email: identity.email ?? '',
    first_name: identity.firstName ?? '',
    last_name: identity.lastName ?? '',
  };
}

export async function bootstrapRoutes(app: FastifyInstance, deps: PreferencesDeps): Promise<void> {
  const { forwarder, config } = deps;

  app.get('/secured/bootstrap', {
    ...documentedNotEnforced,
    schema: {
      tags: ['bootstrap'],
      summary: 'User info, session, apps info, data-store paths and preferences in one call',
      security: routeSecurity('user'),
      querystring: Type.Object({
        'ip-address': Type.Optional(
          Type.String({
            maxLength: 45,
            description: "The end user's address, when a proxy calls for them",
          }),
        ),
      }),
      response: { 200: BootstrapSchema },
    },
    handler: async (request) => {
      const identity = request.identity!;
      const { 'ip-address': ipAddress } = request.query as { 'ip-address'?: string };
      const [session, appsInfo, dataInfo, preferences] = await Promise.all([
        part(() =>
          forwarder.callJson<{ login_time: number; auth_redirect: Record<string, string> }>(
            'apps',
            {
              method: 'POST',
              path: '/users/login',
              identity,
              identityStyle: 'apps',
              json: {
                'ip-address': ipAddress ?? request.ip,
                'login-time': Date.now(),
                'session-id': request.id,
              },
            },
            request.id,
          ),
        ),
        part(() =>
          forwarder.callJson<unknown>(
            'apps',
            { method: 'GET', path: '/bootstrap', identity, identityStyle: 'apps' },
            request.id,
          ),
        ),
        part(() =>
          forwarder.callJson<BasePaths>(
            'data-info',
            { method: 'GET', path: '/navigation/base-paths', identity, identityStyle: 'data-user' },
            request.id,
          ),
        ),
        part(() => loadPreferences(deps, identity, request.id, request.log)),
      ]);
      return {
        user_info: userInfo(identity, config.uidDomain),
        session,
        apps_info: appsInfo,
        data_info: dataInfo,
        preferences,
      };
    },
  });
}

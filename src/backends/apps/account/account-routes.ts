// The account side of the apps service (backends.md §5): the bootstrap's part (system ids, the
// caller's workspace and webhooks), the caller's workspace, and logins, each answering which
// third-party APIs still need the user's authorization.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../../store/database.ts';
import { requireUserParam } from '../../../common/query-params.ts';
import { userWebhooks } from '../../notification-agent/index.ts';
import { authRedirects, type OAuthDeps } from '../external/index.ts';
import { callerId, shortUser, workspaceOf } from '../shared/index.ts';

const systemId = 'de';

const loginBody = Type.Object({
  'ip-address': Type.Optional(Type.String({ maxLength: 45 })),
  'login-time': Type.Optional(Type.Integer({ minimum: 0 })),
  'session-id': Type.Optional(Type.String({ maxLength: 512 })),
});

export const accountRoutes: FastifyPluginAsync<{
  store: Store;
  uidDomain: string;
  oauth: OAuthDeps;
}> = async (app, { store, uidDomain, oauth }) => {
  app.get('/bootstrap', async (request) => {
    const userId = await callerId(store, request.query, uidDomain);
    return {
      system_ids: { de_system_id: systemId, all_system_ids: [systemId] },
      workspace: await workspaceOf(store, userId),
      webhooks: await userWebhooks(store.db, shortUser(request.query)),
    };
  });

  app.get('/workspaces', async (request) =>
    workspaceOf(store, await callerId(store, request.query, uidDomain)),
  );

  app.post('/users/login', { schema: { body: Type.Optional(loginBody) } }, async (request) => {
    const userId = await callerId(store, request.query, uidDomain);
    const body = (request.body ?? {}) as {
      'ip-address'?: string;
      'login-time'?: number;
      'session-id'?: string;
    };
    const loginTime = body['login-time'] ?? Date.now();
    await store.db
      .insertInto('logins')
      .values({
        id: randomUUID(),
        user_id: userId,
        ip_address: body['ip-address'] ?? null,
        login_time: loginTime,
        session_id: body['session-id'] ?? null,
      })
      .execute();
    // An empty object, never absent, when nothing needs authorizing (clients read auth_redirect.extapi).
    return {
      login_time: loginTime,
      auth_redirect: await authRedirects(oauth, requireUserParam(request.query)),
    };
  });

  app.get(
    '/users/logins',
    {
      schema: {
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
        }),
      },
    },
    async (request) => {
      const userId = await callerId(store, request.query, uidDomain);
      const { limit } = request.query as { limit?: number };
      const rows = await store.db
        .selectFrom('logins')
        .select(['login_time', 'ip_address', 'session_id'])
        .where('user_id', '=', userId)
        .orderBy('login_time', 'desc')
        .limit(limit ?? 100)
        .execute();
      return { logins: rows };
    },
  );
};

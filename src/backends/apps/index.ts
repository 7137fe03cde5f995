import { randomUUID } from 'node:crypto';
import { Type } from 'typebox';
import type { Store } from '../../store/database.js';
import { qualifiedUsername, userIdFor } from '../../store/users.js';
import type { EmbeddedService } from '../service.js';
import { requireUserParam } from '../service.js';
import { appsOntologyRoutes } from './ontologies.js';

const systemId = 'de';

interface AppsIdentity {
  user: string;
  email?: string;
  'first-name'?: string;
  'last-name'?: string;
}

/** The apps service qualifies the short `user` itself (backends.md §1.2); a caller it has never seen is recorded. */
async function callerId(store: Store, query: unknown, uidDomain: string): Promise<string> {
  const user = requireUserParam(query);
  const { email, 'first-name': firstName, 'last-name': lastName } = query as AppsIdentity;
  return userIdFor(store.db, qualifiedUsername(user, uidDomain), {
    ...(email ? { email } : {}),
    ...(firstName ? { firstName } : {}),
    ...(lastName ? { lastName } : {}),
  });
}

/** The caller's workspace, made on first use; `new_workspace` says whether this call made it. */
async function workspaceOf(store: Store, userId: string) {
  const find = () => store.db.selectFrom('workspace').selectAll().where('user_id', '=', userId).executeTakeFirst();
  const existing = await find();
  let created = false;
  if (!existing) {
    const inserted = await store.db
      .insertInto('workspace')
      .values({ id: randomUUID(), user_id: userId, root_category_id: randomUUID(), is_public: false })
      .onConflict((conflict) => conflict.column('user_id').doNothing())
      .executeTakeFirst();
    created = Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
  }
  const row = existing ?? (await find())!;
  return { id: row.id, user_id: row.user_id, root_category_id: row.root_category_id, is_public: Boolean(row.is_public), new_workspace: created };
}

const loginBody = Type.Object({
  'ip-address': Type.Optional(Type.String({ maxLength: 45 })),
  'login-time': Type.Optional(Type.Integer({ minimum: 0 })),
  'session-id': Type.Optional(Type.String({ maxLength: 512 })),
});

/**
 * The apps service (backends.md §5): so far the account side the bootstrap needs (workspace,
 * logins) and ontology versions with app hierarchies (ontologies.ts). Apps, analyses and the
 * rest answer 501 until they are built (APPS_URL reaches a real one).
 */
export const appsService: EmbeddedService = {
  name: 'apps',
  plugin: async (app, { store, config, now }) => {
    await app.register(appsOntologyRoutes, { db: store.db, now: now ?? Date.now });

    app.get('/bootstrap', async (request) => {
      const userId = await callerId(store, request.query, config.uidDomain);
      return {
        system_ids: { de_system_id: systemId, all_system_ids: [systemId] },
        workspace: await workspaceOf(store, userId),
        webhooks: [],
      };
    });

    app.get('/workspaces', async (request) => workspaceOf(store, await callerId(store, request.query, config.uidDomain)));

    app.post('/users/login', { schema: { body: Type.Optional(loginBody) } }, async (request) => {
      const userId = await callerId(store, request.query, config.uidDomain);
      const body = (request.body ?? {}) as { 'ip-address'?: string; 'login-time'?: number; 'session-id'?: string };
      const loginTime = body['login-time'] ?? Date.now();
      await store.db
        .insertInto('logins')
        .values({ id: randomUUID(), user_id: userId, ip_address: body['ip-address'] ?? null, login_time: loginTime, session_id: body['session-id'] ?? null })
        .execute();
      // No third-party API needs authorising until OAuth-backed apps exist: an empty object, never absent.
      return { login_time: loginTime, auth_redirect: {} };
    });

    app.get('/users/logins', { schema: { querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) }) } }, async (request) => {
      const userId = await callerId(store, request.query, config.uidDomain);
      const { limit } = request.query as { limit?: number };
      const rows = await store.db
        .selectFrom('logins')
        .select(['login_time', 'ip_address', 'session_id'])
        .where('user_id', '=', userId)
        .orderBy('login_time', 'desc')
        .limit(limit ?? 100)
        .execute();
      return { logins: rows };
    });
  },
};

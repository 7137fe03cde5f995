// Workspaces for administrators (routes.md §10): list or delete those of the users named by
// `username` (repeatable; a short name is qualified with the UID domain). A workspace's own
// categories are virtual (catalog/category-routes.ts), so deleting one removes its row and any
// categories its user owns; the next request of that user makes a fresh workspace
// (shared/workspace.ts).
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { qualifiedUsername } from '../../../common/users.ts';
import { userQuery } from '../../metadata/index.ts';
import { listParam, requireUserParam } from '../../../common/query-params.ts';
import { asBoolean } from '../../../store/sqlite-booleans.ts';
import { gatewayError } from '../../../common/errors.ts';

async function workspacesOf(db: Kysely<Database>, query: unknown, uidDomain: string) {
  requireUserParam(query);
  const usernames = [
    ...new Set(
      listParam(query, 'username')
        .filter((name) => name !== '')
        .map((name) => qualifiedUsername(name, uidDomain)),
    ),
  ];
  if (usernames.length === 0)
    throw gatewayError(
      'ERR_MISSING_QUERY_PARAMETER',
      'name at least one user with the query parameter "username"',
      { field: 'username' },
    );
  const rows = await db
    .selectFrom('workspace')
    .innerJoin('users', 'users.id', 'workspace.user_id')
    .select([
      'workspace.id',
      'workspace.user_id',
      'users.username',
      'workspace.root_category_id',
      'workspace.is_public',
    ])
    .where('users.username', 'in', usernames)
    .orderBy('users.username')
    .execute();
  return rows.map((row) => ({ ...row, is_public: asBoolean(row.is_public) }));
}

export const workspaceAdminRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  uidDomain: string;
}> = async (app, { db, uidDomain }) => {
  app.get('/admin/workspaces', { schema: { querystring: userQuery } }, async (request) => ({
    workspaces: await workspacesOf(db, request.query, uidDomain),
  }));

  /** Answers the workspaces it removed (users without one are skipped). */
  app.delete('/admin/workspaces', { schema: { querystring: userQuery } }, async (request) => {
    const workspaces = await db.transaction().execute(async (trx) => {
      const found = await workspacesOf(trx, request.query, uidDomain);
      if (found.length === 0) return found;
      // Owned categories name their owner by short username, as the rest of the catalog does.
      const shortNames = found.map((workspace) => workspace.username.split('@')[0]!);
      await trx.deleteFrom('app_categories').where('owner', 'in', shortNames).execute();
      await trx
        .deleteFrom('workspace')
        .where(
          'id',
          'in',
          found.map((workspace) => workspace.id),
        )
        .execute();
      return found;
    });
    return { workspaces };
  });
};

// The groups service's subject routes: `/subjects/:subject` and a search of `/subjects`,
// answered from the identities the platform has seen (the users table) and, for the search, the
// groups things can be shared with: the teams the caller can see and their own collaborator lists
// (source `g:gsa`, as the web UI's sharing dialog tells groups apart).
import type { FastifyPluginAsync } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Database } from '../../store/schema.ts';
import { qualifiedUsername } from '../../common/users.ts';
import { gatewayError } from '../../common/errors.ts';
import { groupSubjectOf, subjectOf } from './group-views.ts';
import { listGroups } from './group-store.ts';
import { callerOf } from './requests.ts';

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

export const subjectRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  uidDomain: string;
}> = async (app, { db, uidDomain }) => {
  const columns = ['username', 'email', 'first_name', 'last_name'] as const;

  app.get('/subjects/:subject', async (request) => {
    const { subject } = request.params as { subject: string };
    const row = await db
      .selectFrom('users')
      .select(columns)
      .where('username', '=', qualifiedUsername(subject, uidDomain))
      .executeTakeFirst();
    if (!row) throw gatewayError('ERR_NOT_FOUND', `subject not found: ${subject}`, { subject });
    return subjectOf(row, uidDomain);
  });

  app.get(
    '/subjects',
    {
      schema: {
        querystring: Type.Object({
          search: Type.String({ minLength: 1 }),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
        }),
      },
    },
    async (request) => {
      const { search, limit } = request.query as { search: string; limit?: number };
      const pattern = `%${escapeLike(search.toLowerCase())}%`;
      const rows = await db
        .selectFrom('users')
        .select(columns)
        .where((eb) =>
          eb.or(
            columns.map(
              (column) =>
                sql<boolean>`lower(coalesce(${sql.ref(column)}, '')) like ${pattern} escape '\\'`,
            ),
          ),
        )
        .orderBy('username')
        .limit(limit ?? 100)
        .execute();
      const caller = callerOf(request);
      const [teams, lists] = await Promise.all([
        listGroups(db, 'team', { search, visibleTo: caller }),
        listGroups(db, 'collaborator-list', { search, creator: caller }),
      ]);
      const groups = [...teams, ...lists].slice(0, Math.max(0, (limit ?? 100) - rows.length));
      return {
        subjects: [
          ...rows.map((row) => subjectOf(row, uidDomain)),
          ...groups.map((group) => groupSubjectOf(group)),
        ],
      };
    },
  );
};

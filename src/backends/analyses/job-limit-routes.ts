// Concurrent-job limits (backends.md §6): how many analyses a user may have submitted or running
// at once. Administrators set them per user here; everyone else has MAX_CONCURRENT_JOBS. The apps
// service enforces them where analyses are submitted (its own reading of the same table).
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { qualifiedUsername } from '../../common/users.ts';
import { callerOf, shortName } from './caller.ts';
import { gatewayError } from '../../common/errors.ts';

interface LimitOptions {
  db: Kysely<Database>;
  uidDomain: string;
  now: () => number;
  defaultLimit: number;
}

export const jobLimitRoutes: FastifyPluginAsync<LimitOptions> = async (
  app,
  { db, uidDomain, now, defaultLimit },
) => {
  const shape = (username: string, limit: number | undefined) => ({
    username: qualifiedUsername(username, uidDomain),
    concurrent_jobs: limit ?? defaultLimit,
    is_default: limit === undefined,
  });
  const limitOf = async (username: string) =>
    (
      await db
        .selectFrom('concurrent_job_limits')
        .select('concurrent_jobs')
        .where('username', '=', username)
        .executeTakeFirst()
    )?.concurrent_jobs;

  app.get('/settings/concurrent-job-limits', async (request) => {
    callerOf(request, uidDomain);
    const rows = await db
      .selectFrom('concurrent_job_limits')
      .select(['username', 'concurrent_jobs'])
      .orderBy('username')
      .execute();
    return {
      limits: [
        { concurrent_jobs: defaultLimit, is_default: true },
        ...rows.map((row) => shape(row.username, row.concurrent_jobs)),
      ],
    };
  });

  type Params = { Params: { username: string } };
  app.get<Params>('/settings/concurrent-job-limits/:username', async (request) => {
    callerOf(request, uidDomain);
    const username = shortName(request.params.username, uidDomain);
    return shape(username, await limitOf(username));
  });

  app.put<Params>('/settings/concurrent-job-limits/:username', async (request) => {
    const caller = callerOf(request, uidDomain);
    const username = shortName(request.params.username, uidDomain);
    const wanted = (request.body as { concurrent_jobs?: unknown } | null)?.concurrent_jobs;
    if (typeof wanted !== 'number' || !Number.isInteger(wanted) || wanted < 0 || wanted > 10_000) {
      throw gatewayError(
        'ERR_BAD_OR_MISSING_FIELD',
        '"concurrent_jobs" must be a whole number from 0 to 10000',
        { field: 'concurrent_jobs' },
      );
    }
    const row = { concurrent_jobs: wanted, set_by: caller.name, set_on: now() };
    await db
      .insertInto('concurrent_job_limits')
      .values({ username, ...row })
      .onConflict((conflict) => conflict.column('username').doUpdateSet(row))
      .execute();
    return shape(username, wanted);
  });

  app.delete<Params>('/settings/concurrent-job-limits/:username', async (request) => {
    callerOf(request, uidDomain);
    const username = shortName(request.params.username, uidDomain);
    await db.deleteFrom('concurrent_job_limits').where('username', '=', username).execute();
    return shape(username, undefined);
  });
};

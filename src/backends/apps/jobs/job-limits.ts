// Concurrent-job limits as the job runner enforces them (backends.md §6): how many analyses a user
// may have submitted or running at once. Administrators set them through the analyses service
// (its job-limit-routes.ts) in the concurrent_job_limits table; this reads that table.
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';

/** A user's limit: theirs when set, else the platform default. */
export async function concurrentJobLimit(
  db: Kysely<Database>,
  user: string,
  fallback: number,
): Promise<number> {
  const row = await db
    .selectFrom('concurrent_job_limits')
    .select('concurrent_jobs')
    .where('username', '=', user)
    .executeTakeFirst();
  return row?.concurrent_jobs ?? fallback;
}

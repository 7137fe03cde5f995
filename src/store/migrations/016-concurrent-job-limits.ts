import type { Kysely } from 'kysely';

/**
 * Per-user concurrent-job limits set by administrators (backends.md §6 `/settings/concurrent-job-limits`);
 * users without a row get MAX_CONCURRENT_JOBS. Usernames are short.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('concurrent_job_limits')
    .addColumn('username', 'varchar(512)', (col) => col.primaryKey())
    .addColumn('concurrent_jobs', 'integer', (col) => col.notNull())
    .addColumn('set_by', 'varchar(512)', (col) => col.notNull())
    .addColumn('set_on', 'bigint', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('concurrent_job_limits').execute();
}

import type { Kysely } from 'kysely';

/**
 * Steps of analyses (backends.md §5.5 `job_steps`): one row per step of every analysis, each with
 * its own status and times, and the status updates of each step (a step number on
 * `analysis_status_updates`; null for the analysis's own updates). Tools record which executable
 * or root filesystem image an administrator approved for running (`approved_run`, JSON of the
 * program and image as they stood, so a later change by the tool's owner is not approved).
 * Times are milliseconds since the epoch.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('analysis_steps')
    .addColumn('analysis_id', 'varchar(36)', (col) =>
      col.notNull().references('analyses.id').onDelete('cascade'),
    )
    // 1-based, in the order the steps run.
    .addColumn('step_number', 'integer', (col) => col.notNull())
    .addColumn('name', 'varchar(255)', (col) => col.notNull())
    // Unique per step: what the executor knows it by.
    .addColumn('external_id', 'varchar(36)', (col) => col.notNull())
    // `DE` (batch), `Interactive`, or the third-party system's id.
    .addColumn('step_type', 'varchar(64)', (col) => col.notNull())
    .addColumn('status', 'varchar(32)', (col) => col.notNull())
    .addColumn('start_date', 'bigint')
    .addColumn('end_date', 'bigint')
    .addPrimaryKeyConstraint('analysis_steps_pk', ['analysis_id', 'step_number'])
    .execute();
  await db.schema
    .alterTable('analysis_status_updates')
    .addColumn('step_number', 'integer')
    .execute();
  await db.schema.alterTable('tools').addColumn('approved_run', 'text').execute();
  await db.schema.alterTable('tools').addColumn('approved_by', 'varchar(512)').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tools').dropColumn('approved_by').execute();
  await db.schema.alterTable('tools').dropColumn('approved_run').execute();
  await db.schema.alterTable('analysis_status_updates').dropColumn('step_number').execute();
  await db.schema.dropTable('analysis_steps').execute();
}

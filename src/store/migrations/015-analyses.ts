import type { Kysely } from 'kysely';

/**
 * Analyses (jobs) of the apps service (backends.md §5.3, §5.6): one row per submitted job with
 * the submission as sent, and its status history. Usernames are short, times milliseconds since
 * the epoch; `end_date` stays null until the job ends.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('analyses')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(255)', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('username', 'varchar(512)', (col) => col.notNull())
    .addColumn('app_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('app_version_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('system_id', 'varchar(32)', (col) => col.notNull())
    .addColumn('app_name', 'varchar(255)', (col) => col.notNull())
    .addColumn('app_description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('result_folder', 'text', (col) => col.notNull())
    .addColumn('status', 'varchar(64)', (col) => col.notNull())
    .addColumn('start_date', 'bigint', (col) => col.notNull())
    .addColumn('end_date', 'bigint')
    .addColumn('deleted', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('notify', 'boolean', (col) => col.notNull().defaultTo(true))
    .addColumn('submission', 'text', (col) => col.notNull())
    .addColumn('parent_id', 'varchar(36)')
    .execute();
  await db.schema
    .createIndex('analyses_user_start')
    .on('analyses')
    .columns(['username', 'deleted', 'start_date'])
    .execute();
  await db.schema
    .createIndex('analyses_user_status')
    .on('analyses')
    .columns(['username', 'status'])
    .execute();
  await db.schema
    .createIndex('analyses_app')
    .on('analyses')
    .columns(['app_id', 'status'])
    .execute();

  await db.schema
    .createTable('analysis_status_updates')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('analysis_id', 'varchar(36)', (col) =>
      col.notNull().references('analyses.id').onDelete('cascade'),
    )
    .addColumn('status', 'varchar(64)', (col) => col.notNull())
    .addColumn('message', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('sent_on', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('analysis_status_updates_analysis')
    .on('analysis_status_updates')
    .columns(['analysis_id', 'sent_on'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('analysis_status_updates').execute();
  await db.schema.dropTable('analyses').execute();
}

import type { Kysely } from 'kysely';

/**
 * Integration data (routes.md §17, the apps service's `/admin/integration-data`): who integrated an
 * app or a tool, as its listings and details name them: a name, an e-mail and, when it is a user of
 * the platform, their short username (one record per user). Apps and tools point at theirs; one
 * that does not yet (made before this migration) gets its integrator's record on first use.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('integration_data')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('username', 'varchar(512)', (col) => col.unique())
    .addColumn('integrator_name', 'varchar(255)', (col) => col.notNull())
    .addColumn('integrator_email', 'varchar(255)', (col) => col.notNull())
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.alterTable('apps').addColumn('integration_data_id', 'varchar(36)').execute();
  await db.schema.alterTable('tools').addColumn('integration_data_id', 'varchar(36)').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tools').dropColumn('integration_data_id').execute();
  await db.schema.alterTable('apps').dropColumn('integration_data_id').execute();
  await db.schema.dropTable('integration_data').execute();
}

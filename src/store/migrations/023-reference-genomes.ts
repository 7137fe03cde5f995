import type { Kysely } from 'kysely';

/**
 * Reference genomes (routes.md §17, §18): named data-store paths administrators keep for launch
 * forms' reference-genome parameters. Deleting one marks it (`deleted`); only `permanent=true`
 * removes the row. Users are qualified (`alice@<uid-domain>`); times are milliseconds since the epoch.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('reference_genomes')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(512)', (col) => col.notNull())
    .addColumn('path', 'varchar(2048)', (col) => col.notNull())
    .addColumn('deleted', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('created_by', 'varchar(512)', (col) => col.notNull())
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addColumn('last_modified_by', 'varchar(512)', (col) => col.notNull())
    .addColumn('last_modified_on', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('reference_genomes_name')
    .on('reference_genomes')
    .columns(['name'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('reference_genomes').execute();
}

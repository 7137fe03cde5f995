import type { Kysely } from 'kysely';

/**
 * Publishing apps (routes.md §16 `publish`, §17 publication requests): an integrator asks for their
 * app to become public, an administrator approves the request (the app becomes public, the request
 * completed). At most one pending request per app is kept by the service, not by a constraint (a
 * completed one stays, for the record). `app_extras` holds what administrators set as an app's
 * `extra` (e.g. `extra_requirements` for a batch scheduler), JSON text. Times are milliseconds
 * since the epoch, usernames short.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('app_publication_requests')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('app_id', 'varchar(36)', (col) =>
      col.notNull().references('apps.id').onDelete('cascade'),
    )
    .addColumn('requestor', 'varchar(512)', (col) => col.notNull())
    .addColumn('requested_on', 'bigint', (col) => col.notNull())
    // What the requestor sent with the request, JSON text: {documentation?, references?}.
    .addColumn('request', 'text', (col) => col.notNull().defaultTo('{}'))
    .addColumn('completed', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('completed_by', 'varchar(512)')
    .addColumn('completed_on', 'bigint')
    .execute();
  await db.schema
    .createIndex('app_publication_requests_app')
    .on('app_publication_requests')
    .columns(['app_id', 'completed'])
    .execute();

  await db.schema
    .createTable('app_extras')
    .addColumn('app_id', 'varchar(36)', (col) =>
      col.primaryKey().references('apps.id').onDelete('cascade'),
    )
    .addColumn('extra', 'text', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('app_extras').execute();
  await db.schema.dropTable('app_publication_requests').execute();
}

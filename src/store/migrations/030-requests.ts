import type { Kysely } from 'kysely';

/**
 * The requests service (backends.md §8, routes.md §23): request types with their per-user limits,
 * requests (a type, the requester, details as JSON) and each request's status history. Usernames
 * are short; times are milliseconds since the epoch.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('request_types')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(128)', (col) => col.notNull().unique())
    // Null means no limit.
    .addColumn('maximum_requests_per_user', 'integer')
    .addColumn('maximum_concurrent_requests_per_user', 'integer')
    .execute();
  await db.schema
    .createTable('requests')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('request_type_id', 'varchar(36)', (col) =>
      col.notNull().references('request_types.id'),
    )
    .addColumn('requesting_user', 'varchar(512)', (col) => col.notNull())
    .addColumn('details', 'text', (col) => col.notNull())
    .addColumn('created_date', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('requests_user_type')
    .on('requests')
    .columns(['requesting_user', 'request_type_id'])
    .execute();
  await db.schema
    .createTable('request_updates')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('request_id', 'varchar(36)', (col) =>
      col.notNull().references('requests.id').onDelete('cascade'),
    )
    // `submitted`, `in-progress`, `approved` or `rejected`.
    .addColumn('status', 'varchar(32)', (col) => col.notNull())
    .addColumn('updating_user', 'varchar(512)', (col) => col.notNull())
    .addColumn('message', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('created_date', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('request_updates_request')
    .on('request_updates')
    .columns(['request_id', 'created_date'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('request_updates').execute();
  await db.schema.dropTable('requests').execute();
  await db.schema.dropTable('request_types').execute();
}

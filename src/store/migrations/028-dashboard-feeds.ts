import type { Kysely } from 'kysely';

/**
 * The dashboard's feeds (routes.md §23): platform news, events and videos that administrators post
 * and delete, kept by the embedded user-info service beside the global alerts. Times are
 * milliseconds since the epoch.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('dashboard_feed_items')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    // `news`, `events` or `videos`.
    .addColumn('feed', 'varchar(16)', (col) => col.notNull())
    .addColumn('title', 'text', (col) => col.notNull())
    .addColumn('link', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('author', 'varchar(512)', (col) => col.notNull().defaultTo(''))
    .addColumn('publication_date', 'bigint', (col) => col.notNull())
    .addColumn('date_added', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('dashboard_feed_items_feed_date')
    .on('dashboard_feed_items')
    .columns(['feed', 'publication_date'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('dashboard_feed_items').execute();
}

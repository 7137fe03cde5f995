import type { Kysely } from 'kysely';

/** The user-info service's tables (backends.md §7): per-user documents, bags and global alerts. */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [table, column] of [
    ['user_preferences', 'preferences'],
    ['user_sessions', 'session'],
    ['user_saved_searches', 'saved_searches'],
  ] as const) {
    await db.schema
      .createTable(table)
      .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
      .addColumn('user_id', 'varchar(36)', (col) =>
        col.notNull().unique().references('users.id').onDelete('cascade'),
      )
      .addColumn(column, 'text', (col) => col.notNull())
      .execute();
  }

  await db.schema
    .createTable('bags')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('user_id', 'varchar(36)', (col) =>
      col.notNull().references('users.id').onDelete('cascade'),
    )
    .addColumn('contents', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('bags_user_id').on('bags').column('user_id').execute();
  await db.schema
    .createTable('default_bags')
    .addColumn('user_id', 'varchar(36)', (col) =>
      col.primaryKey().references('users.id').onDelete('cascade'),
    )
    .addColumn('bag_id', 'varchar(36)', (col) =>
      col.notNull().unique().references('bags.id').onDelete('cascade'),
    )
    .execute();

  await db.schema
    .createTable('global_alerts')
    .addColumn('start_date', 'bigint')
    .addColumn('end_date', 'bigint', (col) => col.notNull())
    .addColumn('alert', 'text', (col) => col.notNull())
    .addUniqueConstraint('global_alerts_identity', ['end_date', 'alert'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'global_alerts',
    'default_bags',
    'bags',
    'user_saved_searches',
    'user_sessions',
    'user_preferences',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}

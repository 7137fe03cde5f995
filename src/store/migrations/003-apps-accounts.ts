import type { Kysely } from 'kysely';

/** The apps service's per-user tables (backends.md §5.6): the workspace and the login history. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('workspace')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('user_id', 'varchar(36)', (col) =>
      col.notNull().unique().references('users.id').onDelete('cascade'),
    )
    .addColumn('root_category_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('is_public', 'boolean', (col) => col.notNull().defaultTo(false))
    .execute();

  await db.schema
    .createTable('logins')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('user_id', 'varchar(36)', (col) =>
      col.notNull().references('users.id').onDelete('cascade'),
    )
    .addColumn('ip_address', 'varchar(45)')
    .addColumn('login_time', 'bigint', (col) => col.notNull())
    .addColumn('session_id', 'text')
    .execute();
  await db.schema
    .createIndex('logins_user_time')
    .on('logins')
    .columns(['user_id', 'login_time'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('logins').execute();
  await db.schema.dropTable('workspace').execute();
}

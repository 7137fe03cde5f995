import type { Kysely } from 'kysely';

/**
 * The embedded analyses service's quick launches (backends.md §6): saved analysis submissions
 * for an app, the users' favourites among them, and the defaults that pick the one used for an
 * app (per user, and globally). Usernames are short, times milliseconds since the epoch. A quick
 * launch's favourites and defaults go with it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('quick_launches')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(255)', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('creator', 'varchar(512)', (col) => col.notNull())
    .addColumn('app_id', 'varchar(36)', (col) =>
      col.notNull().references('apps.id').onDelete('cascade'),
    )
    // No foreign key: a quick launch outlives a deleted version (its app-info then answers 404).
    .addColumn('app_version_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('is_public', 'boolean', (col) => col.notNull().defaultTo(false))
    // The analysis submission as given (JSON text); required parameters may be missing.
    .addColumn('submission', 'text', (col) => col.notNull())
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('quick_launches_creator')
    .on('quick_launches')
    .column('creator')
    .execute();
  await db.schema
    .createIndex('quick_launches_app')
    .on('quick_launches')
    .columns(['app_id', 'is_public'])
    .execute();

  await db.schema
    .createTable('quick_launch_favorites')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('username', 'varchar(512)', (col) => col.notNull())
    .addColumn('quick_launch_id', 'varchar(36)', (col) =>
      col.notNull().references('quick_launches.id').onDelete('cascade'),
    )
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addUniqueConstraint('quick_launch_favorites_user_ql', ['username', 'quick_launch_id'])
    .execute();
  await db.schema
    .createIndex('quick_launch_favorites_ql')
    .on('quick_launch_favorites')
    .column('quick_launch_id')
    .execute();

  await db.schema
    .createTable('quick_launch_user_defaults')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('username', 'varchar(512)', (col) => col.notNull())
    .addColumn('app_id', 'varchar(36)', (col) =>
      col.notNull().references('apps.id').onDelete('cascade'),
    )
    .addColumn('quick_launch_id', 'varchar(36)', (col) =>
      col.notNull().references('quick_launches.id').onDelete('cascade'),
    )
    .addUniqueConstraint('quick_launch_user_defaults_user_app', ['username', 'app_id'])
    .addUniqueConstraint('quick_launch_user_defaults_user_ql', ['username', 'quick_launch_id'])
    .execute();
  await db.schema
    .createIndex('quick_launch_user_defaults_ql')
    .on('quick_launch_user_defaults')
    .column('quick_launch_id')
    .execute();

  await db.schema
    .createTable('quick_launch_global_defaults')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('app_id', 'varchar(36)', (col) =>
      col.notNull().unique().references('apps.id').onDelete('cascade'),
    )
    .addColumn('quick_launch_id', 'varchar(36)', (col) =>
      col.notNull().unique().references('quick_launches.id').onDelete('cascade'),
    )
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('quick_launch_global_defaults').execute();
  await db.schema.dropTable('quick_launch_user_defaults').execute();
  await db.schema.dropTable('quick_launch_favorites').execute();
  await db.schema.dropTable('quick_launches').execute();
}

import type { Kysely } from 'kysely';

/**
 * The embedded data store's catalog (backends.md §2): one row per file or folder, keyed by a UUID
 * that also names the file's bytes on disk, so renames and moves never touch the disk.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('data_objects')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('path', 'varchar(4096)', (col) => col.notNull().unique())
    .addColumn('parent_path', 'varchar(4096)', (col) => col.notNull())
    .addColumn('name', 'varchar(1024)', (col) => col.notNull())
    .addColumn('type', 'varchar(4)', (col) => col.notNull())
    .addColumn('owner', 'varchar(512)', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('modified_at', 'bigint', (col) => col.notNull())
    .addColumn('size', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('md5', 'varchar(32)')
    .addColumn('content_type', 'varchar(255)')
    .addColumn('info_type', 'varchar(255)', (col) => col.notNull().defaultTo(''))
    // Set while the object sits in a trash: where it came from and when, for restore and the sweep.
    .addColumn('trash_origin', 'varchar(4096)')
    .addColumn('trashed_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('data_objects_parent')
    .on('data_objects')
    .column('parent_path')
    .execute();
  await db.schema
    .createIndex('data_objects_trashed_at')
    .on('data_objects')
    .column('trashed_at')
    .execute();

  // Grants per object; a grant on a folder covers everything below it. `public` means every user.
  await db.schema
    .createTable('data_permissions')
    .addColumn('object_id', 'varchar(36)', (col) =>
      col.notNull().references('data_objects.id').onDelete('cascade'),
    )
    .addColumn('username', 'varchar(512)', (col) => col.notNull())
    .addColumn('permission', 'varchar(5)', (col) => col.notNull())
    .addPrimaryKeyConstraint('data_permissions_pk', ['object_id', 'username'])
    .execute();
  await db.schema
    .createIndex('data_permissions_user')
    .on('data_permissions')
    .column('username')
    .execute();

  await db.schema
    .createTable('data_tickets')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('object_id', 'varchar(36)', (col) =>
      col.notNull().references('data_objects.id').onDelete('cascade'),
    )
    .addColumn('owner', 'varchar(512)', (col) => col.notNull())
    .addColumn('mode', 'varchar(5)', (col) => col.notNull())
    .addColumn('public', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('for_job', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('uses_limit', 'integer')
    .addColumn('uses_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('file_write_limit', 'integer')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('data_tickets').execute();
  await db.schema.dropTable('data_permissions').execute();
  await db.schema.dropTable('data_objects').execute();
}

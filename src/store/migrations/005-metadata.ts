import { sql, type Kysely } from 'kysely';

/**
 * The metadata service's own tables (backends.md §3.1–3.4): comments, favorites, AVUs, tags and
 * their attachments. Usernames are short (`alice`), ids UUIDs in lower case, times milliseconds
 * since the epoch. `target_type` takes the values of the reference service's `target_enum`.
 */
const targetTypes = [
  'analysis',
  'app',
  'avu',
  'file',
  'folder',
  'user',
  'quick_launch',
  'instant_launch',
] as const;

const targetTypeCheck = sql`target_type in (${sql.join(targetTypes.map((type) => sql.lit(type)))})`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('comments')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('value', 'text', (col) => col.notNull())
    .addColumn('post_time', 'bigint', (col) => col.notNull())
    .addColumn('retracted', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('retracted_by', 'varchar(512)')
    .addColumn('deleted', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('target_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('target_type', 'varchar(16)', (col) => col.notNull())
    .addColumn('owner_id', 'varchar(512)', (col) => col.notNull())
    .addCheckConstraint('comments_target_type', targetTypeCheck)
    .execute();
  await db.schema
    .createIndex('comments_target')
    .on('comments')
    .columns(['target_id', 'post_time'])
    .execute();
  await db.schema.createIndex('comments_owner').on('comments').column('owner_id').execute();

  await db.schema
    .createTable('favorites')
    .addColumn('owner_id', 'varchar(512)', (col) => col.notNull())
    .addColumn('target_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('target_type', 'varchar(16)', (col) => col.notNull())
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('favorites_pk', ['owner_id', 'target_id'])
    .addCheckConstraint('favorites_target_type', targetTypeCheck)
    .execute();
  // The listing reads one owner's favorites in the order they were marked.
  await db.schema
    .createIndex('favorites_owner_created')
    .on('favorites')
    .columns(['owner_id', 'created_on', 'target_id'])
    .execute();

  // No unique index on (target, attribute, value, unit) as the reference has: values are free text
  // (abstracts, descriptions) and PostgreSQL refuses index entries over ~2.7 kB. The service keeps
  // the triple unique per target inside its write transactions instead.
  await db.schema
    .createTable('avus')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('attribute', 'text', (col) => col.notNull())
    .addColumn('value', 'text', (col) => col.notNull())
    .addColumn('unit', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('target_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('target_type', 'varchar(16)', (col) => col.notNull())
    .addColumn('created_by', 'varchar(512)', (col) => col.notNull())
    .addColumn('modified_by', 'varchar(512)', (col) => col.notNull())
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addColumn('modified_on', 'bigint', (col) => col.notNull())
    .addCheckConstraint('avus_target_type', targetTypeCheck)
    .execute();
  await db.schema
    .createIndex('avus_target')
    .on('avus')
    .columns(['target_id', 'target_type'])
    .execute();

  await db.schema
    .createTable('tags')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('value', 'varchar(255)', (col) => col.notNull())
    .addColumn('description', 'text')
    .addColumn('public', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('owner_id', 'varchar(512)', (col) => col.notNull())
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addColumn('modified_on', 'bigint', (col) => col.notNull())
    .addUniqueConstraint('tags_value_owner', ['value', 'owner_id'])
    .execute();
  await db.schema.createIndex('tags_owner').on('tags').column('owner_id').execute();

  // One row per attachment; detaching records who and when instead of removing the row.
  await db.schema
    .createTable('attached_tags')
    .addColumn('target_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('target_type', 'varchar(16)', (col) => col.notNull())
    .addColumn('tag_id', 'varchar(36)', (col) =>
      col.notNull().references('tags.id').onDelete('cascade'),
    )
    .addColumn('attacher_id', 'varchar(512)', (col) => col.notNull())
    .addColumn('attached_on', 'bigint', (col) => col.notNull())
    .addColumn('detacher_id', 'varchar(512)')
    .addColumn('detached_on', 'bigint')
    .addCheckConstraint('attached_tags_target_type', targetTypeCheck)
    .execute();
  await db.schema
    .createIndex('attached_tags_target')
    .on('attached_tags')
    .column('target_id')
    .execute();
  await db.schema.createIndex('attached_tags_tag').on('attached_tags').column('tag_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['attached_tags', 'tags', 'avus', 'favorites', 'comments']) {
    await db.schema.dropTable(table).execute();
  }
}

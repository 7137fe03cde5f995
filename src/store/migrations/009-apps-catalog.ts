import type { Kysely } from 'kysely';

/**
 * The apps service's catalog (backends.md §5.1, §5.6): tools, apps and their versions, categories,
 * favourites and ratings. An app version's definition (steps with their tools, parameter groups,
 * resource requirements) is one JSON document, read and written whole (launch forms, submission
 * checks, edits); what listings filter and sort on is in columns. Usernames are short, times
 * milliseconds since the epoch.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tools')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(255)', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('location', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('type', 'varchar(32)', (col) => col.notNull())
    .addColumn('version', 'varchar(255)', (col) => col.notNull().defaultTo(''))
    .addColumn('attribution', 'text', (col) => col.notNull().defaultTo(''))
    // The embedded executor that runs it (built-in tools); null: no executor here.
    .addColumn('executor', 'varchar(64)')
    .addColumn('integrator', 'varchar(512)', (col) => col.notNull())
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('apps')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('system_id', 'varchar(32)', (col) => col.notNull().defaultTo('de'))
    .addColumn('name', 'varchar(255)', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('integrator', 'varchar(512)', (col) => col.notNull())
    .addColumn('integrator_name', 'varchar(255)', (col) => col.notNull().defaultTo(''))
    .addColumn('integrator_email', 'varchar(255)', (col) => col.notNull().defaultTo(''))
    .addColumn('wiki_url', 'varchar(1024)')
    .addColumn('is_public', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('is_blessed', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('beta', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('deleted', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('disabled', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('integration_date', 'bigint', (col) => col.notNull())
    .addColumn('edited_date', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('apps_integrator').on('apps').column('integrator').execute();
  await db.schema
    .createIndex('apps_public_name')
    .on('apps')
    .columns(['is_public', 'deleted', 'name'])
    .execute();

  await db.schema
    .createTable('app_versions')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('app_id', 'varchar(36)', (col) =>
      col.notNull().references('apps.id').onDelete('cascade'),
    )
    .addColumn('version', 'varchar(255)', (col) => col.notNull())
    // 1, 2, …: the highest is the current version.
    .addColumn('version_order', 'integer', (col) => col.notNull())
    .addColumn('definition', 'text', (col) => col.notNull())
    .addColumn('documentation', 'text')
    .addColumn('reference_urls', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('created_by', 'varchar(512)', (col) => col.notNull())
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addUniqueConstraint('app_versions_order', ['app_id', 'version_order'])
    .execute();

  // A version's steps name their tools here too, so a tool in use is found without reading definitions.
  await db.schema
    .createTable('app_version_tools')
    .addColumn('app_version_id', 'varchar(36)', (col) =>
      col.notNull().references('app_versions.id').onDelete('cascade'),
    )
    .addColumn('step_number', 'integer', (col) => col.notNull())
    .addColumn('tool_id', 'varchar(36)', (col) => col.references('tools.id'))
    .addPrimaryKeyConstraint('app_version_tools_pk', ['app_version_id', 'step_number'])
    .execute();

  await db.schema
    .createTable('app_categories')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(255)', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('parent_id', 'varchar(36)', (col) =>
      col.references('app_categories.id').onDelete('cascade'),
    )
    // Null for public categories; a user's own (workspace) categories name their owner.
    .addColumn('owner', 'varchar(512)')
    .addColumn('is_public', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('app_categories_parent')
    .on('app_categories')
    .column('parent_id')
    .execute();

  await db.schema
    .createTable('app_category_apps')
    .addColumn('category_id', 'varchar(36)', (col) =>
      col.notNull().references('app_categories.id').onDelete('cascade'),
    )
    .addColumn('app_id', 'varchar(36)', (col) =>
      col.notNull().references('apps.id').onDelete('cascade'),
    )
    .addPrimaryKeyConstraint('app_category_apps_pk', ['category_id', 'app_id'])
    .execute();
  await db.schema
    .createIndex('app_category_apps_app')
    .on('app_category_apps')
    .column('app_id')
    .execute();

  await db.schema
    .createTable('app_favorites')
    .addColumn('username', 'varchar(512)', (col) => col.notNull())
    .addColumn('app_id', 'varchar(36)', (col) =>
      col.notNull().references('apps.id').onDelete('cascade'),
    )
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('app_favorites_pk', ['username', 'app_id'])
    .execute();

  await db.schema
    .createTable('app_ratings')
    .addColumn('username', 'varchar(512)', (col) => col.notNull())
    .addColumn('app_id', 'varchar(36)', (col) =>
      col.notNull().references('apps.id').onDelete('cascade'),
    )
    .addColumn('rating', 'integer', (col) => col.notNull())
    .addColumn('comment_id', 'varchar(36)')
    .addColumn('rated_on', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('app_ratings_pk', ['username', 'app_id'])
    .execute();
  await db.schema.createIndex('app_ratings_app').on('app_ratings').column('app_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'app_ratings',
    'app_favorites',
    'app_category_apps',
    'app_categories',
    'app_version_tools',
    'app_versions',
    'apps',
    'tools',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}

import type { Kysely } from 'kysely';

/**
 * Instant launches (backends.md §6), kept by the embedded analyses service beside the quick
 * launches they start: an instant launch names a quick launch (and goes with it); the default
 * mappings from file-name patterns or info types to instant launches are versioned, the latest
 * version being the one in force. Usernames are short, times milliseconds since the epoch. Their
 * AVUs live in the metadata `avus` table with target type `instant_launch`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('instant_launches')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('quick_launch_id', 'varchar(36)', (col) =>
      col.notNull().references('quick_launches.id').onDelete('cascade'),
    )
    .addColumn('added_by', 'varchar(512)', (col) => col.notNull())
    .addColumn('added_on', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('instant_launches_ql')
    .on('instant_launches')
    .column('quick_launch_id')
    .execute();

  await db.schema
    .createTable('default_instant_launches')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('version', 'integer', (col) => col.notNull().unique())
    // JSON text: `{<pattern>: {kind, default, compatible}}`.
    .addColumn('instant_launches', 'text', (col) => col.notNull())
    .addColumn('added_by', 'varchar(512)', (col) => col.notNull())
    .addColumn('added_on', 'bigint', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('default_instant_launches').execute();
  await db.schema.dropTable('instant_launches').execute();
}

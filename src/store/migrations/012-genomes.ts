import type { Kysely } from 'kysely';

/**
 * The embedded genome service (routes.md §15): genomes loaded from FASTA files of the data store,
 * and the load and export jobs that run in the background. Usernames are short, times
 * milliseconds since the epoch. A genome's FASTA bytes are kept by id outside the catalog.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('genomes')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(255)', (col) => col.notNull())
    .addColumn('organism', 'varchar(255)', (col) => col.notNull())
    .addColumn('version', 'varchar(64)', (col) => col.notNull())
    .addColumn('owner', 'varchar(512)', (col) => col.notNull())
    // Restricted genomes are found and exported by their owner only.
    .addColumn('restricted', 'boolean', (col) => col.notNull().defaultTo(true))
    // JSON list of the data-store paths it was loaded from, in order.
    .addColumn('source_paths', 'text', (col) => col.notNull())
    // `loading` until its load job succeeds (`loaded`); a failed load removes the row.
    .addColumn('status', 'varchar(16)', (col) => col.notNull())
    .addColumn('sequence_count', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('total_length', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('genomes_owner').on('genomes').columns(['owner', 'status']).execute();

  await db.schema
    .createTable('genome_jobs')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    // `load` or `export_fasta`.
    .addColumn('type', 'varchar(32)', (col) => col.notNull())
    .addColumn('username', 'varchar(512)', (col) => col.notNull())
    // No foreign key: a failed load's job outlives its genome.
    .addColumn('genome_id', 'varchar(36)', (col) => col.notNull())
    // JSON: the job's parameters as requested.
    .addColumn('parameters', 'text', (col) => col.notNull())
    // `Running`, `Completed` or `Failed`.
    .addColumn('status', 'varchar(16)', (col) => col.notNull())
    .addColumn('error', 'text')
    // JSON list of the data-store paths it read or wrote.
    .addColumn('paths', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('genome_jobs_user')
    .on('genome_jobs')
    .columns(['username', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('genome_jobs').execute();
  await db.schema.dropTable('genomes').execute();
}

import type { Kysely } from 'kysely';

/**
 * Ontologies for app categorisation (backends.md §3.6, §5.5). The metadata service keeps each
 * uploaded document under its own version id, with every class and subclass edge parsed from it
 * once, at upload; which hierarchies an administrator has saved is kept apart (the roots, and the
 * classes saved under them), so deleting a hierarchy and saving it again never re-reads the XML.
 * The apps service logs which version is active: the highest position wins. Usernames are short,
 * times milliseconds since the epoch.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ontologies')
    .addColumn('version', 'text', (col) => col.primaryKey())
    .addColumn('iri', 'text', (col) => col.notNull())
    .addColumn('xml', 'text', (col) => col.notNull())
    .addColumn('created_by', 'varchar(512)', (col) => col.notNull())
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addColumn('deleted', 'boolean', (col) => col.notNull().defaultTo(false))
    .execute();

  await db.schema
    .createTable('ontology_classes')
    .addColumn('ontology_version', 'text', (col) =>
      col.notNull().references('ontologies.version').onDelete('cascade'),
    )
    .addColumn('iri', 'text', (col) => col.notNull())
    .addColumn('label', 'text')
    .addColumn('description', 'text')
    .addPrimaryKeyConstraint('ontology_classes_pk', ['ontology_version', 'iri'])
    .execute();

  await db.schema
    .createTable('ontology_subclasses')
    .addColumn('ontology_version', 'text', (col) =>
      col.notNull().references('ontologies.version').onDelete('cascade'),
    )
    .addColumn('class_iri', 'text', (col) => col.notNull())
    .addColumn('subclass_iri', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('ontology_subclasses_pk', [
      'ontology_version',
      'class_iri',
      'subclass_iri',
    ])
    .execute();

  await db.schema
    .createTable('ontology_saved_roots')
    .addColumn('ontology_version', 'text', (col) =>
      col.notNull().references('ontologies.version').onDelete('cascade'),
    )
    .addColumn('root_iri', 'text', (col) => col.notNull())
    .addColumn('saved_on', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('ontology_saved_roots_pk', ['ontology_version', 'root_iri'])
    .execute();

  await db.schema
    .createTable('ontology_saved_classes')
    .addColumn('ontology_version', 'text', (col) =>
      col.notNull().references('ontologies.version').onDelete('cascade'),
    )
    .addColumn('class_iri', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('ontology_saved_classes_pk', ['ontology_version', 'class_iri'])
    .execute();

  // Not a foreign key: the apps service may run against another metadata service's versions.
  await db.schema
    .createTable('app_hierarchy_version')
    .addColumn('position', 'integer', (col) => col.primaryKey())
    .addColumn('version', 'text', (col) => col.notNull())
    .addColumn('applied_by', 'varchar(512)', (col) => col.notNull())
    .addColumn('applied', 'bigint', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'app_hierarchy_version',
    'ontology_saved_classes',
    'ontology_saved_roots',
    'ontology_subclasses',
    'ontology_classes',
    'ontologies',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}

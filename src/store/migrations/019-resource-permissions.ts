import type { Kysely } from 'kysely';

/**
 * Grants on apps, analyses and tools (backends.md §8 "permissions"): who was given which level
 * (`read`, `write`, `own`) of which resource. A subject is a user (short username) or a group (a
 * team's or collaborator list's id, whose members hold the grant while they are members). Owners
 * hold `own` by being owners, not by a row here. Times are milliseconds since the epoch.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('resource_permissions')
    // `app`, `analysis` or `tool`.
    .addColumn('resource_type', 'varchar(16)', (col) => col.notNull())
    .addColumn('resource_id', 'varchar(36)', (col) => col.notNull())
    // `user` or `group`.
    .addColumn('subject_type', 'varchar(16)', (col) => col.notNull())
    .addColumn('subject_id', 'varchar(512)', (col) => col.notNull())
    .addColumn('permission', 'varchar(16)', (col) => col.notNull())
    .addColumn('granted_on', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('resource_permissions_pk', [
      'resource_type',
      'resource_id',
      'subject_type',
      'subject_id',
    ])
    .execute();
  // "What was shared with me (or my groups)": listings start from the subject.
  await db.schema
    .createIndex('resource_permissions_subject')
    .on('resource_permissions')
    .columns(['subject_type', 'subject_id', 'resource_type'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('resource_permissions').execute();
}

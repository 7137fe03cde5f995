import type { Kysely } from 'kysely';

/**
 * The embedded groups service (routes.md §22, backends.md §8 "groups"): teams (`<owner>:<name>`),
 * communities and collaborator lists (`<owner>:<name>`), one table of groups told apart by
 * `kind`; their members, privileges (a subject `GrouperAll` is the public) and pending join
 * requests. Subjects are short usernames, times milliseconds since the epoch. A group's rows go
 * with it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('groups')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('kind', 'varchar(32)', (col) => col.notNull())
    .addColumn('name', 'varchar(512)', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('creator', 'varchar(512)', (col) => col.notNull())
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addColumn('modified_on', 'bigint', (col) => col.notNull())
    .addUniqueConstraint('groups_kind_name', ['kind', 'name'])
    .execute();

  await db.schema
    .createTable('group_members')
    .addColumn('group_id', 'varchar(36)', (col) =>
      col.notNull().references('groups.id').onDelete('cascade'),
    )
    .addColumn('subject_id', 'varchar(512)', (col) => col.notNull())
    .addColumn('added_on', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('group_members_pk', ['group_id', 'subject_id'])
    .execute();
  await db.schema
    .createIndex('group_members_subject')
    .on('group_members')
    .column('subject_id')
    .execute();

  await db.schema
    .createTable('group_privileges')
    .addColumn('group_id', 'varchar(36)', (col) =>
      col.notNull().references('groups.id').onDelete('cascade'),
    )
    .addColumn('subject_id', 'varchar(512)', (col) => col.notNull())
    .addColumn('privilege', 'varchar(32)', (col) => col.notNull())
    // Orders a group's admins: the first one hears of join requests.
    .addColumn('granted_on', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('group_privileges_pk', ['group_id', 'subject_id', 'privilege'])
    .execute();
  await db.schema
    .createIndex('group_privileges_subject')
    .on('group_privileges')
    .column('subject_id')
    .execute();

  await db.schema
    .createTable('group_join_requests')
    .addColumn('group_id', 'varchar(36)', (col) =>
      col.notNull().references('groups.id').onDelete('cascade'),
    )
    .addColumn('requester', 'varchar(512)', (col) => col.notNull())
    .addColumn('message', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('requested_on', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('group_join_requests_pk', ['group_id', 'requester'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('group_join_requests').execute();
  await db.schema.dropTable('group_privileges').execute();
  await db.schema.dropTable('group_members').execute();
  await db.schema.dropTable('groups').execute();
}

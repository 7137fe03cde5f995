import { sql, type Kysely } from 'kysely';

/** Identities the platform has seen (qualified usernames), keyed by a UUID other tables refer to. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'varchar(36)', (column) => column.primaryKey())
    .addColumn('username', 'varchar(512)', (column) => column.notNull().unique())
    .addColumn('email', 'varchar(512)')
    .addColumn('first_name', 'varchar(512)')
    .addColumn('last_name', 'varchar(512)')
    .addColumn('created_at', 'bigint', (column) => column.notNull().defaultTo(sql`0`))
    .addColumn('last_seen_at', 'bigint', (column) => column.notNull().defaultTo(sql`0`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('users').execute();
}

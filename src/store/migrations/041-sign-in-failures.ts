import type { Kysely } from 'kysely';

/**
 * Failed sign-ins of the embedded identity provider (docs/authentication.md, "Failed sign-ins"),
 * counted per username (`user:<name>`) and per client address (`address:<ip>`, an IPv6 address
 * by its /64): the failures counted (each within a window of the one before), the last one's
 * time, the lock in force and the length of the last one (each lock doubles the one before). A
 * row means nothing once `expires_at` has passed (a whole window after its last failure and its
 * lock), and is then deleted. Times are milliseconds since the epoch.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idp_sign_in_failures')
    .addColumn('key', 'varchar(160)', (col) => col.primaryKey())
    .addColumn('failures', 'integer', (col) => col.notNull())
    .addColumn('last_failure_at', 'bigint', (col) => col.notNull())
    .addColumn('locked_until', 'bigint', (col) => col.notNull())
    .addColumn('lock_ms', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('idp_sign_in_failures_expiry')
    .on('idp_sign_in_failures')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idp_sign_in_failures').execute();
}

import type { Kysely } from 'kysely';

/**
 * The embedded identity provider (docs/authentication.md): its users with scrypt password hashes,
 * sign-in sessions (the SSO cookie names one), authorization codes and refresh tokens, the last
 * two kept only as SHA-256 hashes. Times are milliseconds since the epoch.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idp_users')
    .addColumn('username', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('email', 'varchar(512)', (col) => col.notNull())
    .addColumn('first_name', 'varchar(255)', (col) => col.notNull().defaultTo(''))
    .addColumn('last_name', 'varchar(255)', (col) => col.notNull().defaultTo(''))
    // `scrypt$<N>$<r>$<p>$<salt base64url>$<hash base64url>`.
    .addColumn('password_hash', 'varchar(512)', (col) => col.notNull())
    .addColumn('admin', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('idp_sessions')
    .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('username', 'varchar(255)', (col) =>
      col.notNull().references('idp_users.username').onDelete('cascade'),
    )
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('idp_sessions_user').on('idp_sessions').column('username').execute();
  await db.schema
    .createIndex('idp_sessions_expiry')
    .on('idp_sessions')
    .column('expires_at')
    .execute();
  await db.schema
    .createTable('idp_codes')
    .addColumn('code_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('session_id', 'varchar(64)', (col) =>
      col.notNull().references('idp_sessions.id').onDelete('cascade'),
    )
    .addColumn('client_id', 'varchar(255)', (col) => col.notNull())
    .addColumn('redirect_uri', 'text', (col) => col.notNull())
    .addColumn('scope', 'text', (col) => col.notNull())
    .addColumn('nonce', 'text')
    .addColumn('code_challenge', 'varchar(128)')
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('idp_refresh_tokens')
    .addColumn('token_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('session_id', 'varchar(64)', (col) =>
      col.notNull().references('idp_sessions.id').onDelete('cascade'),
    )
    .addColumn('client_id', 'varchar(255)', (col) => col.notNull())
    .addColumn('scope', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('idp_refresh_tokens_session')
    .on('idp_refresh_tokens')
    .column('session_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idp_refresh_tokens').execute();
  await db.schema.dropTable('idp_codes').execute();
  await db.schema.dropTable('idp_sessions').execute();
  await db.schema.dropTable('idp_users').execute();
}

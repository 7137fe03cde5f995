import type { Kysely } from 'kysely';

/**
 * The apps service's OAuth tables (backends.md §5.4): access tokens to third-party APIs per user,
 * and the authorization requests waiting for a user to come back from the provider. Tokens are
 * sealed by the service (AES-256-GCM, base64 text) before they reach the database. Usernames are
 * short; times milliseconds since the epoch.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_access_tokens')
    .addColumn('webapp', 'varchar(64)', (col) => col.notNull())
    .addColumn('username', 'varchar(512)', (col) => col.notNull())
    .addColumn('token', 'text', (col) => col.notNull())
    // Null when the provider gave no lifetime.
    .addColumn('expires_at', 'bigint')
    .addColumn('refresh_token', 'text')
    .addPrimaryKeyConstraint('oauth_access_tokens_pk', ['webapp', 'username'])
    .execute();

  await db.schema
    .createTable('oauth_authorization_requests')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('username', 'varchar(512)', (col) => col.notNull())
    .addColumn('state_info', 'text', (col) => col.notNull())
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('oauth_authorization_requests_user')
    .on('oauth_authorization_requests')
    .columns(['username', 'created_on'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('oauth_authorization_requests').execute();
  await db.schema.dropTable('oauth_access_tokens').execute();
}

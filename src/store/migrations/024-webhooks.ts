import type { Kysely } from 'kysely';

/**
 * Webhooks (routes.md §18): a user's URLs, each of a type (how the body is written) and subscribed
 * to topics (notification types). When the notification agent records a notification of a
 * subscribed topic for the user, it POSTs it to the URL, signed with the webhook's own secret.
 * Usernames are short; times are milliseconds since the epoch. Types and topics are seeded here,
 * with fixed ids, so that every installation agrees on them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_types')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('type', 'varchar(64)', (col) => col.notNull().unique())
    // What the body looks like, for the settings page; the agent writes bodies itself.
    .addColumn('template', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('webhook_topics')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    // A notification type as the agent lists it (lower case, spaces for `_`).
    .addColumn('topic', 'varchar(64)', (col) => col.notNull().unique())
    .execute();
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('username', 'varchar(512)', (col) => col.notNull())
    .addColumn('url', 'varchar(2048)', (col) => col.notNull())
    .addColumn('type_id', 'varchar(36)', (col) => col.notNull().references('webhook_types.id'))
    // HMAC-SHA256 key of the X-Platform-Signature header, hex; shown to the owner only.
    .addColumn('secret', 'varchar(128)', (col) => col.notNull())
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .execute();
  // A user's URLs are distinct: a URL kept across a PUT keeps its id and secret.
  await db.schema
    .createIndex('webhooks_user_url')
    .unique()
    .on('webhooks')
    .columns(['username', 'url'])
    .execute();
  await db.schema
    .createTable('webhook_subscriptions')
    .addColumn('webhook_id', 'varchar(36)', (col) =>
      col.notNull().references('webhooks.id').onDelete('cascade'),
    )
    .addColumn('topic_id', 'varchar(36)', (col) => col.notNull().references('webhook_topics.id'))
    .addPrimaryKeyConstraint('webhook_subscriptions_pk', ['webhook_id', 'topic_id'])
    .execute();

  await db
    .insertInto('webhook_types' as never)
    .values([
      {
        id: '1b0a5c3e-7f52-4d6e-9a1c-5e0f00000001',
        type: 'Slack',
        template: '{"text": "<subject>: <message>"}',
      },
      {
        id: '1b0a5c3e-7f52-4d6e-9a1c-5e0f00000002',
        type: 'Zapier',
        template: '<the notification, as GET /notifications/messages lists it>',
      },
      {
        id: '1b0a5c3e-7f52-4d6e-9a1c-5e0f00000003',
        type: 'Custom',
        template: '<the notification, as GET /notifications/messages lists it>',
      },
    ] as never)
    .execute();
  const topics = [
    'analysis',
    'apps',
    'community',
    'data',
    'permanent id request',
    'team',
    'tool',
    'tool request',
  ];
  await db
    .insertInto('webhook_topics' as never)
    .values(
      topics.map((topic, index) => ({
        id: `2c1b6d4f-8a63-4e7f-ab2d-6f1000000${String(index + 1).padStart(3, '0')}`,
        topic,
      })) as never,
    )
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_subscriptions').execute();
  await db.schema.dropTable('webhooks').execute();
  await db.schema.dropTable('webhook_topics').execute();
  await db.schema.dropTable('webhook_types').execute();
}

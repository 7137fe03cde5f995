import { sql, type Kysely } from 'kysely';

/**
 * Live notifications published once (issue 45): the message for the UI's AMQP exchange
 * (notification-agent/amqp.ts) is written here in the transaction that records the notification,
 * published from here with the broker's confirmation, and removed once confirmed, so that a broker
 * that is away, and a gateway restarted meanwhile, lose nothing. `created_at` orders publication;
 * `attempt_after` (ms since the epoch) is when any publisher may take a row, `holder` the process
 * publishing it until then.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table live_notification_outbox (
    id text primary key,
    routing_key text not null,
    body text not null,
    created_at bigint not null,
    attempt_after bigint not null,
    holder text
  )`.execute(db);
  await sql`create index live_notification_outbox_order on live_notification_outbox (created_at, id)`.execute(
    db,
  );
  await sql`create index live_notification_outbox_due on live_notification_outbox (attempt_after)`.execute(
    db,
  );
  await sql`create index live_notification_outbox_holder on live_notification_outbox (holder)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table live_notification_outbox`.execute(db);
}

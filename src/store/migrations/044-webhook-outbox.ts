import { sql, type Kysely } from 'kysely';

/**
 * Webhook deliveries that survive the gateway (notification-agent/webhook-delivery.ts): one row per
 * notification and subscribed webhook, written in the transaction that records the notification,
 * delivered by whichever process holds it, and removed once the receiver took it (2xx) or the
 * attempts ran out. A gateway stopped or killed before or between attempts loses nothing. `id` is
 * the X-Platform-Delivery header, the same on every attempt, so a receiver can de-duplicate; `body`
 * is the exact text signed and sent; `attempts` counts the failed ones. `attempt_after` (ms since
 * the epoch) is when any process may take the row: the end of a holder's hold, or of the back-off
 * pause after a failure; `holder` the process delivering it until then. Rows go with their webhook
 * (on delete cascade): a webhook the user removed is not tried again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table webhook_outbox (
    id varchar(36) primary key,
    webhook_id varchar(36) not null references webhooks (id) on delete cascade,
    notification_id varchar(36) not null,
    topic varchar(64) not null,
    body text not null,
    attempts integer not null default 0,
    attempt_after bigint not null,
    holder text,
    created_at bigint not null
  )`.execute(db);
  await sql`create index webhook_outbox_due on webhook_outbox (attempt_after)`.execute(db);
  await sql`create index webhook_outbox_holder on webhook_outbox (holder)`.execute(db);
  // The cascade from webhooks looks rows up by webhook.
  await sql`create index webhook_outbox_webhook on webhook_outbox (webhook_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table webhook_outbox`.execute(db);
}

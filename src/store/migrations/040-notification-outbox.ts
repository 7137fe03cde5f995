import { sql, type Kysely } from 'kysely';

/**
 * Notifications sent exactly once (issue 44): a job's status notification is written here in the
 * transaction that records the status change, then sent to the notification agent with its id as
 * the `Idempotency-Key`, and removed once the agent accepted it. `attempt_after` (ms since the
 * epoch) is when any runner may (re)send it; `holder` the runner sending it until then; `attempts`
 * how many sends failed. `analysis_id` keeps an analysis's notifications in their order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table notification_outbox (
    id text primary key,
    analysis_id text not null,
    notification_json text not null,
    created_at bigint not null,
    attempt_after bigint not null,
    holder text,
    attempts integer not null default 0
  )`.execute(db);
  await sql`create index notification_outbox_due on notification_outbox (attempt_after)`.execute(
    db,
  );
  await sql`create index notification_outbox_analysis on notification_outbox (analysis_id, created_at)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table notification_outbox`.execute(db);
}

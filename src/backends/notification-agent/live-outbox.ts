// The outbox of live notifications (migration 043): each message for the UI's AMQP exchange is a
// row written with what it announces, published from here by whichever process holds it, and
// removed once the broker confirmed it. A broker that is away, and a gateway stopped or killed
// meanwhile, lose nothing; only the oldest rows beyond AMQP_QUEUE_LIMIT are given up.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';

/** One message waiting for the broker. */
export interface OutboxMessage {
  /** The AMQP message id (a consumer may de-duplicate on it). */
  id: string;
  routingKey: string;
  /** JSON text. */
  body: string;
}

export interface LiveOutboxOptions {
  db: Kysely<Database>;
  now: () => number;
  /**
   * How long the process that wrote or took a row has to publish it before another may take it
   * over (one killed while holding rows leaves them this long).
   */
  holdMs?: number;
}

/** A gateway's rows are its own to publish for this long (10 s). */
export const defaultHoldMs = 10_000;

export class LiveOutbox {
  /** This process's publisher, as `holder` names it. */
  readonly holder = `${hostname()}:${process.pid}:${randomUUID()}`;
  readonly holdMs: number;
  private readonly db: Kysely<Database>;
  private readonly now: () => number;
  /** Strictly increasing: messages written in one millisecond keep the order they were written in. */
  private lastWritten = 0;

  constructor(options: LiveOutboxOptions) {
    this.db = options.db;
    this.now = options.now;
    this.holdMs = options.holdMs ?? defaultHoldMs;
  }

  /** Writes `messages` (in `db`, the caller's transaction when there is one), held by this process. */
  async add(db: Kysely<Database>, messages: OutboxMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const now = this.now();
    await db
      .insertInto('live_notification_outbox')
      .values(
        messages.map((message) => {
          const at = (this.lastWritten = Math.max(now, this.lastWritten + 1));
          return {
            id: message.id,
            routing_key: message.routingKey,
            body: message.body,
            created_at: at,
            attempt_after: now + this.holdMs,
            holder: this.holder,
          };
        }),
      )
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
  }

  /**
   * Up to `limit` of the oldest rows this process holds or may take (their holder's time is up),
   * now held by it for another `holdMs`, oldest first.
   */
  async claim(limit: number): Promise<OutboxMessage[]> {
    const now = this.now();
    const candidates = await this.selectAll()
      .where((eb) => eb.or([eb('holder', '=', this.holder), eb('attempt_after', '<=', now)]))
      .limit(limit)
      .execute();
    if (candidates.length === 0) return [];
    const ids = candidates.map((row) => row.id);
    // Another process may have taken some since: the condition is checked again as each row is
    // updated (PostgreSQL re-reads a row another transaction changed; SQLite writes one at a time).
    await this.db
      .updateTable('live_notification_outbox')
      .set({ holder: this.holder, attempt_after: now + this.holdMs })
      .where('id', 'in', ids)
      .where((eb) => eb.or([eb('holder', '=', this.holder), eb('attempt_after', '<=', now)]))
      .execute();
    const held = await this.selectAll()
      .where('id', 'in', ids)
      .where('holder', '=', this.holder)
      .execute();
    return held.map((row) => ({ id: row.id, routingKey: row.routing_key, body: row.body }));
  }

  /** Removes what the broker confirmed. */
  async remove(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.deleteFrom('live_notification_outbox').where('id', 'in', ids).execute();
  }

  /** Lets go of this process's rows (it is stopping): the next publisher takes them at once. How many. */
  async release(): Promise<number> {
    const released = await this.db
      .updateTable('live_notification_outbox')
      .set({ holder: null, attempt_after: this.now() })
      .where('holder', '=', this.holder)
      .executeTakeFirst();
    return Number(released.numUpdatedRows);
  }

  /** Removes the oldest rows beyond `keep`; answers how many went. */
  async trim(keep: number): Promise<number> {
    const { count } = await this.db
      .selectFrom('live_notification_outbox')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .executeTakeFirstOrThrow();
    const excess = Number(count) - keep;
    if (excess <= 0) return 0;
    const oldest = this.db
      .selectFrom('live_notification_outbox')
      .select('id')
      .orderBy('created_at')
      .orderBy('id')
      .limit(excess);
    const removed = await this.db
      .deleteFrom('live_notification_outbox')
      .where('id', 'in', oldest)
      .executeTakeFirst();
    return Number(removed.numDeletedRows);
  }

  /** Rows waiting, for tests and the close-time warning. */
  async size(): Promise<number> {
    const { count } = await this.db
      .selectFrom('live_notification_outbox')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(count);
  }

  private selectAll() {
    return this.db
      .selectFrom('live_notification_outbox')
      .select(['id', 'routing_key', 'body'])
      .orderBy('created_at')
      .orderBy('id');
  }
}

// The outbox of webhook deliveries (migration 044): each delivery a recorded notification owes a
// subscribed webhook is a row written with the notification, sent from here by whichever process
// holds it, and removed once the receiver took it or its attempts ran out. As live-outbox.ts does
// for AMQP, a row is held by one process at a time (`holder`, until `attempt_after`); a process
// killed while holding rows leaves them for another once the hold has passed.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';

/** One delivery to send: the row and its webhook as it is now (URL and secret). */
export interface PendingDelivery {
  /** The X-Platform-Delivery header. */
  id: string;
  webhookId: string;
  notificationId: string;
  topic: string;
  body: string;
  /** Failed attempts so far. */
  attempts: number;
  url: string;
  secret: string;
}

/** A delivery as the recording transaction writes it. */
export interface NewDelivery {
  webhookId: string;
  notificationId: string;
  topic: string;
  body: string;
}

export class WebhookOutbox {
  /** This process, as `holder` names it. */
  readonly holder = `${hostname()}:${process.pid}:${randomUUID()}`;
  /** How long a process has to end an attempt before another may take the row over. */
  readonly holdMs: number;
  private readonly db: Kysely<Database>;
  private readonly now: () => number;
  /** Strictly increasing: deliveries written in one millisecond keep the order they were written in. */
  private lastWritten = 0;

  constructor(options: { db: Kysely<Database>; now: () => number; holdMs: number }) {
    this.db = options.db;
    this.now = options.now;
    this.holdMs = options.holdMs;
  }

  /** Writes `deliveries` (in `db`, the recording transaction), held by this process. */
  async add(db: Kysely<Database>, deliveries: NewDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    const now = this.now();
    await db
      .insertInto('webhook_outbox')
      .values(
        deliveries.map((delivery) => ({
          id: randomUUID(),
          webhook_id: delivery.webhookId,
          notification_id: delivery.notificationId,
          topic: delivery.topic,
          body: delivery.body,
          attempts: 0,
          attempt_after: now + this.holdMs,
          holder: this.holder,
          created_at: (this.lastWritten = Math.max(now, this.lastWritten + 1)),
        })),
      )
      .execute();
  }

  /**
   * Up to `limit` of the oldest rows this process holds or may take (due, or their holder's time
   * is up), leaving out `busy` (this process is sending them), now held by it for `holdMs`.
   */
  async claim(limit: number, busy: ReadonlySet<string>): Promise<PendingDelivery[]> {
    const now = this.now();
    const takeable = this.db
      .selectFrom('webhook_outbox')
      .select('id')
      .where((eb) => eb.or([eb('holder', '=', this.holder), eb('attempt_after', '<=', now)]))
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit + busy.size);
    const ids = (await takeable.execute()).map((row) => row.id).filter((id) => !busy.has(id));
    if (ids.length === 0) return [];
    const wanted = ids.slice(0, limit);
    // Another process may have taken some since: the condition is checked again as each row is
    // updated (PostgreSQL re-reads a row another transaction changed; SQLite writes one at a time).
    await this.db
      .updateTable('webhook_outbox')
      .set({ holder: this.holder, attempt_after: now + this.holdMs })
      .where('id', 'in', wanted)
      .where((eb) => eb.or([eb('holder', '=', this.holder), eb('attempt_after', '<=', now)]))
      .execute();
    const held = await this.db
      .selectFrom('webhook_outbox as o')
      .innerJoin('webhooks as w', 'w.id', 'o.webhook_id')
      .select([
        'o.id',
        'o.webhook_id',
        'o.notification_id',
        'o.topic',
        'o.body',
        'o.attempts',
        'w.url',
        'w.secret',
      ])
      .where('o.id', 'in', wanted)
      .where('o.holder', '=', this.holder)
      .orderBy('o.created_at')
      .orderBy('o.id')
      .execute();
    return held.map((row) => ({
      id: row.id,
      webhookId: row.webhook_id,
      notificationId: row.notification_id,
      topic: row.topic,
      body: row.body,
      attempts: Number(row.attempts),
      url: row.url,
      secret: row.secret,
    }));
  }

  /** When the next row not in `busy` may be taken (ms since the epoch), or undefined when none waits. */
  async nextDue(busy: ReadonlySet<string>): Promise<number | undefined> {
    let query = this.db
      .selectFrom('webhook_outbox')
      .select((eb) => eb.fn.min<number | string | null>('attempt_after').as('next'));
    if (busy.size > 0) query = query.where('id', 'not in', [...busy]);
    const { next } = await query.executeTakeFirstOrThrow();
    return next === null ? undefined : Number(next);
  }

  /** The receiver took it, or its attempts ran out. */
  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('webhook_outbox').where('id', '=', id).execute();
  }

  /** Counts a failed attempt and lets go of the row until `retryAt`, when any process may try it. */
  async failed(id: string, attempts: number, retryAt: number): Promise<void> {
    await this.db
      .updateTable('webhook_outbox')
      .set({ attempts, attempt_after: retryAt, holder: null })
      .where('id', '=', id)
      // Held too long (another process took it over): that one's attempt counts, not this one's.
      .where('holder', '=', this.holder)
      .execute();
  }

  /** Lets go of this process's rows (it is stopping): the next process takes them at once. How many. */
  async release(): Promise<number> {
    const released = await this.db
      .updateTable('webhook_outbox')
      .set({ holder: null, attempt_after: this.now() })
      .where('holder', '=', this.holder)
      .executeTakeFirst();
    return Number(released.numUpdatedRows);
  }

  /** Rows waiting, for tests and the close-time note. */
  async size(): Promise<number> {
    const { count } = await this.db
      .selectFrom('webhook_outbox')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(count);
  }
}

// Webhook deliveries (docs/api/webhooks.md) through the outbox of webhook-outbox.ts: the
// transaction that records a notification writes one row per subscribed webhook, and this sends
// them once committed, in the background, with a timeout and bounded retries. A row leaves the
// outbox when the receiver answers 2xx or its attempts run out, so a gateway stopped or killed
// before the first attempt or between two loses nothing: it, or another gateway on the database,
// sends what waits when it finds it. Delivery is at least once (an attempt cut by a stop is sent
// again); the X-Platform-Delivery id, the same on every attempt, lets a receiver de-duplicate.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { outboundPost } from '../../common/outbound-fetch.ts';
import { notificationJson, storedType, type NotificationRow } from './model.ts';
import { bodyFor, signature, signatureHeader, type WebhookSettings } from './webhooks.ts';
import { WebhookOutbox, type PendingDelivery } from './webhook-outbox.ts';
import { OutboxWake } from './outbox-wake.ts';

type Log = Pick<FastifyBaseLogger, 'warn' | 'debug'>;

export interface DispatcherOptions {
  /**
   * The clock of holds and pauses (default Date.now): real time between attempts, not the host's
   * clock that tests move to open and close system-message windows.
   */
  now?: () => number;
  /** How long an attempt may take before another process may take its row over (default: the timeout and 10 s). */
  holdMs?: number;
  /** Longest wait between looks for rows another process left or whose pause ended (default 1 s). */
  pollMs?: number;
}

/** Attempts under way at once, per process. */
const maxInFlight = 32;
/** Shortest wait between looks, so that a row due but taken by another process costs no busy loop. */
const minPauseMs = 10;

/**
 * Sends the outbox's deliveries. `record` writes a notification's deliveries in its transaction,
 * `written` says they are committed; `close` stops waiting and cuts attempts under way, leaving
 * every unsent row for the next process.
 */
export class WebhookDispatcher {
  readonly outbox: WebhookOutbox;
  private readonly stop = new AbortController();
  private readonly wakes = new OutboxWake(this.stop.signal);
  /** Rows this process is sending (their ids), each with its attempt. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Warned that the outbox could not be read, in this outage. */
  private unreadable = false;
  private readonly running: Promise<void>;

  private readonly settings: WebhookSettings;
  private readonly log: Log;
  private readonly now: () => number;
  private readonly pollMs: number;

  constructor(
    db: Kysely<Database>,
    settings: WebhookSettings,
    log: Log,
    options: DispatcherOptions = {},
  ) {
    this.settings = settings;
    this.log = log;
    this.now = options.now ?? Date.now;
    this.pollMs = options.pollMs ?? 1_000;
    this.outbox = new WebhookOutbox({
      db,
      now: this.now,
      holdMs: options.holdMs ?? settings.timeoutMs + 10_000,
    });
    // Rows left by a process stopped or killed earlier go out from the start.
    this.running = this.deliverLoop();
  }

  /**
   * Writes, in `trx` (the transaction recording `row`), one delivery per webhook of the user
   * subscribed to the notification's type; `written` once committed.
   */
  async record(trx: Kysely<Database>, row: NotificationRow): Promise<void> {
    const hooks = await trx
      .selectFrom('webhooks as w')
      .innerJoin('webhook_types as t', 't.id', 'w.type_id')
      .innerJoin('webhook_subscriptions as s', 's.webhook_id', 'w.id')
      .innerJoin('webhook_topics as p', 'p.id', 's.topic_id')
      .select(['w.id', 't.type', 'p.topic'])
      .where('w.username', '=', row.username)
      .orderBy('w.created_on')
      .orderBy('w.id')
      .execute();
    const subscribed = hooks.filter((hook) => storedType(hook.topic) === row.type);
    if (subscribed.length === 0) return;
    const notification = notificationJson(row);
    await this.outbox.add(
      trx,
      subscribed.map((hook) => ({
        webhookId: hook.id,
        notificationId: row.id,
        topic: hook.topic,
        body: bodyFor(hook.type, notification).toString('utf8'),
      })),
    );
  }

  /** Deliveries were committed: send them now. Never throws, never waits. */
  written(): void {
    if (!this.stop.signal.aborted) this.wakes.wakeUp();
  }

  /**
   * Stops looking and cuts attempts under way (they are not counted), then lets go of this
   * process's rows so that the next process on the database sends them at once.
   */
  async close(): Promise<void> {
    this.stop.abort();
    this.wakes.wakeUp();
    await this.running;
    await Promise.allSettled([...this.inFlight.values()]);
    try {
      const left = await this.outbox.release();
      if (left > 0)
        this.log.debug(
          { unsent: left },
          'webhook deliveries left in the outbox for the next start',
        );
    } catch (error) {
      this.log.warn({ err: error }, 'could not let go of the webhook outbox');
    }
  }

  private async deliverLoop(): Promise<void> {
    while (!this.stop.signal.aborted) {
      this.wakes.looking();
      let wait = this.pollMs;
      try {
        const busy = new Set(this.inFlight.keys());
        const free = maxInFlight - busy.size;
        const claimed = free > 0 ? await this.outbox.claim(free, busy) : [];
        if (this.stop.signal.aborted) break;
        for (const delivery of claimed) this.start(delivery);
        if (free > 0 && claimed.length < free) {
          // Everything due is under way: wait for the next row's time, a write, or an attempt's end.
          const next = await this.outbox.nextDue(new Set(this.inFlight.keys()));
          if (next !== undefined)
            wait = Math.min(this.pollMs, Math.max(minPauseMs, next - this.now()));
        }
        this.unreadable = false;
      } catch (error) {
        // The database is away: look again on the next poll (one warning per outage).
        if (!this.unreadable && !this.stop.signal.aborted)
          this.log.warn({ err: error }, 'could not read the webhook outbox');
        this.unreadable = true;
      }
      await this.wakes.wait(wait);
    }
  }

  private start(delivery: PendingDelivery): void {
    const attempt = this.attempt(delivery)
      .catch((error: unknown) =>
        // Its row stays held until the hold passes, then is tried again.
        this.log.warn({ err: error, delivery: delivery.id }, 'could not record a webhook attempt'),
      )
      .finally(() => {
        this.inFlight.delete(delivery.id);
        this.wakes.wakeUp();
      });
    this.inFlight.set(delivery.id, attempt);
  }

  /** One attempt at `delivery`; its outcome written to the outbox. */
  private async attempt(delivery: PendingDelivery): Promise<void> {
    const { attempts, timeoutMs, retryDelayMs, allowPrivateNetworks } = this.settings;
    const body = Buffer.from(delivery.body, 'utf8');
    let reason: string;
    try {
      const { statusCode } = await outboundPost(new URL(delivery.url), body, {
        // Checked at every attempt, on the address the connection reaches.
        allowPrivateNetworks,
        connectTimeoutMs: timeoutMs,
        headersTimeoutMs: timeoutMs,
        bodyTimeoutMs: timeoutMs,
        headers: {
          [signatureHeader]: signature(delivery.secret, body),
          'X-Platform-Delivery': delivery.id,
          'X-Platform-Topic': delivery.topic,
        },
        signal: AbortSignal.any([this.stop.signal, AbortSignal.timeout(timeoutMs)]),
      });
      if (statusCode >= 200 && statusCode < 300) return await this.outbox.remove(delivery.id);
      reason = `answered ${statusCode}`;
    } catch (error) {
      reason = (error as Error).message;
    }
    // Cut by close: not the receiver's failure; the next process tries it again.
    if (this.stop.signal.aborted) return;
    const made = delivery.attempts + 1;
    if (made >= attempts) {
      await this.outbox.remove(delivery.id);
      this.log.warn(
        { webhook: delivery.webhookId, notification: delivery.notificationId, attempts, reason },
        'a webhook delivery failed',
      );
      return;
    }
    await this.outbox.failed(delivery.id, made, this.now() + retryDelayMs * 2 ** (made - 1));
  }
}

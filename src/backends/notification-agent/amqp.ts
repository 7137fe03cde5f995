// Live notifications over AMQP (clients.md §7): the web UI's server binds a queue per open tab to a
// topic exchange with `notification.<username>` and forwards each body to the browser. Publishing
// happens after the notification is committed, in the background: a broker that is down, slow or
// refusing delays nothing, fails nothing, and loses nothing from the database. While it is away,
// messages wait in a bounded local queue (the oldest dropped first) and go out once reconnected.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChannelModel, ConfirmChannel } from 'amqplib';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { notificationJson, shortUsername, type NotificationRow } from './model.ts';
import { unseenCount } from './queries.ts';
import { currentContext, inContext } from '../../common/tracing.ts';

export interface AmqpSettings {
  /** The broker (AMQP_URI). */
  uri: string;
  /** The topic exchange the UI binds to (AMQP_EXCHANGE). */
  exchange: string;
  /** Longest pause between reconnection attempts; pauses start short and double (AMQP_RECONNECT_MAX_MS). */
  reconnectMaxMs: number;
  /** Messages kept while the broker is away (AMQP_QUEUE_LIMIT); beyond it the oldest is dropped. */
  queueLimit: number;
}

interface Outgoing {
  routingKey: string;
  body: Buffer;
  /** The trace context it was queued in (src/common/tracing.ts; undefined with tracing off). */
  context: unknown;
}

type Log = Pick<FastifyBaseLogger, 'warn' | 'info'>;

const firstRetryMs = 100;
/** Messages published before waiting for the broker's confirmations. */
const batchSize = 100;

/** The body the UI's websocket reads: the user's unseen count and the notification as listed. */
export function liveMessage(row: NotificationRow, total: number): Record<string, unknown> {
  return { total, message: notificationJson(row) };
}

/**
 * One connection with a confirm channel, kept up with back-off. `publish` only queues; a message
 * leaves the queue once the broker confirmed it, so a cut connection resends what was unconfirmed.
 */
export class AmqpPublisher {
  private readonly pending: Outgoing[] = [];
  private readonly stop = new AbortController();
  private wake: (() => void) | undefined;
  private connection: ChannelModel | undefined;
  private dropping = false;
  private readonly running: Promise<void>;

  private readonly settings: AmqpSettings;
  private readonly log: Log;

  constructor(settings: AmqpSettings, log: Log) {
    this.settings = settings;
    this.log = log;
    this.running = this.keepConnected();
  }

  /** Queues one message; never throws, never waits. */
  publish(routingKey: string, message: unknown): void {
    if (this.stop.signal.aborted) return;
    if (this.pending.length >= this.settings.queueLimit) {
      this.pending.shift();
      // One warning per outage, not one per message.
      if (!this.dropping)
        this.log.warn(
          { limit: this.settings.queueLimit },
          'AMQP queue full: dropping the oldest live notifications (they stay in the database)',
        );
      this.dropping = true;
    }
    this.pending.push({
      routingKey,
      body: Buffer.from(JSON.stringify(message)),
      // Published later from the queue: its span joins the trace of what recorded it.
      context: currentContext(),
    });
    this.wakeUp();
  }

  /** Messages not yet confirmed by the broker. */
  queued(): number {
    return this.pending.length;
  }

  /** Stops reconnecting and closes the connection; unconfirmed messages are given up (logged). */
  async close(): Promise<void> {
    this.stop.abort();
    this.wakeUp();
    await this.connection?.close().catch(() => {});
    await this.running;
    if (this.pending.length > 0)
      this.log.warn(
        { unsent: this.pending.length },
        'AMQP publisher closed with live notifications unsent',
      );
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private async keepConnected(): Promise<void> {
    let pause = firstRetryMs;
    while (!this.stop.signal.aborted) {
      try {
        await this.session(() => (pause = firstRetryMs));
      } catch (error) {
        if (this.stop.signal.aborted) break;
        this.log.warn(
          { err: error, retryInMs: pause },
          'AMQP connection lost or refused; reconnecting',
        );
      }
      try {
        await sleep(pause, undefined, { signal: this.stop.signal });
      } catch {
        break;
      }
      pause = Math.min(pause * 2, this.settings.reconnectMaxMs);
    }
  }

  /** One connection's life: resolves when closed on purpose, rejects when the broker is lost. */
  private async session(connected: () => void): Promise<void> {
    // Loaded on the first connection: a gateway without AMQP_URI never loads amqplib.
    const { connect } = await import('amqplib');
    const connection = await connect(this.settings.uri, { timeout: 10_000 });
    this.connection = connection;
    // Every error and close becomes this rejection, so a broker failure never goes unhandled.
    let lose: (error: Error) => void = () => {};
    const lost = new Promise<never>((_, reject) => (lose = reject));
    lost.catch(() => {});
    connection.on('error', (error: Error) => lose(error));
    connection.on('close', () => lose(new Error('AMQP connection closed')));
    try {
      if (this.stop.signal.aborted) return;
      const channel = await Promise.race([connection.createConfirmChannel(), lost]);
      channel.on('error', (error: Error) => lose(error));
      channel.on('close', () => lose(new Error('AMQP channel closed')));
      await Promise.race([
        channel.assertExchange(this.settings.exchange, 'topic', { durable: true }),
        lost,
      ]);
      connected();
      this.log.info({ exchange: this.settings.exchange }, 'AMQP publisher connected');
      while (!this.stop.signal.aborted) {
        if (this.pending.length === 0) {
          await Promise.race([new Promise<void>((resolve) => (this.wake = resolve)), lost]);
          continue;
        }
        await this.sendBatch(channel, lost);
      }
    } finally {
      this.connection = undefined;
      await connection.close().catch(() => {});
    }
  }

  /** Publishes the head of the queue and removes what the broker confirmed. */
  private async sendBatch(channel: ConfirmChannel, lost: Promise<never>): Promise<void> {
    const batch = this.pending.slice(0, batchSize);
    for (const message of batch)
      inContext(message.context, () =>
        channel.publish(this.settings.exchange, message.routingKey, message.body, {
          contentType: 'application/json',
          persistent: true,
        }),
      );
    await Promise.race([channel.waitForConfirms(), lost]);
    // Drops while waiting only ever took from the head, so what is left of the batch is still first.
    const sent = new Set(batch);
    let confirmed = 0;
    while (confirmed < this.pending.length && sent.has(this.pending[confirmed]!)) confirmed++;
    this.pending.splice(0, confirmed);
    if (this.pending.length === 0) this.dropping = false;
  }
}

/** Publishes each recorded notification as `notification.<username>` with the user's unseen count. */
export class LiveNotifications {
  private readonly db: Kysely<Database>;
  private readonly publisher: AmqpPublisher;
  private readonly log: Pick<FastifyBaseLogger, 'warn'>;

  constructor(
    db: Kysely<Database>,
    publisher: AmqpPublisher,
    log: Pick<FastifyBaseLogger, 'warn'>,
  ) {
    this.db = db;
    this.publisher = publisher;
    this.log = log;
  }

  /**
   * Starts publishing a just-committed system message to every user the platform knows (the UI
   * binds only `notification.<username>`, so a message for everyone is one per user); never
   * throws, never waits. A user first seen after this learns of it from `/system/new-messages`.
   */
  announceSystemMessage(
    systemMessage: { uuid: string; type: string; message: string; date_created: number },
    action: SystemMessageAction,
  ): void {
    this.fanOut(systemMessage, action).catch((error: unknown) =>
      this.log.warn(
        { err: error, systemMessage: systemMessage.uuid },
        'could not publish a live system message',
      ),
    );
  }

  private async fanOut(
    systemMessage: { uuid: string; type: string; message: string; date_created: number },
    action: SystemMessageAction,
  ): Promise<void> {
    for (let after = ''; ;) {
      const users = await this.db
        .selectFrom('users')
        .select('username')
        .where('username', '>', after)
        .orderBy('username')
        .limit(fanOutPage)
        .execute();
      if (users.length === 0) return;
      after = users.at(-1)!.username;
      const names = [...new Set(users.map((row) => shortUsername(row.username)))];
      const counts = await this.db
        .selectFrom('notifications')
        .select(['username', (eb) => eb.fn.countAll<number>().as('count')])
        .where('username', 'in', names)
        .where('seen', '=', false)
        .where('deleted', '=', false)
        .groupBy('username')
        .execute();
      const unseen = new Map(counts.map((row) => [row.username, Number(row.count)]));
      for (const name of names)
        this.publisher.publish(
          `notification.${name}`,
          liveSystemMessage(systemMessage, action, name, unseen.get(name) ?? 0),
        );
    }
  }

  /** Starts publishing a just-committed notification; never throws, never waits. */
  announce(row: NotificationRow): void {
    unseenCount(this.db, row.username)
      .then((total) =>
        this.publisher.publish(`notification.${row.username}`, liveMessage(row, total)),
      )
      .catch((error: unknown) =>
        this.log.warn(
          { err: error, notification: row.id },
          'could not publish a live notification',
        ),
      );
  }
}

/** What an administrator did to a system message, as its live message says (`payload.action`). */
export type SystemMessageAction = 'created' | 'updated' | 'deleted';

/**
 * The body a system message is published with: the notification shape the UI's websocket already
 * reads (clients.md §7), type `system message`, its text as the message text, its id as the
 * message id, and the system message itself (backends.md §4.5) with the action in the payload.
 */
export function liveSystemMessage(
  systemMessage: { uuid: string; type: string; message: string; date_created: number },
  action: SystemMessageAction,
  user: string,
  total: number,
): Record<string, unknown> {
  return {
    total,
    message: {
      type: 'system message',
      user,
      subject: systemMessage.type,
      seen: false,
      deleted: false,
      email: false,
      email_template: null,
      message: {
        id: systemMessage.uuid,
        text: systemMessage.message,
        timestamp: String(systemMessage.date_created),
      },
      payload: { action, 'system-notification': systemMessage },
    },
  };
}

/** Users per round of a system message's fan-out: one count query and one batch of publishes each. */
const fanOutPage = 500;

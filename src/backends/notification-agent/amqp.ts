// Live notifications over AMQP (clients.md §7): the web UI's server binds a queue per open tab to a
// topic exchange with `notification.<username>` and forwards each body to the browser. Each message
// is written to the outbox (live-outbox.ts) in the transaction that records its notification, and
// published from there once committed, in the background: a broker that is down, slow or refusing
// delays nothing and fails nothing. A message leaves the outbox once the broker confirmed it, so one
// recorded while the broker is away, or while the gateway restarts, goes out when both are back.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChannelModel, ConfirmChannel } from 'amqplib';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { notificationJson, shortUsername, type NotificationRow } from './model.ts';
import { unseenCount } from './queries.ts';
import { currentContext, inContext } from '../../common/tracing.ts';
import type { LiveOutbox, OutboxMessage } from './live-outbox.ts';
import { OutboxWake } from './outbox-wake.ts';

export interface AmqpSettings {
  /** The broker (AMQP_URI). */
  uri: string;
  /** The topic exchange the UI binds to (AMQP_EXCHANGE). */
  exchange: string;
  /** Longest pause between reconnection attempts; pauses start short and double (AMQP_RECONNECT_MAX_MS). */
  reconnectMaxMs: number;
  /** Messages kept while the broker is away (AMQP_QUEUE_LIMIT); beyond it the oldest are dropped. */
  queueLimit: number;
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
 * One connection with a confirm channel, kept up with back-off, publishing the outbox: what this
 * process wrote at once (`written`), what another process left (its hold passed) on its next look.
 * A row is removed once the broker confirmed it, so a cut connection publishes again what was not
 * confirmed (a consumer may, rarely, see a message twice: its AMQP message id says which).
 */
export class AmqpPublisher {
  private readonly stop = new AbortController();
  private readonly wakes = new OutboxWake(this.stop.signal);
  private connection: ChannelModel | undefined;
  /** Warned of dropped messages in this outage. */
  private dropping = false;
  /** Confirmed by the broker, but their removal failed (the database away): removed, not sent, next. */
  private readonly confirmed = new Set<string>();
  /** The trace contexts of rows this process wrote: each is published in the trace that wrote it. */
  private readonly contexts = new Map<string, unknown>();
  private readonly running: Promise<void>;

  private readonly settings: AmqpSettings;
  private readonly outbox: LiveOutbox;
  private readonly log: Log;

  constructor(settings: AmqpSettings, outbox: LiveOutbox, log: Log) {
    this.settings = settings;
    this.outbox = outbox;
    this.log = log;
    this.running = this.keepConnected();
  }

  /** Rows with these ids were committed to the outbox: publish them now. Never throws, never waits. */
  written(ids: string[]): void {
    if (this.stop.signal.aborted) return;
    const context = currentContext();
    if (context !== undefined)
      for (const id of ids) {
        this.contexts.set(id, context);
        // Bounded as the outbox is: the oldest first (a Map keeps insertion order).
        if (this.contexts.size > this.settings.queueLimit)
          this.contexts.delete(this.contexts.keys().next().value!);
      }
    this.wakes.wakeUp();
  }

  /**
   * Stops reconnecting and closes the connection. The rows this process held are let go, so that
   * the next publisher on the database (this gateway started again, another one) sends them at once.
   */
  async close(): Promise<void> {
    this.stop.abort();
    this.wakes.wakeUp();
    await this.connection?.close().catch(() => {});
    await this.running;
    try {
      const left = await this.outbox.release();
      if (left > 0)
        this.log.warn(
          { unsent: left },
          'AMQP publisher closed with live notifications unsent; they wait in the outbox for the next publisher',
        );
    } catch (error) {
      this.log.warn({ err: error }, 'could not let go of the live notification outbox');
    }
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
      if (this.stop.signal.aborted) break;
      await this.trim();
      try {
        await sleep(pause, undefined, { signal: this.stop.signal });
      } catch {
        break;
      }
      pause = Math.min(pause * 2, this.settings.reconnectMaxMs);
    }
  }

  /** While the broker is away the outbox keeps the newest AMQP_QUEUE_LIMIT messages. */
  private async trim(): Promise<void> {
    try {
      const dropped = await this.outbox.trim(this.settings.queueLimit);
      // One warning per outage, not one per message.
      if (dropped > 0 && !this.dropping)
        this.log.warn(
          { limit: this.settings.queueLimit, dropped },
          'AMQP outbox full: dropping the oldest live notifications (they stay in the database)',
        );
      if (dropped > 0) this.dropping = true;
    } catch {
      // The database is away as well: nothing is written meanwhile, nothing to trim.
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
      this.dropping = false;
      this.log.info({ exchange: this.settings.exchange }, 'AMQP publisher connected');
      let storePause = firstRetryMs;
      while (!this.stop.signal.aborted) {
        this.wakes.looking();
        const claimed = await Promise.race([
          this.outbox.claim(batchSize).then(
            (rows) => ({ rows }),
            (error: unknown) => ({ error }),
          ),
          lost,
        ]);
        if ('error' in claimed) {
          // The database is away: the broker connection stays; look again after a pause (one
          // warning per outage).
          if (storePause === firstRetryMs)
            this.log.warn({ err: claimed.error }, 'could not read the live notification outbox');
          await Promise.race([this.wakes.wait(storePause), lost]);
          storePause = Math.min(storePause * 2, this.settings.reconnectMaxMs);
          continue;
        }
        storePause = firstRetryMs;
        const rows = await this.settle(claimed.rows);
        if (rows.length === 0) {
          // Nothing due: wait for rows to be written, or look for ones another process left.
          const wait = claimed.rows.length === 0 ? this.outbox.holdMs : firstRetryMs;
          await Promise.race([this.wakes.wait(wait), lost]);
          continue;
        }
        await this.sendBatch(channel, rows, lost);
      }
    } finally {
      this.connection = undefined;
      await connection.close().catch(() => {});
    }
  }

  /** Removes the rows already confirmed (their removal failed before); answers the others. */
  private async settle(rows: OutboxMessage[]): Promise<OutboxMessage[]> {
    const done = rows.filter((row) => this.confirmed.has(row.id)).map((row) => row.id);
    if (done.length > 0) await this.removeConfirmed(done);
    return rows.filter((row) => !this.confirmed.has(row.id) && !done.includes(row.id));
  }

  /** Publishes `rows`, waits for the broker's confirmations, and removes them from the outbox. */
  private async sendBatch(
    channel: ConfirmChannel,
    rows: OutboxMessage[],
    lost: Promise<never>,
  ): Promise<void> {
    for (const row of rows)
      inContext(this.contexts.get(row.id), () =>
        channel.publish(this.settings.exchange, row.routingKey, Buffer.from(row.body), {
          contentType: 'application/json',
          persistent: true,
          messageId: row.id,
        }),
      );
    await Promise.race([channel.waitForConfirms(), lost]);
    const ids = rows.map((row) => row.id);
    for (const id of ids) this.contexts.delete(id);
    await this.removeConfirmed(ids);
  }

  private async removeConfirmed(ids: string[]): Promise<void> {
    try {
      await this.outbox.remove(ids);
      for (const id of ids) this.confirmed.delete(id);
    } catch (error) {
      // Not sent again: removed on a later look, once the database answers.
      for (const id of ids) this.confirmed.add(id);
      this.log.warn(
        { err: error },
        'could not remove confirmed live notifications from the outbox',
      );
    }
  }
}

/** Writes each recorded notification's live message, `notification.<username>` with the user's unseen count. */
export class LiveNotifications {
  private readonly db: Kysely<Database>;
  private readonly outbox: LiveOutbox;
  private readonly publisher: AmqpPublisher;
  private readonly log: Pick<FastifyBaseLogger, 'warn'>;

  constructor(
    db: Kysely<Database>,
    outbox: LiveOutbox,
    publisher: AmqpPublisher,
    log: Pick<FastifyBaseLogger, 'warn'>,
  ) {
    this.db = db;
    this.outbox = outbox;
    this.publisher = publisher;
    this.log = log;
  }

  /**
   * Writes `row`'s live message in `trx`, the transaction recording it (after the insert, so the
   * count includes it); `announce` it once committed.
   */
  async record(trx: Kysely<Database>, row: NotificationRow): Promise<void> {
    const total = await unseenCount(trx, row.username);
    await this.outbox.add(trx, [
      {
        id: row.id,
        routingKey: `notification.${row.username}`,
        body: JSON.stringify(liveMessage(row, total)),
      },
    ]);
  }

  /** Publishes a recorded notification's live message now that it is committed; never throws, never waits. */
  announce(row: NotificationRow): void {
    this.publisher.written([row.id]);
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

  /** Writes the messages to the outbox a page of users at a time, each page published once written. */
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
      const messages = names.map((name) => ({
        id: randomUUID(),
        routingKey: `notification.${name}`,
        body: JSON.stringify(liveSystemMessage(systemMessage, action, name, unseen.get(name) ?? 0)),
      }));
      await this.outbox.add(this.db, messages);
      this.publisher.written(messages.map((message) => message.id));
    }
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

import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import type pg from 'pg';
import { inClusterWorker, isClusterMessage, sendToPrimary } from '../common/cluster-ipc.ts';
import type { Store } from './database.ts';

/**
 * A broadcast of small text messages to every process on the same store: in-process on SQLite
 * (one gateway owns the file; its WORKERS>1 workers hear each other through the primary, which
 * relays), PostgreSQL NOTIFY/LISTEN otherwise, so gateways sharing a database hear each other. Messages say that something changed; readers fetch the rest from
 * the store (NOTIFY payloads stop at 8000 bytes).
 */
export interface StoreChannel {
  publish(message: string): Promise<void>;
  /** Calls `listener` with every message published once this resolves; answers the unsubscribe function. */
  subscribe(listener: (message: string) => void): Promise<() => void>;
  close(): Promise<void>;
}

class LocalChannel implements StoreChannel {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish(message: string): Promise<void> {
    this.emitter.emit('message', message);
  }

  async subscribe(listener: (message: string) => void): Promise<() => void> {
    this.emitter.on('message', listener);
    return () => this.emitter.off('message', listener);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

/**
 * SQLite in a worker of a WORKERS>1 gateway: published here at once, and sent to the primary,
 * which passes it to every other worker (src/cluster.ts), where channels of the same name hear it.
 */
class ClusterChannel implements StoreChannel {
  private readonly local = new LocalChannel();
  private readonly onMessage = (message: unknown) => {
    if (isClusterMessage(message) && message.gateway === 'publish' && message.channel === this.name)
      void this.local.publish(message.message);
  };

  private readonly name: string;

  constructor(name: string) {
    this.name = name;
    process.on('message', this.onMessage);
  }

  async publish(message: string): Promise<void> {
    await this.local.publish(message);
    sendToPrimary({ gateway: 'publish', channel: this.name, message });
  }

  subscribe(listener: (message: string) => void): Promise<() => void> {
    return this.local.subscribe(listener);
  }

  async close(): Promise<void> {
    process.off('message', this.onMessage);
    await this.local.close();
  }
}

/** Reconnects a lost LISTEN connection after this long; messages sent meanwhile are missed. */
const reconnectDelayMs = 1_000;

class PostgresChannel implements StoreChannel {
  private readonly local = new LocalChannel();
  private connection: Promise<pg.Client> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private channelName: Promise<string> | undefined;

  private readonly store: Store;
  private readonly name: string;
  private readonly onError: (error: unknown) => void;
  constructor(store: Store, name: string, onError: (error: unknown) => void) {
    this.store = store;
    this.name = name;
    this.onError = onError;
  }

  async publish(message: string): Promise<void> {
    await sql`select pg_notify(${await this.channel()}, ${message})`.execute(this.store.db);
  }

  // Channels are database-wide; a schema of its own (tests, tenants) gets a channel of its own.
  private channel(): Promise<string> {
    if (!this.channelName) {
      const name = sql<{ schema: string }>`select current_schema() as schema`
        .execute(this.store.db)
        .then((result) => `${this.name}:${result.rows[0]?.schema ?? 'public'}`.slice(0, 63));
      // Asked during an outage, the name is asked again next time rather than failing for good.
      name.catch(() => {
        if (this.channelName === name) this.channelName = undefined;
      });
      this.channelName = name;
    }
    return this.channelName;
  }

  async subscribe(listener: (message: string) => void): Promise<() => void> {
    await this.listening();
    return this.local.subscribe(listener);
  }

  /** One LISTEN connection per channel, opened on the first subscription and reopened when lost. */
  private listening(): Promise<pg.Client> {
    this.connection ??= this.listen().catch((error: unknown) => {
      this.connection = undefined;
      throw error;
    });
    return this.connection;
  }

  private async listen(): Promise<pg.Client> {
    // Loaded here: only a gateway on PostgreSQL listens, and one on SQLite never loads pg.
    const { default: postgres } = await import('pg');
    const client = new postgres.Client(this.store.clientConfig);
    // Heard from the start: a connection lost while LISTEN is being set up fails that step, and
    // its 'error' event, unheard, would end the process.
    let established = false;
    let lost = false;
    const reconnect = (error?: unknown) => {
      if (!established || lost) return;
      lost = true;
      void client.end().catch(() => {});
      if (error) this.onError(error);
      this.connection = undefined;
      this.reconnectLater();
    };
    client.on('error', reconnect);
    client.on('end', () => reconnect());
    try {
      await client.connect();
      await client.query(`listen "${(await this.channel()).replace(/"/g, '""')}"`);
    } catch (error) {
      // Not awaited: ending a connection whose peer went silent waits for an answer that never comes.
      void client.end().catch(() => {});
      throw error;
    }
    established = true;
    client.on('notification', (message) => void this.local.publish(message.payload ?? ''));
    return client;
  }

  /** Messages sent while reconnecting are missed; readers catch up from the store. */
  private reconnectLater(): void {
    if (this.closed) return;
    this.retry = setTimeout(() => {
      this.listening().catch((error: unknown) => {
        this.onError(error);
        this.reconnectLater();
      });
    }, reconnectDelayMs);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = await this.connection?.catch(() => undefined);
    this.connection = undefined;
    client?.removeAllListeners();
    await client?.end().catch(() => {});
    await this.local.close();
  }
}

/** The channel `name` of a store (see StoreChannel). */
export function openChannel(
  store: Store,
  name: string,
  onError: (error: unknown) => void,
): StoreChannel {
  return store.engine === 'postgres' && store.clientConfig
    ? new PostgresChannel(store, name, onError)
    : inClusterWorker()
      ? new ClusterChannel(name)
      : new LocalChannel();
}

// A real AMQP consumer for tests: its own exclusive queue on a topic exchange, as the web UI's
// server binds one per open tab (clients.md §7), with bounded waits on arriving messages.
import { connect, type ChannelModel } from 'amqplib';

/** The local RabbitMQ every test environment runs (CI too). */
export const rabbitUri = process.env.AMQP_TEST_URI ?? 'amqp://guest:guest@127.0.0.1:5672';

export interface AmqpConsumer {
  /** Bodies received so far on the queue bound with `pattern`, parsed, in arrival order. */
  received(pattern: string): unknown[];
  /** The AMQP message ids of those bodies, in the same order. */
  messageIds(pattern: string): (string | undefined)[];
  /** Resolves with the first body on `pattern`'s queue that `match` accepts; rejects after `timeoutMs`. */
  waitFor(pattern: string, match: (body: any) => boolean, timeoutMs?: number): Promise<any>;
  /** Closes the connection (its queues go) and deletes the exchange, unless others still use it. */
  close(options?: { keepExchange?: boolean }): Promise<void>;
}

/** Declares `exchange` (topic, durable, as the gateway does) and binds one exclusive queue per pattern. */
export async function startAmqpConsumer(
  exchange: string,
  patterns: string[],
): Promise<AmqpConsumer> {
  const connection: ChannelModel = await connect(rabbitUri);
  const channel = await connection.createChannel();
  await channel.assertExchange(exchange, 'topic', { durable: true });
  const bodies = new Map<string, unknown[]>();
  const ids = new Map<string, (string | undefined)[]>();
  const waiters = new Set<() => void>();
  for (const pattern of patterns) {
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
    await channel.bindQueue(queue, exchange, pattern);
    bodies.set(pattern, []);
    ids.set(pattern, []);
    await channel.consume(
      queue,
      (message) => {
        if (!message) return;
        bodies.get(pattern)!.push(JSON.parse(message.content.toString('utf8')));
        ids.get(pattern)!.push(message.properties.messageId as string | undefined);
        for (const waiter of [...waiters]) waiter();
      },
      { noAck: true },
    );
  }
  const received = (pattern: string) => bodies.get(pattern) ?? [];
  return {
    received,
    messageIds: (pattern) => ids.get(pattern) ?? [],
    waitFor: (pattern, match, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = received(pattern).find(match);
          if (found === undefined) return false;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching message on ${pattern} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: async ({ keepExchange = false } = {}) => {
      if (!keepExchange) await channel.deleteExchange(exchange).catch(() => {});
      await connection.close().catch(() => {});
    },
  };
}

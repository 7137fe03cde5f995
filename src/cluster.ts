import cluster, { type Worker } from 'node:cluster';
import { pino } from 'pino';
import { isClusterMessage, type ClusterMessage } from './common/cluster-ipc.ts';
import type { GatewayConfig } from './config/index.ts';
import { MemoryBuckets } from './http/rate-limit.ts';
import { loggerSettings } from './http/request-log.ts';
import { openStore } from './store/database.ts';

/**
 * WORKERS>1: this process is the primary of a node:cluster. It serves no request itself:
 *
 * - it migrates the database once (opening the store migrates), before any worker starts;
 * - it starts worker 1 and, once that one listens (its keys and files made), the others; each
 *   worker is a whole gateway (src/main.ts) with its own embedded backends on its own private
 *   socket, all on the one public port (the cluster hands connections round-robin);
 * - it keeps the rate-limit buckets when Redis is absent (workers ask it: PrimaryBuckets) and
 *   relays SQLite's StoreChannel messages between workers (ClusterChannel);
 * - a worker that dies is started again after a back-off that doubles while deaths come soon
 *   after starts (250 ms up to 30 s);
 * - SIGTERM or SIGINT stops the workers (each drains as a single gateway would) and then exits.
 */

/** A worker that lived this long is healthy: its successor starts without waiting. */
const HEALTHY_AFTER_MS = 10_000;
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 30_000;
/** Beyond the workers' own shutdown (grace + their backstop), how long before they are killed. */
const STOP_BACKSTOP_MS = 8_000;

interface Slot {
  worker?: Worker;
  startedAt: number;
  failures: number;
  restart?: NodeJS.Timeout;
}

export async function runPrimary(config: GatewayConfig, entry: string): Promise<void> {
  const log = pino(loggerSettings(config.logLevel)).child({ component: 'primary' });

  // Migrations run here, once; workers opening the store find nothing left to do.
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    database: config.database,
  });
  await store.close();

  const buckets = new MemoryBuckets();
  const slots: Slot[] = Array.from({ length: config.workers }, () => ({
    startedAt: 0,
    failures: 0,
  }));
  let stopping = false;
  let started = false;

  cluster.setupPrimary({ exec: entry, args: process.argv.slice(2) });

  const onMessage = (from: Worker, message: ClusterMessage) => {
    if (message.gateway === 'take') {
      // In arrival order: each take sees the ones before it, as one process's buckets would.
      void Promise.all(
        message.takes.map(async ({ id, key, policy }) => ({
          id,
          decision: await buckets.take(key, policy),
        })),
      ).then((decisions) => {
        if (from.isConnected()) from.send({ gateway: 'taken', decisions });
      });
    } else if (message.gateway === 'publish') {
      for (const slot of slots)
        if (slot.worker && slot.worker !== from && slot.worker.isConnected())
          slot.worker.send(message);
    }
  };

  const fork = (slot: Slot): Worker => {
    const worker = cluster.fork();
    slot.worker = worker;
    slot.startedAt = Date.now();
    worker.on('message', (message: unknown) => {
      if (isClusterMessage(message)) onMessage(worker, message);
    });
    worker.once('exit', (code, signal) => {
      if (slot.worker === worker) slot.worker = undefined;
      if (stopping) return;
      if (!started) {
        log.error({ worker: worker.id, code, signal }, 'a worker exited while starting; stopping');
        void stop(1);
        return;
      }
      const lived = Date.now() - slot.startedAt;
      slot.failures = lived >= HEALTHY_AFTER_MS ? 0 : slot.failures + 1;
      const delay =
        slot.failures === 0
          ? 0
          : Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (slot.failures - 1));
      log.error(
        { worker: worker.id, code, signal, restartInMs: delay },
        'a worker exited; starting another',
      );
      slot.restart = setTimeout(() => {
        slot.restart = undefined;
        if (!stopping) fork(slot);
      }, delay);
    });
    return worker;
  };

  const listening = (worker: Worker) =>
    new Promise<string>((resolve, reject) => {
      worker.once('listening', (address) =>
        resolve(
          `http://${address.address?.includes(':') ? `[${address.address}]` : address.address}:${address.port}`,
        ),
      );
      worker.once('exit', () => reject(new Error(`worker ${worker.id} exited before listening`)));
    });

  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    const backstop = setTimeout(() => {
      log.error('workers did not stop in time; killing them');
      for (const slot of slots) slot.worker?.process.kill('SIGKILL');
      process.exit(1);
    }, config.connections.shutdownGraceMs + STOP_BACKSTOP_MS);
    backstop.unref();
    const exits: Promise<unknown>[] = [];
    for (const slot of slots) {
      clearTimeout(slot.restart);
      const worker = slot.worker;
      if (!worker || worker.isDead()) continue;
      exits.push(new Promise((resolve) => worker.once('exit', resolve)));
      worker.process.kill('SIGTERM');
    }
    await Promise.all(exits);
    log.info({ code }, 'all workers stopped');
    process.exit(code);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      log.info({ signal }, 'shutting down the workers');
      void stop(0);
    });

  // Worker 1 first: it makes whatever the data directory still lacks (keys) before others read it.
  const [first, ...rest] = slots;
  let url: string;
  try {
    url = await listening(fork(first!));
    await Promise.all(rest.map((slot) => listening(fork(slot))));
  } catch (error) {
    log.error({ err: error }, 'the workers did not start');
    await stop(1);
    return;
  }
  started = true;
  log.info(
    { workers: config.workers },
    `gateway listening at ${url} with ${config.workers} workers`,
  );
}

import cluster from 'node:cluster';

/**
 * Messages between the primary and the workers of a WORKERS>1 gateway (src/cluster.ts), over the
 * cluster's IPC channel. Each carries `gateway` so the primary and workers ignore Node's own.
 *
 * - `take` (worker → primary) asks the primary's token buckets, when Redis is absent, for every
 *   request a worker received in one turn of its event loop, and `taken` answers them all, each
 *   decision with its take's `id`: one bucket per user whichever worker serves the request, at one
 *   IPC round trip per batch rather than per request.
 * - `publish` (worker → primary → every other worker) relays a StoreChannel message on SQLite,
 *   whose channel is otherwise in-process (PostgreSQL has NOTIFY).
 */
/** One request's take of a token from the bucket `key`. */
export interface BucketTake {
  id: number;
  key: string;
  policy: { capacity: number; refillPerMinute: number };
}

export type ClusterMessage =
  | { gateway: 'take'; takes: BucketTake[] }
  | { gateway: 'taken'; decisions: { id: number; decision: unknown }[] }
  | { gateway: 'publish'; channel: string; message: string };

export function isClusterMessage(value: unknown): value is ClusterMessage {
  return typeof value === 'object' && value !== null && 'gateway' in value;
}

/** This process is a worker of a gateway cluster (and so has a primary to ask). */
export function inClusterWorker(): boolean {
  return cluster.isWorker && typeof process.send === 'function';
}

/** The worker's id (1, 2, …; a restarted worker gets the next), absent outside a cluster. */
export function clusterWorkerId(): number | undefined {
  return cluster.isWorker ? cluster.worker?.id : undefined;
}

/** Sends to the primary; false when the channel is gone (the primary is exiting). */
export function sendToPrimary(message: ClusterMessage): boolean {
  if (!process.connected || !process.send) return false;
  try {
    process.send(message);
    return true;
  } catch {
    return false;
  }
}

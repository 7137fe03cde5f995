/**
 * The orphan sweep: removes file bytes that no committed catalog row names. A new file's bytes (and
 * an overwrite's new blob) are written before its row is committed, and a deleted file's bytes
 * (and the blob an overwrite replaced) removed after its row has changed, so a crash (SIGKILL,
 * power cut) between the two leaves bytes behind that nothing will ever read.
 *
 * Several gateways may share the database and DATA_STORE_DIR, and another one's upload may be
 * between "bytes installed" and "row committed" right now: only files untouched for the grace
 * period (DATA_STORE_ORPHAN_GRACE_SECONDS) are candidates, temporary files of unfinished writes
 * included. A write touches its file until it is installed, so a slow upload stays fresh. A process
 * alone on a local folder at start-up (store-lease.ts) clears at once what predates it.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { DataStore } from './store.ts';

/** Ids looked up in the catalog per query. */
const BATCH = 500;
const SWEEP_EVERY_MS = 60 * 60 * 1000;

export interface OrphanSweep {
  /** Object files old enough to be looked at. */
  checked: number;
  /** Of those, removed because no row names them. */
  removed: number;
  /** Temporary files of unfinished writes removed. */
  temps: number;
  ms: number;
}

/** One sweep over the bytes of `data`, as of `data.now()`; `signal` ends it early (between batches). */
export async function sweepOrphans(
  data: DataStore,
  graceMs: number,
  signal?: AbortSignal,
  before = data.now() - graceMs,
): Promise<OrphanSweep> {
  const started = performance.now();
  const temps = await data.blobs.removeStaleTemps(before);
  let checked = 0;
  let removed = 0;
  for await (const ids of data.blobs.staleObjects(before, BATCH)) {
    if (signal?.aborted) break;
    checked += ids.length;
    const named = await data.catalog.blobsNamed(ids);
    for (const id of ids) {
      if (named.has(id)) continue;
      await data.blobs.remove(id);
      removed += 1;
    }
  }
  return { checked, removed, temps, ms: Math.round(performance.now() - started) };
}

/**
 * Sweeps at once (in the background: start-up does not wait for it; alone on a local folder, with
 * no grace for what was there before start-up) and then hourly; never
 * throws, never keeps the process alive. The start-up sweep is always logged, later ones when
 * they removed something.
 */
export function startOrphanSweep(
  data: DataStore,
  graceMs: number,
  log: FastifyBaseLogger,
): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const stopping = new AbortController();
  const run = (first: boolean) => {
    if (running || stopping.signal.aborted) return; // a slow sweep is not overlapped by the next one
    // Alone on the folder at start-up: whatever was written before then is no one's write in
    // progress, so the first sweep need not wait out the grace period.
    const before =
      first && data.aloneSince !== undefined
        ? Math.max(data.aloneSince, data.now() - graceMs)
        : data.now() - graceMs;
    running = sweepOrphans(data, graceMs, stopping.signal, before)
      .then((result) => {
        if (first || result.removed + result.temps > 0)
          log.info({ orphanSweep: result }, 'orphan sweep finished');
      })
      .catch((error: unknown) => log.error({ err: error }, 'orphan sweep failed'))
      .finally(() => (running = undefined));
  };
  const first = setImmediate(() => run(true));
  const every = setInterval(() => run(false), SWEEP_EVERY_MS);
  every.unref();
  return {
    // Ends a sweep under way at its next batch and waits for it: the database it reads is about to be closed.
    async stop() {
      stopping.abort();
      clearImmediate(first);
      clearInterval(every);
      await running;
    },
  };
}

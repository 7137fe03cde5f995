import { randomInt } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Transaction } from 'kysely';
import type { Database } from '../../store/schema.ts';
import type { DataEvent } from './bulk.ts';
import { atLeast } from './object-index.ts';
import { ancestorsOf, baseName, isWithin, parentOf } from '../../common/data-path.ts';
import { existingAll, inTransaction, isProtectedRoot, ownedAll, trashBase } from './moves.ts';
import type { Caller, DataStore } from './store.ts';
import { relocate, removeSubtree, outermost } from './tree.ts';
import { errorAs, gatewayError } from '../../common/errors.ts';

/**
 * Delete, trash, restore and the retention sweep (backends.md §2.4). A deleted item moves to the
 * caller's trash as `<basename>.<7 random chars>` with its origin and time in `trash_origin` /
 * `trashed_at`; deleting something already in a trash removes it for good: catalog rows (grants
 * and tickets cascade) and, once the transaction has committed, the bytes of every file below.
 * Grants and tickets travel with a trashed item; no one but the trash's owner reads it there
 * (visibility.ts hides other users' trash, tickets are suspended).
 */

const SUFFIX_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const DAY_MS = 24 * 60 * 60 * 1000;

function randomSuffix(): string {
  let suffix = '';
  for (let index = 0; index < 7; index += 1)
    suffix += SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)];
  return suffix;
}

export interface DeleteResult {
  paths: string[];
  'trash-paths': Record<string, string>;
  events: DataEvent[];
}

/**
 * Removes file bytes (their blobs) after the catalog rows are gone; a failure, or a crash before
 * the last, leaves orphan blobs (orphans.ts), never a broken object.
 */
async function removeBlobs(
  data: DataStore,
  blobs: string[],
  log?: FastifyBaseLogger,
): Promise<void> {
  for (const id of blobs) {
    try {
      await data.blobs.remove(id);
    } catch (error) {
      log?.warn({ err: error, id }, 'could not remove the bytes of a deleted file');
    }
  }
}

/**
 * POST /deleter and friends: every path must exist and be owned by the caller, and none may be a
 * home, trash or zone folder. Items outside a trash go to the caller's trash; items inside one are
 * deleted for good.
 */
export async function deletePaths(
  data: DataStore,
  caller: Caller,
  paths: string[],
  log?: FastifyBaseLogger,
): Promise<DeleteResult> {
  const trashRoot = data.catalog.basePaths(caller.name).user_trash_path;
  const { moved, removedFiles, trashed, deleted } = await inTransaction(data, async (trx) => {
    const moved: Record<string, string> = {};
    const removedFiles: string[] = [];
    const trashed: string[] = [];
    const deleted: string[] = [];
    await existingAll(data, trx, paths);
    await ownedAll(data, trx, caller, paths);
    const roots = paths.filter((path) => isProtectedRoot(data.zone, path));
    if (roots.length > 0)
      throw errorAs(
        'ERR_NOT_AUTHORIZED',
        'ownHome',
        `home, trash and zone folders cannot be deleted: ${roots.join(', ')}`,
        { paths: roots },
      );

    const now = data.now();
    for (const path of outermost(paths)) {
      if (isWithin(path, trashBase(data.zone))) {
        const files = await removeSubtree(trx, path, now);
        if (!files)
          throw gatewayError(
            'ERR_DOES_NOT_EXIST',
            `${path} was deleted by a concurrent request; nothing was changed`,
            { path },
          );
        removedFiles.push(...files);
        deleted.push(path);
        continue;
      }
      // Its tickets stay, suspended while it is in the trash (ticket-download-routes.ts): a restore
      // brings its public links back, a deletion for good takes them with it.
      let target: string;
      do target = `${trashRoot}/${baseName(path)}.${randomSuffix()}`;
      while (await data.catalog.byPath(target, trx));
      await relocate(trx, path, target, now, { origin: path, at: now });
      moved[path] = target;
      trashed.push(path);
    }
    return { moved, removedFiles, trashed, deleted };
  });
  await removeBlobs(data, removedFiles, log);

  // A path that travelled inside another one is reported at its new place too.
  const trashPaths: Record<string, string> = {};
  for (const path of paths) {
    const outer = Object.keys(moved).find((from) => isWithin(path, from));
    if (outer) trashPaths[path] = moved[outer] + path.slice(outer.length);
  }
  const events: DataEvent[] = [];
  if (trashed.length > 0) events.push({ action: 'trash', user: caller.name, paths: trashed });
  if (deleted.length > 0) events.push({ action: 'delete', user: caller.name, paths: deleted });
  return { paths, 'trash-paths': trashPaths, events };
}

/** DELETE /trash: every entry of the caller's trash, for good. */
export async function emptyTrash(
  data: DataStore,
  caller: Caller,
  log?: FastifyBaseLogger,
): Promise<{ trash: string; paths: string[]; event: DataEvent }> {
  const trash = data.catalog.basePaths(caller.name).user_trash_path;
  const { removedFiles, paths } = await inTransaction(data, async (trx) => {
    const removedFiles: string[] = [];
    const paths: string[] = [];
    const now = data.now();
    for (const entry of await data.catalog.children(trash, trx)) {
      // Gone meanwhile (restored, or emptied by a concurrent request): not this request's to report.
      const files = await removeSubtree(trx, entry.path, now);
      if (!files) continue;
      removedFiles.push(...files);
      paths.push(entry.path);
    }
    return { removedFiles, paths };
  });
  await removeBlobs(data, removedFiles, log);
  paths.sort();
  return { trash, paths, event: { action: 'empty_trash', user: caller.name, paths } };
}

export interface RestoreResult {
  restored: Record<string, { 'restored-path': string; 'partial-restore': boolean }>;
  event: DataEvent;
}

/** `<folder>/<name>`, or `<name>.0`, `<name>.1`, … when taken. */
async function freeName(
  data: DataStore,
  trx: Transaction<Database>,
  folder: string,
  name: string,
): Promise<string> {
  let candidate = `${folder}/${name}`;
  for (let index = 0; await data.catalog.byPath(candidate, trx); index += 1)
    candidate = `${folder}/${name}.${index}`;
  return candidate;
}

/**
 * Where a trash item goes back to: its origin's folder when the caller can write it (missing
 * folders are re-created for the caller below the first existing one, which must be writable),
 * else the caller's home (a partial restore).
 */
async function restoreFolder(
  data: DataStore,
  trx: Transaction<Database>,
  caller: Caller,
  origin: string | null,
): Promise<{ folder: string; partial: boolean }> {
  const home = data.catalog.basePaths(caller.name).user_home_path;
  if (!origin || isWithin(origin, trashBase(data.zone))) return { folder: home, partial: true };
  const wanted = parentOf(origin);
  const missing: string[] = [];
  for (const folder of [wanted, ...ancestorsOf(wanted).reverse()]) {
    const object = await data.catalog.byPath(folder, trx);
    if (!object) {
      missing.unshift(folder);
      continue;
    }
    const writable =
      object.type === 'dir' && atLeast(await data.permission(caller, folder, trx), 'write');
    if (!writable) return { folder: home, partial: true };
    for (const path of missing)
      await data.catalog.create({ path, type: 'dir', owner: caller.name }, trx);
    return { folder: wanted, partial: false };
  }
  return { folder: home, partial: true };
}

/**
 * POST /restorer: `paths` (empty = the caller's whole trash) must be trash items the caller can
 * write. Each goes back to where it was deleted from (see restoreFolder), renamed `.0`, `.1`, …
 * on a collision.
 */
export async function restorePaths(
  data: DataStore,
  caller: Caller,
  requested: string[],
): Promise<RestoreResult> {
  const trashRoot = data.catalog.basePaths(caller.name).user_trash_path;
  const restored = await inTransaction(data, async (trx) => {
    const restored: RestoreResult['restored'] = {};
    const paths =
      requested.length > 0
        ? requested
        : (await data.catalog.children(trashRoot, trx)).map((entry) => entry.path).sort();
    const objects = await existingAll(data, trx, paths);
    const outside = paths.filter(
      (path) => !isWithin(path, trashBase(data.zone)) || isProtectedRoot(data.zone, path),
    );
    if (outside.length > 0)
      throw gatewayError(
        'ERR_ILLEGAL_ARGUMENT',
        `only items in a trash can be restored: ${outside.join(', ')}`,
        { paths: outside },
      );
    const levels = await data.permissions(caller, paths, trx);
    for (const path of paths) {
      if (!atLeast(levels.get(path), 'write')) {
        throw gatewayError('ERR_NOT_WRITEABLE', `${caller.name} cannot write ${path}`, {
          path,
          user: caller.name,
        });
      }
    }
    const now = data.now();
    for (const path of outermost(paths)) {
      const object = objects.get(path)!;
      const { folder, partial } = await restoreFolder(data, trx, caller, object.trash_origin);
      const name = object.trash_origin ? baseName(object.trash_origin) : baseName(path);
      const target = await freeName(data, trx, folder, name);
      await relocate(trx, path, target, now, { origin: null, at: null });
      restored[path] = { 'restored-path': target, 'partial-restore': partial };
    }
    return restored;
  });
  // The notification names where things are now: trash names carry a suffix the user never chose.
  return {
    restored,
    event: {
      action: 'restore',
      user: caller.name,
      paths: Object.values(restored).map((entry) => entry['restored-path']),
    },
  };
}

/**
 * Retention (spec: 30 days): deletes for good every trash entry trashed more than
 * `trashRetentionDays` ago by `data.now()`, one transaction per entry so one failure cannot
 * hold back the rest.
 */
export async function sweepTrash(
  data: DataStore,
  log?: FastifyBaseLogger,
): Promise<{ deleted: number }> {
  const cutoff = data.now() - data.options.trashRetentionDays * DAY_MS;
  const expired = await data.db
    .selectFrom('data_objects')
    .select('path')
    .where('trashed_at', 'is not', null)
    .where('trashed_at', '<', cutoff)
    .orderBy('path')
    .execute();
  let deleted = 0;
  for (const { path } of expired) {
    if (!isWithin(path, trashBase(data.zone))) continue;
    try {
      const files = await inTransaction(data, async (trx) => {
        // Re-read inside the transaction: it may have been restored or emptied meanwhile.
        const entry = await data.catalog.byPath(path, trx);
        if (!entry || entry.trashed_at === null || Number(entry.trashed_at) >= cutoff)
          return undefined;
        return removeSubtree(trx, path, data.now());
      });
      if (!files) continue;
      await removeBlobs(data, files, log);
      deleted += 1;
    } catch (error) {
      log?.error({ err: error, path }, 'trash sweep could not delete an expired entry');
    }
  }
  return { deleted };
}

/** First sweep this long after start (not at once: start-up has enough to do). */
const FIRST_SWEEP_MS = 60_000;
const SWEEP_EVERY_MS = 60 * 60 * 1000;

/** Runs sweepTrash soon after start and then hourly; never throws, never keeps the process alive. */
export function startTrashSweep(data: DataStore, log: FastifyBaseLogger): { stop(): void } {
  let running = false;
  const run = async () => {
    if (running) return; // a slow sweep is not overlapped by the next one
    running = true;
    try {
      const { deleted } = await sweepTrash(data, log);
      if (deleted > 0) log.info({ deleted }, 'trash sweep deleted expired entries');
    } catch (error) {
      log.error({ err: error }, 'trash sweep failed');
    } finally {
      running = false;
    }
  };
  const first = setTimeout(() => void run(), FIRST_SWEEP_MS);
  const every = setInterval(() => void run(), SWEEP_EVERY_MS);
  first.unref();
  every.unref();
  return {
    stop() {
      clearTimeout(first);
      clearInterval(every);
    },
  };
}

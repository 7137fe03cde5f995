import type { Transaction } from 'kysely';
import type { Database } from '../../store/schema.ts';
import type { DataEvent } from './bulk.ts';
import { atLeast, type DataObject } from './object-index.ts';
import { isWithin, parentOf } from '../../common/data-path.ts';
import type { Caller, DataStore } from './store.ts';
import { relocate } from './tree.ts';
import { isUniqueViolation } from '../../store/unique-violation.ts';
import { errorAs, gatewayError } from '../../common/errors.ts';

/**
 * Moves and renames (backends.md §2.1): all-or-nothing in one transaction. The caller must own
 * every source and be able to write every destination folder. Only catalog rows change; a
 * folder's descendants are rewritten in the same transaction.
 */

export interface Move {
  from: string;
  to: string;
}

const depth = (path: string): number => path.split('/').length;

/**
 * The folders no one may move, rename or delete: `/<zone>`, the home and trash scaffolding, every
 * user's home and trash root, and the community folder.
 */
export function isProtectedRoot(zone: string, path: string): boolean {
  const segments = depth(path) - 1;
  if (segments <= 1) return true;
  if (isWithin(path, `/${zone}/home`)) return segments <= 3;
  if (isWithin(path, `/${zone}/trash`)) return segments <= 4;
  return segments <= 2;
}

export function trashBase(zone: string): string {
  return `/${zone}/trash`;
}

/** PostgreSQL's deadlock_detected: it rolled back one of two transactions that waited for each other. */
const isDeadlock = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === '40P01';
/** Attempts of a transaction PostgreSQL rolled back as a deadlock. */
const DEADLOCK_ATTEMPTS = 3;

/**
 * Runs `work` in a transaction; a path taken meanwhile by a concurrent request becomes ERR_EXISTS.
 * A transaction PostgreSQL chose as a deadlock's victim is run again from the start (the other one
 * has gone ahead by then, and `work` checks afresh), so `work` must keep its results to itself
 * until it returns. Changes take their locks in one order (tree.ts), so this is a safety net.
 */
export async function inTransaction<T>(
  data: DataStore,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await data.db.transaction().execute(work);
    } catch (error) {
      if (isDeadlock(error) && attempt < DEADLOCK_ATTEMPTS) continue;
      if (isUniqueViolation(error))
        throw errorAs(
          'ERR_EXISTS',
          'conflict',
          'a target path was taken by a concurrent change; nothing was changed',
        );
      throw error;
    }
  }
}

/** Every source must exist: ERR_DOES_NOT_EXIST naming all the missing ones. */
export async function existingAll(
  data: DataStore,
  trx: Transaction<Database>,
  paths: string[],
): Promise<Map<string, DataObject>> {
  const found = await data.catalog.byPaths(paths, trx);
  const missing = paths.filter((path) => !found.has(path));
  if (missing.length > 0)
    throw gatewayError(
      'ERR_DOES_NOT_EXIST',
      `${missing.join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist`,
      { paths: missing },
    );
  return found;
}

/** The caller must own every path: ERR_NOT_OWNER naming those they do not. */
export async function ownedAll(
  data: DataStore,
  trx: Transaction<Database>,
  caller: Caller,
  paths: string[],
): Promise<void> {
  const levels = await data.permissions(caller, paths, trx);
  const notOwned = paths.filter((path) => !atLeast(levels.get(path), 'own'));
  if (notOwned.length > 0)
    throw gatewayError('ERR_NOT_OWNER', `${caller.name} does not own ${notOwned.join(', ')}`, {
      paths: notOwned,
      user: caller.name,
    });
}

/** Applies `moves` (already checked to be distinct sources) in one transaction; answers the event. */
export async function moveAll(
  data: DataStore,
  caller: Caller,
  moves: Move[],
  action: 'move' | 'rename',
): Promise<DataEvent> {
  const zone = data.zone;
  // A source below another source moves first, so both end up where they were sent.
  const ordered = [...moves].sort((a, b) => depth(b.from) - depth(a.from));
  await inTransaction(data, async (trx) => {
    await existingAll(
      data,
      trx,
      ordered.map((move) => move.from),
    );

    const roots = ordered
      .filter((move) => isProtectedRoot(zone, move.from))
      .map((move) => move.from);
    if (roots.length > 0)
      throw errorAs(
        'ERR_NOT_AUTHORIZED',
        'ownHome',
        `home, trash and zone folders cannot be moved: ${roots.join(', ')}`,
        { paths: roots },
      );

    const folders = [...new Set(ordered.map((move) => parentOf(move.to)))];
    const targetFolders = await data.catalog.byPaths(folders, trx);
    for (const folder of folders) {
      const target = targetFolders.get(folder);
      if (!target)
        throw gatewayError('ERR_DOES_NOT_EXIST', `${folder} does not exist`, { path: folder });
      if (target.type !== 'dir')
        throw gatewayError('ERR_NOT_A_FOLDER', `${folder} is not a folder`, { path: folder });
      if (isWithin(folder, trashBase(zone))) {
        throw gatewayError(
          'ERR_ILLEGAL_ARGUMENT',
          `${folder} is in the trash; delete items to move them there`,
          { path: folder },
        );
      }
    }

    await ownedAll(
      data,
      trx,
      caller,
      ordered.map((move) => move.from),
    );
    const folderLevels = await data.permissions(caller, folders, trx);
    for (const folder of folders) {
      if (!atLeast(folderLevels.get(folder), 'write')) {
        throw gatewayError('ERR_NOT_WRITEABLE', `${caller.name} cannot write ${folder}`, {
          path: folder,
          user: caller.name,
        });
      }
    }

    const intoItself = ordered.filter((move) => isWithin(parentOf(move.to), move.from));
    if (intoItself.length > 0) {
      throw gatewayError(
        'ERR_ILLEGAL_ARGUMENT',
        `a folder cannot be moved into itself or below itself: ${intoItself.map((move) => move.from).join(', ')}`,
        {
          paths: intoItself.map((move) => move.from),
        },
      );
    }

    const targets = ordered.map((move) => move.to);
    const clashes = targets.filter((target, index) => targets.indexOf(target) !== index);
    const taken = await data.catalog.byPaths(targets, trx);
    for (const target of targets) if (taken.has(target)) clashes.push(target);
    if (clashes.length > 0) {
      // On PostgreSQL each statement sees what was committed before it: a concurrent move of a
      // source that committed after the sources were found shows here as its target taken. Read
      // again now, that source is gone, and the request is answered as the other losers of that
      // race are (ERR_DOES_NOT_EXIST), not by the target the winner just took.
      await existingAll(
        data,
        trx,
        ordered.map((move) => move.from),
      );
      const paths = [...new Set(clashes)];
      throw errorAs(
        'ERR_EXISTS',
        'conflict',
        `${paths.join(', ')} already ${paths.length === 1 ? 'exists' : 'exist'}; nothing was moved`,
        { paths },
      );
    }

    const now = data.now();
    // Leaving the trash by a move ends the item's trash life (the sweep must not find it later).
    for (const move of ordered)
      await relocate(trx, move.from, move.to, now, { origin: null, at: null });
  });
  return {
    action,
    user: caller.name,
    paths: moves.map((move) => move.from),
    dest: action === 'move' ? parentOf(moves[0]?.to ?? '') : moves[0]?.to,
  };
}

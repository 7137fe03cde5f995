/**
 * The data store's consistency check (`npm run fsck`, src/cli/fsck.ts; docs/operations.md,
 * "Repairing the data store"): the catalog's file rows against the bytes in the BlobStore (the
 * local folder or the S3 bucket). It reports blobs no row names (orphans), rows whose blob is
 * missing, rows whose size or MD5 differ from their bytes, and unfinished writes; asked to repair,
 * it removes (or sets aside) orphans and unfinished writes, makes a row describe its bytes, and
 * deletes rows whose bytes are missing only when told to. Every difference is looked at again just
 * before it is repaired, so a gateway's write that lands meanwhile is never taken for one.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DataStoreSettings } from '../../config/index.ts';
import type { Database } from '../../store/schema.ts';
import { blobOf, type DataObject } from './object-index.ts';
import { inTransaction } from './moves.ts';
import { DataStore } from './store.ts';
import { liveLeaseHolders, takeStoreLease, type LeaseHolder } from './store-lease.ts';
import { removeSubtree } from './tree.ts';

/** Blobs looked up in the catalog per query, and rows read per page. */
const BATCH = 500;

export interface FsckOptions {
  /** Read every file's bytes and compare their MD5 with the catalog's (false: sizes only). */
  checksums: boolean;
  repair: boolean;
  /** Orphans are moved to `lost+found/` instead of removed. */
  quarantine?: boolean;
  /** Rows whose bytes are missing are deleted (with `repair`); otherwise they are kept. */
  removeMissing?: boolean;
  /**
   * Repair although another process holds the local folder's lease, or although the catalog and
   * the bytes share nothing (the wrong database or folder, most likely).
   */
  force?: boolean;
}

/** What was done about a difference; absent when nothing was asked. */
export interface Repair {
  action: 'removed' | 'quarantined' | 'catalog updated' | 'row deleted' | 'kept';
  /** Why it was kept, or where quarantined bytes went. */
  detail?: string;
}

export type Difference =
  | {
      kind: 'orphan';
      blob: string;
      size: number;
      modified: string;
      /** Young enough to be another gateway's write whose row is not committed yet. */
      recent: boolean;
      repair?: Repair;
    }
  | {
      kind: 'missing';
      id: string;
      path: string;
      owner: string;
      blob: string;
      size: number;
      repair?: Repair;
    }
  | {
      kind: 'mismatch';
      id: string;
      path: string;
      blob: string;
      catalog: { size: number; md5: string | null };
      bytes: { size: number; md5?: string };
      repair?: Repair;
    }
  | {
      kind: 'unfinished';
      name: string;
      started: string;
      size?: number;
      recent: boolean;
      repair?: Repair;
    };

export interface FsckReport {
  /** Where the bytes are: a folder or `s3://bucket/prefix/`. */
  bytes: string;
  checksums: boolean;
  repair: boolean;
  /** Other processes holding the local folder's lease when the check began (gateways). */
  holders: LeaseHolder[];
  /** File rows and blobs looked at. */
  files: number;
  blobs: number;
  differences: Difference[];
  /** Differences repaired, and those left. */
  repaired: number;
  left: number;
  ms: number;
}

/** A repair refused before anything was changed: the reason says why and how to insist. */
export class FsckRefused extends Error {
  override readonly name = 'FsckRefused';
}

/** The MD5 of a blob's bytes, read whole. */
async function md5Of(data: DataStore, blob: string): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of data.blobs.read(blob)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The file rows, a page at a time in id order. */
async function* fileRows(data: DataStore): AsyncGenerator<DataObject[]> {
  let after = '';
  for (;;) {
    const page = (await data.db
      .selectFrom('data_objects')
      .selectAll()
      .where('type', '=', 'file')
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute()) as DataObject[];
    if (page.length === 0) return;
    yield page;
    after = page[page.length - 1]!.id;
  }
}

/** The row `id` as it is now, if it still names `blob`. */
async function stillNaming(data: DataStore, id: string, blob: string) {
  const row = await data.catalog.byId(id);
  return row && blobOf(row) === blob ? row : undefined;
}

/**
 * Compares the catalog of `data` with its bytes and, with `repair`, repairs what is safe (see the
 * module's comment). Throws FsckRefused, having changed nothing, when asked to repair a local
 * folder another process holds, or a store whose catalog and bytes share nothing, without `force`.
 */
export async function checkDataStore(data: DataStore, options: FsckOptions): Promise<FsckReport> {
  const clock = performance.now();
  const started = Date.now();
  const local = !data.options.blobStore;
  const graceMs = data.options.orphanGraceMs ?? 0;
  const holders = local ? await liveLeaseHolders(data.options.dir) : [];
  if (options.repair && holders.length > 0 && !options.force)
    throw new FsckRefused(
      `${holders.length} other process(es) use ${data.blobs.location} (${holders
        .map((holder) => `pid ${holder.pid ?? '?'} on ${holder.host ?? '?'}`)
        .join(', ')}): stop them first, or repair anyway with --force`,
    );
  // Alone on the folder, nothing is a write in progress; otherwise (a bucket, which holds no
  // leases, or --force) bytes younger than the orphan grace period may be one and are left alone.
  const alone = (local && holders.length === 0) || graceMs === 0;
  const cutoff = alone ? started : started - graceMs;
  const differences: Difference[] = [];

  let blobs = 0;
  let matched = 0;
  const found = new Set<string>(); // rows whose bytes were listed
  for await (const batch of data.blobs.objects(BATCH)) {
    blobs += batch.length;
    const rows = await data.catalog.filesByBlob(batch.map((blob) => blob.id));
    for (const blob of batch) {
      const row = rows.get(blob.id);
      if (!row) {
        differences.push({
          kind: 'orphan',
          blob: blob.id,
          size: blob.size,
          modified: new Date(blob.modified).toISOString(),
          recent: blob.modified > cutoff,
        });
        continue;
      }
      let md5: string | undefined;
      if (options.checksums && row.md5 && Number(row.size) === blob.size) {
        md5 = await md5Of(data, blob.id).catch((error: unknown) => {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
          throw error;
        });
        if (md5 === undefined) continue; // removed since the listing: the rows' pass looks again
      }
      matched += 1;
      found.add(row.id);
      const catalog = { size: Number(row.size), md5: row.md5 };
      const mismatch = (bytes: { size: number; md5?: string }) =>
        differences.push({
          kind: 'mismatch',
          id: row.id,
          path: row.path,
          blob: blob.id,
          catalog,
          bytes,
        });
      if (catalog.size !== blob.size) mismatch({ size: blob.size });
      else if (md5 !== undefined && md5 !== row.md5) mismatch({ size: blob.size, md5 });
    }
  }

  let files = 0;
  for await (const page of fileRows(data)) {
    files += page.length;
    for (const row of page) {
      if (found.has(row.id)) continue;
      // Written or overwritten since the listing: its bytes are there now, or it is a difference.
      const blob = blobOf(row);
      if (await data.blobs.exists(blob)) continue;
      const now = await data.catalog.byId(row.id);
      if (!now || (blobOf(now) !== blob && (await data.blobs.exists(blobOf(now))))) continue;
      differences.push({
        kind: 'missing',
        id: row.id,
        path: now.path,
        owner: now.owner,
        blob: blobOf(now),
        size: Number(now.size),
      });
    }
  }

  for (const temp of await data.blobs.temps())
    differences.push({
      kind: 'unfinished',
      name: temp.name,
      started: new Date(temp.started).toISOString(),
      ...(temp.size === undefined ? {} : { size: temp.size }),
      recent: temp.started > cutoff,
    });

  if (options.repair && !options.force && matched === 0 && files + blobs > 0)
    throw new FsckRefused(
      `the catalog's ${files} file(s) and the ${blobs} blob(s) in ${data.blobs.location} have nothing in common: is this the right database (DATABASE_URL, GATEWAY_DATA_DIR) and store (DATA_STORE_DIR, BLOB_STORE_URL)? Repair anyway with --force`,
    );

  if (options.repair) {
    // Held while repairing, so that a gateway starting meanwhile knows it is not alone.
    const lease = local ? await takeStoreLease(data.options.dir) : undefined;
    try {
      for (const difference of differences)
        difference.repair = await repair(data, difference, options);
      // What was unfinished before the cutoff is no one's write any more; later ones are kept.
      if (
        differences.some(
          (difference) =>
            difference.repair?.action === 'removed' && difference.kind === 'unfinished',
        )
      )
        await data.blobs.removeStaleTemps(cutoff);
    } finally {
      await lease?.release();
    }
  }

  const repaired = differences.filter(
    (difference) => difference.repair && difference.repair.action !== 'kept',
  ).length;
  return {
    bytes: data.blobs.location,
    checksums: options.checksums,
    repair: options.repair,
    holders,
    files,
    blobs,
    differences,
    repaired,
    left: differences.length - repaired,
    ms: Math.round(performance.now() - clock),
  };
}

const kept = (detail: string): Repair => ({ action: 'kept', detail });

async function repair(
  data: DataStore,
  difference: Difference,
  options: FsckOptions,
): Promise<Repair> {
  switch (difference.kind) {
    case 'orphan': {
      if (difference.recent)
        return kept('younger than the orphan grace period: perhaps a write in progress');
      if ((await data.catalog.blobsNamed([difference.blob])).size > 0)
        return kept('a row names it now');
      if (options.quarantine) {
        try {
          return { action: 'quarantined', detail: await data.blobs.quarantine(difference.blob) };
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return kept('gone meanwhile');
          throw error;
        }
      }
      await data.blobs.remove(difference.blob);
      return { action: 'removed' };
    }
    case 'unfinished':
      if (difference.recent)
        return kept('younger than the orphan grace period: perhaps a write in progress');
      return { action: 'removed' }; // all at once, by checkDataStore
    case 'mismatch': {
      const row = await stillNaming(data, difference.id, difference.blob);
      if (!row) return kept('overwritten or deleted meanwhile');
      // The bytes are what every reader gets: the row is made to describe them.
      let size: number;
      let md5: string;
      try {
        size = await data.blobs.size(difference.blob);
        md5 = await md5Of(data, difference.blob);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return kept('changed meanwhile');
        throw error;
      }
      difference.bytes = { size, md5 };
      const updated = await data.db
        .updateTable('data_objects')
        .set({ size, md5 })
        .where('id', '=', row.id)
        .where((eb) =>
          row.blob_id === null ? eb('blob_id', 'is', null) : eb('blob_id', '=', row.blob_id),
        )
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return kept('overwritten or deleted meanwhile');
      return { action: 'catalog updated' };
    }
    case 'missing': {
      if (!options.removeMissing)
        return kept(
          `restore the bytes from a backup to blob ${difference.blob}, delete the file, or run again with --remove-missing`,
        );
      const row = await stillNaming(data, difference.id, difference.blob);
      if (!row || (await data.blobs.exists(difference.blob))) return kept('changed meanwhile');
      const removed = await inTransaction(data, async (trx) => {
        const again = await data.catalog.byId(row.id, trx);
        if (!again || blobOf(again) !== difference.blob) return undefined;
        return removeSubtree(trx, again.path, data.now());
      });
      if (!removed) return kept('changed meanwhile');
      return { action: 'row deleted' };
    }
  }
}

/**
 * checkDataStore for the data store of the settings `settings` (the configuration's dataStore) on
 * the catalog `db`, opened for the check alone: nothing of a gateway's start-up (no lease taken, no
 * unfinished write removed) happens unless a repair asks for it.
 */
export function fsckDataStore(
  db: Kysely<Database>,
  settings: DataStoreSettings,
  options: FsckOptions,
): Promise<FsckReport> {
  return checkDataStore(new DataStore(db, settings), options);
}

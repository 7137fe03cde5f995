// Writing to the data store as a user, for data-info's own routes and the services that produce
// files on a user's behalf (analyses): folders made like `mkdir -p`, new files made whole.
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { PostgresAdapter, type Transaction } from 'kysely';
import { newChildPath } from './bulk.ts';
import type { Database } from '../../store/schema.ts';
import { blobOf, type DataObject } from './object-index.ts';
import { contentTypeFromName, infoTypeFromName, sniffContentType } from './content-types.ts';
import { ancestorsOf, baseName, parentOf } from '../../common/data-path.ts';
import { objectLock } from './locks.ts';
import type { Caller, DataStore } from './store.ts';
import { isUniqueViolation } from '../../store/unique-violation.ts';
import { visibilityOf } from './visibility.ts';
import { subtree } from './tree.ts';
import { errorAs, gatewayError } from '../../common/errors.ts';

/** The folders missing on the way to `path`, checked: the nearest existing one must be a folder `caller` can write. */
export async function foldersToCreate(
  data: DataStore,
  caller: Caller,
  path: string,
): Promise<string[]> {
  const chain = [...ancestorsOf(path), path];
  const existing = await data.db
    .selectFrom('data_objects')
    .selectAll()
    .where('path', 'in', chain)
    .execute();
  const byPath = new Map(existing.map((object) => [object.path, object as DataObject]));
  const nearest = [...chain].reverse().find((candidate) => byPath.has(candidate));
  if (nearest === path) return [];
  const ancestor = nearest ? byPath.get(nearest)! : undefined;
  if (!ancestor)
    throw gatewayError('ERR_DOES_NOT_EXIST', `no folder above ${path} exists`, { path });
  if (ancestor.type !== 'dir')
    throw gatewayError(
      'ERR_NOT_A_FOLDER',
      `${ancestor.path} is a file, so ${path} cannot be made`,
      { path: ancestor.path },
    );
  await visibilityOf(data).requireLevel(caller, ancestor, 'write');
  const missing = chain.slice(chain.indexOf(ancestor.path) + 1);
  // New names follow the bad-character policy; existing ones stay addressable whatever they hold.
  for (const folder of missing) newChildPath(parentOf(folder), baseName(folder), 'paths');
  return missing;
}

/**
 * Makes `paths` and their missing parents as `caller`, all checked before any is made (a refusal
 * leaves the store as it was); answers the folders made, shallowest first. Existing folders are fine.
 */
export async function createFolders(
  data: DataStore,
  caller: Caller,
  paths: string[],
): Promise<string[]> {
  const plans = await Promise.all(paths.map((path) => foldersToCreate(data, caller, path)));
  const wanted = [...new Set(plans.flat())].sort(
    (a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1),
  );
  const created: string[] = [];
  for (const path of wanted) {
    try {
      await data.db
        .transaction()
        .execute((trx) => data.catalog.create({ path, type: 'dir', owner: caller.name }, trx));
      created.push(path);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // Made meanwhile by someone else: fine if it is a folder.
      const other = await data.catalog.byPath(path);
      if (other?.type !== 'dir')
        throw errorAs('ERR_EXISTS', 'conflict', `${path} already exists and is not a folder`, {
          path,
        });
    }
  }
  return created;
}

/** A file `caller` may read at `path`. */
/**
 * A folder `caller` may read at `path` and everything below it (read on a folder covers what it
 * holds), sorted by path; the data store's refusals otherwise, as readableFile's, and
 * ERR_NOT_A_FOLDER for a file.
 */
export async function readableTree(
  data: DataStore,
  caller: Caller,
  path: string,
): Promise<{ folder: DataObject; below: DataObject[] }> {
  const folder = await data.existing(data.path(path));
  await visibilityOf(data).requireLevel(caller, folder, 'read');
  if (folder.type !== 'dir')
    throw gatewayError('ERR_NOT_A_FOLDER', `${folder.path} is a file, not a folder`, {
      path: folder.path,
    });
  const below = (await subtree(data.db, folder.path))
    .filter((object) => object.path !== folder.path)
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { folder, below };
}

export async function readableFile(
  data: DataStore,
  caller: Caller,
  path: string,
): Promise<DataObject> {
  const object = await data.existing(data.path(path));
  // Readable first: what cannot be read does not tell what it is.
  await visibilityOf(data).requireLevel(caller, object, 'read');
  if (object.type !== 'file')
    throw gatewayError('ERR_NOT_A_FILE', `${object.path} is a folder, not a file`, {
      path: object.path,
    });
  return object;
}

/** Bytes written to a blob, with their first bytes when known (content types are sniffed from them). */
export interface WrittenContent {
  size: number;
  md5: string;
  head?: Buffer;
}

/**
 * Catalogs a new file at `path` whose bytes `write` puts in the blob it is given; the caller has
 * checked the folder. A clash (checked first, and again by the catalog) is ERR_EXISTS; nothing is
 * left behind when anything fails.
 */
export async function addFile(
  data: DataStore,
  caller: Caller,
  path: string,
  write: (id: string) => Promise<WrittenContent>,
): Promise<DataObject> {
  if (await data.catalog.byPath(path))
    throw errorAs('ERR_EXISTS', 'conflict', `${path} already exists`, { path });
  const name = baseName(path);
  const id = randomUUID();
  const written = await write(id);
  try {
    return await data.db.transaction().execute((trx) =>
      data.catalog.create(
        {
          id,
          path,
          type: 'file',
          owner: caller.name,
          size: written.size,
          md5: written.md5,
          contentType: sniffContentType(contentTypeFromName(name), written.head ?? Buffer.alloc(0)),
          infoType: infoTypeFromName(name),
        },
        trx,
      ),
    );
  } catch (error) {
    await data.blobs.remove(id);
    if (isUniqueViolation(error))
      throw errorAs('ERR_EXISTS', 'conflict', `${path} already exists`, { path });
    throw error;
  }
}

/**
 * New bytes for an existing file, written whole by `write` into a blob of their own (the id it is
 * given); then one transaction points the row at that blob with its size and MD5, and the blob
 * the row named before is removed once that has committed. A crash at any point therefore leaves
 * the old bytes with the old row or the new bytes with the new row, never one with the other; the
 * blob left over is an orphan (orphans.ts). Overwrites of one object in this process run one after
 * the other; a file deleted for good meanwhile keeps nothing and is ERR_DOES_NOT_EXIST.
 */
export async function replaceContent(
  data: DataStore,
  object: DataObject,
  write: (id: string) => Promise<WrittenContent>,
): Promise<DataObject> {
  return objectLock(data).run(object.id, async () => {
    const blob = randomUUID();
    const written = await write(blob);
    let replaced: string | undefined;
    try {
      replaced = await data.db.transaction().execute(async (trx) => {
        const current = await rowForUpdate(trx, object.id);
        if (!current) return undefined;
        const name = baseName(current.path);
        await trx
          .updateTable('data_objects')
          .set({
            blob_id: blob,
            size: written.size,
            md5: written.md5,
            modified_at: Math.max(data.now(), Number(current.modified_at)),
            ...(written.head
              ? { content_type: sniffContentType(contentTypeFromName(name), written.head) }
              : {}),
          })
          .where('id', '=', object.id)
          .execute();
        return blobOf(current);
      });
    } catch (error) {
      await data.blobs.remove(blob).catch(() => {}); // else an orphan, swept later
      throw error;
    }
    if (replaced === undefined) {
      await data.blobs.remove(blob);
      throw gatewayError('ERR_DOES_NOT_EXIST', `${object.path} was deleted while it was written`, {
        path: object.path,
      });
    }
    // The new content is in place: bytes that cannot be removed now are an orphan, not a failure.
    await data.blobs.remove(replaced).catch(() => {});
    return (await data.catalog.byId(object.id))!;
  });
}

/**
 * The row of `id` in the transaction `trx`, held on PostgreSQL (FOR UPDATE) so that the blob it
 * names is the one this transaction replaces, not one a concurrent overwrite replaced already.
 * SQLite has a single writer.
 */
async function rowForUpdate(trx: Transaction<Database>, id: string) {
  const query = trx
    .selectFrom('data_objects')
    .select(['id', 'blob_id', 'path', 'modified_at'])
    .where('id', '=', id);
  return trx.getExecutor().adapter instanceof PostgresAdapter
    ? query.forUpdate().executeTakeFirst()
    : query.executeTakeFirst();
}

/** A new file at `path` (in a folder `caller` can write, under a valid free name) with the bytes of `content`. */
export async function createFile(
  data: DataStore,
  caller: Caller,
  path: string,
  content: Readable | Buffer | string,
): Promise<DataObject> {
  const folder = await data.existing(parentOf(path));
  if (folder.type !== 'dir')
    throw gatewayError('ERR_NOT_A_FOLDER', `${folder.path} is not a folder`, { path: folder.path });
  await visibilityOf(data).requireLevel(caller, folder, 'write');
  newChildPath(folder.path, baseName(path), 'name');
  const head =
    typeof content === 'string'
      ? Buffer.from(content.slice(0, 512))
      : Buffer.isBuffer(content)
        ? content.subarray(0, 512)
        : undefined;
  return addFile(data, caller, path, async (id) => ({
    ...(await data.blobs.write(id, content)),
    ...(head ? { head } : {}),
  }));
}

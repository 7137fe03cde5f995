// data-info's in-process data-store API: all that the other embedded services of this process (the
// genome service, the apps service's analysis runs, the analyses service) may do with the data
// store without going through data-info's HTTP routes. Reads and writes are made as a user (a
// Caller) under that user's permissions, the same rules data-info's routes apply; the exceptions
// say so (replaceContent, whose caller checks first; the object index, only asked questions; a
// BlobStore, outside the data store). Exported through data-info's door (index.ts); nothing else
// of data-info is for other services.
import type { Expression, Kysely, RawBuilder, SqlBool } from 'kysely';
import type { Database } from '../../store/schema.ts';
import type { DataObject } from './object-index.ts';
import type { Permission } from '../../common/data-stat.ts';
import { DataStore, type Caller, type DataStoreOptions } from './store.ts';
import { visibilityOf } from './visibility.ts';

/**
 * The data store: file bytes under DATA_STORE_DIR with their index in the database. Other services
 * get it from openSharedDataStore and use `writer(user)` / `caller(user)` to make the Caller every
 * other call here takes, `path(input, field)` to read a path given by a client, `content(object)`
 * to read a file's bytes (once readableFile has checked the caller may), `catalog` (the object
 * index) for paths by name and users' base paths, and `db` for their own tables in the same
 * database.
 */
export type { DataStore };

/**
 * Who is asking: a user with a home (from `writer`), or the anonymous caller, who can only read
 * public data.
 */
export type { Caller };

/** One file or folder of the data store: a row of the object index (path, type, size, ...). */
export type { DataObject };

/** A permission level on a data-store path: `read` < `write` < `own`. */
export type { Permission };

/** Whether `permission` (undefined: none) reaches `needed`. */
export { atLeast } from './object-index.ts';

/** The name under which the anonymous caller's permissions are asked (public data only). */
export { anonymousUser } from './store.ts';

/**
 * The index of data objects and their permissions, on its own: for a service that only checks
 * paths (the analyses service's quick launches) and so must not open the DataStore, whose start-up
 * clears unfinished writes. Used for questions only: `zone`, `permissions(user, paths)`.
 */
export { ObjectIndex } from './object-index.ts';

/**
 * A place of blobs (bytes by id) outside the data store's index: the genome service keeps
 * genomes' FASTA bytes in one (`<DATA_STORE_DIR>/genomes`, or `<prefix>genomes/` of the
 * BLOB_STORE_URL bucket), opened with openBlobStore. No permissions apply: the service that owns
 * it decides who reads what.
 */
export type { BlobStore } from './blob-store.ts';
export { openBlobStore } from './open-blob-store.ts';

/**
 * A file `caller` may read at `path`; the data store's own refusals otherwise (ERR_NOT_READABLE,
 * ERR_DOES_NOT_EXIST, ERR_NOT_A_FILE), a path that cannot be read telling nothing of what it is.
 */
export { readableFile } from './writes.ts';

/**
 * A folder `caller` may read and everything below it (analysis inputs staged whole); refusals as
 * readableFile's, ERR_NOT_A_FOLDER for a file.
 */
export { readableTree } from './writes.ts';

/**
 * A new file at `path` with the bytes of `content`, made as `caller`: the folder must exist and
 * `caller` must be able to write it, the name must be valid and free.
 */
export { createFile } from './writes.ts';

/**
 * Makes folders and their missing parents as `caller` (like `mkdir -p`), all checked before any is
 * made: the nearest existing folder of each must be one `caller` can write.
 */
export { createFolders } from './writes.ts';

/**
 * New bytes for an existing file, written by `write` into its blob. No permission is checked here:
 * the caller checks first (requireAccess with `write`), as the genome export does.
 */
export { replaceContent } from './writes.ts';

const opened = new WeakMap<Kysely<Database>, Map<string, Promise<DataStore>>>();

/**
 * Opens the one DataStore of a database and bytes folder in this process, initialised once.
 * Every service that reads and writes the data store (data-info, the genome service, the apps
 * service's analysis runs) shares it, so that start-up (which clears unfinished writes) runs once
 * and per-object locks are the same locks.
 */
export function openSharedDataStore(
  db: Kysely<Database>,
  options: DataStoreOptions,
): Promise<DataStore> {
  let byDir = opened.get(db);
  if (!byDir) {
    byDir = new Map();
    opened.set(db, byDir);
  }
  let data = byDir.get(options.dir);
  if (!data) {
    const store = new DataStore(db, options);
    data = store.init().then(() => store);
    // A failed init is not kept: the next service to ask tries again.
    data.catch(() => byDir.delete(options.dir));
    byDir.set(options.dir, data);
  }
  return data;
}

/**
 * Checks that `caller` has at least `needed` on `object` (a grant on a folder covers what is below
 * it); ERR_NOT_READABLE, ERR_NOT_WRITEABLE or ERR_NOT_OWNER otherwise.
 */
/**
 * SQL for the search service: the data object whose id and path are these columns is readable by
 * the caller (Visibility.readableFast).
 */
export function readableCondition(
  data: DataStore,
  caller: Caller,
  idColumn: Expression<unknown>,
  pathColumn: Expression<unknown>,
): Promise<RawBuilder<SqlBool>> {
  return visibilityOf(data).readableFast(caller, idColumn, pathColumn);
}

export async function requireAccess(
  data: DataStore,
  caller: Caller,
  object: DataObject,
  needed: Permission,
): Promise<void> {
  await visibilityOf(data).requireLevel(caller, object, needed);
}

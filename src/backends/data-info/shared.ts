import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import { DataStore, type DataStoreOptions } from './store.js';

const opened = new WeakMap<Kysely<Database>, Map<string, Promise<DataStore>>>();

/**
 * The one DataStore of a database and bytes folder in this process, initialised once. Services
 * that read and write the data store besides data-info (the genome service) share it, so that
 * init() (which clears unfinished writes) runs once and per-object locks are the same locks.
 */
export function sharedDataStore(
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

/**
 * The data `npm run bench:scale` measures (bench/scale.ts), written straight through the store in
 * batched inserts in one transaction: n files in one folder of the user's home (each with its
 * owner's grant, as the data store makes them; the search's name index kept by migration 026's
 * triggers), all n marked as the user's favourites, and n notifications of three types, a third of
 * them seen.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { openSharedDataStore } from '../src/backends/data-info/index.ts';
import { loadConfig } from '../src/config/index.ts';
import { openStore } from '../src/store/database.ts';

export const user = 'bench';
const words = ['reads', 'assembly', 'notes', 'variants', 'counts', 'alignment', 'summary'];
const types = ['data', 'analysis', 'tool'];
const batch = 500;

export interface Seeded {
  folder: string;
  seedSeconds: number;
}

export async function seed(
  dataDir: string,
  databaseUrl: string | undefined,
  n: number,
): Promise<Seeded> {
  const store = await openStore({ dataDir, databaseUrl });
  try {
    const { dataStore } = loadConfig({ GATEWAY_DATA_DIR: dataDir });
    const data = await openSharedDataStore(store.db, dataStore);
    await data.caller(user); // the home and trash, as on first sight
    const home = data.catalog.basePaths(user).user_home_path;
    const folder = `${home}/items`;
    const started = performance.now();
    const base = Date.UTC(2026, 0, 1);
    const folderId = randomUUID();
    const files = Array.from({ length: n }, (_, i) => {
      const name = `sample-${String(i).padStart(6, '0')}-${words[i % words.length]}.fastq`;
      return {
        id: randomUUID(),
        path: `${folder}/${name}`,
        parent_path: folder,
        name,
        type: 'file' as const,
        owner: user,
        created_at: base + i * 1000,
        modified_at: base + ((i * 7919) % n) * 1000,
        size: (i * 104729) % 1_000_000,
        info_type: 'fastq',
        content_type: 'application/octet-stream',
      };
    });
    await store.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('data_objects')
        .values({
          id: folderId,
          path: folder,
          parent_path: home,
          name: 'items',
          type: 'dir',
          owner: user,
          created_at: base,
          modified_at: base,
          size: 0,
          info_type: '',
        })
        .execute();
      await trx
        .insertInto('data_permissions')
        .values({ object_id: folderId, username: user, permission: 'own' })
        .execute();
      for (let at = 0; at < n; at += batch) {
        const slice = files.slice(at, at + batch);
        await trx.insertInto('data_objects').values(slice).execute();
        await trx
          .insertInto('data_permissions')
          .values(slice.map((file) => ({ object_id: file.id, username: user, permission: 'own' })))
          .execute();
        await trx
          .insertInto('favorites')
          .values(
            slice.map((file, i) => ({
              owner_id: user,
              target_id: file.id,
              target_type: 'file' as const,
              created_on: base + (at + i) * 1000,
            })),
          )
          .execute();
        await trx
          .insertInto('notifications')
          .values(
            slice.map((_, i) => {
              const index = at + i;
              const type = types[index % types.length]!;
              const subject = `notification ${index}`;
              return {
                id: randomUUID(),
                username: user,
                type,
                subject,
                seen: index % 3 === 0,
                deleted: false,
                time_created: base + index * 1000,
                incoming_json: JSON.stringify({ type, user, subject }),
              };
            }),
          )
          .execute();
      }
    });
    const seedSeconds = (performance.now() - started) / 1000;
    // Statistics and, on PostgreSQL, the visibility map, as a live database keeps them
    // (autovacuum runs after a bulk insert; without it every index-only count reads the heap).
    await sql.raw(databaseUrl ? 'vacuum analyze' : 'analyze').execute(store.db);
    // The bulk load written out, as a live database has long done: otherwise the rows measured
    // first run beside PostgreSQL's checkpoint of some 300k new rows, or read SQLite's pages
    // through a WAL holding all of them. (PostgreSQL's CHECKPOINT needs a superuser or, from 15,
    // pg_checkpoint; without either the server's own checkpoint follows in its time.)
    await sql
      .raw(databaseUrl ? 'checkpoint' : 'pragma wal_checkpoint(truncate)')
      .execute(store.db)
      .catch((error: Error) => console.error(`after seeding: ${error.message}`));
    return { folder, seedSeconds };
  } finally {
    await store.close();
  }
}

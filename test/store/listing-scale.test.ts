// Migration 033 on each engine: the paged listing's indexes of a folder's children (in place of
// migration 004's parent index) and the unseen notifications index exist, and the per-folder
// child counters its triggers keep agree with the rows after inserts (one and many per
// statement), moves of a subtree, type filters and deletes; so do the per-user notification
// counters through inserts, marks as seen and deletions.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/database.ts';
import { engines, pgDatabaseUrl, skipWithout } from '../support/postgres.ts';

// Migration 034 replaced the `data_objects_children_*` indexes by `data_objects_page_*`
// (test/backends/data-info/paging-scale.test.ts).
const indexes = [
  'data_objects_page_name',
  'data_objects_page_modified_at',
  'data_objects_page_created_at',
  'data_objects_page_size',
  'notifications_user_unseen',
];

async function withStore(engine: (typeof engines)[number], run: (store: Store) => Promise<void>) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'listing-scale-'));
  const pgDatabase =
    engine === 'postgres' ? await pgDatabaseUrl(process.env.DATABASE_URL!) : undefined;
  const store = await openStore({ dataDir, databaseUrl: pgDatabase?.url });
  try {
    await run(store);
  } finally {
    await store.close();
    await pgDatabase?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function indexNames(store: Store): Promise<string[]> {
  const rows =
    store.engine === 'postgres'
      ? await sql<{
          name: string;
        }>`select indexname as name from pg_indexes where schemaname = current_schema()`.execute(
          store.db,
        )
      : await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'index'`.execute(store.db);
  return rows.rows.map((row) => row.name);
}

/** The counters and the rows' own count, per folder and type, for the folders under `/z`. */
async function countsOf(store: Store) {
  const kept = await store.db
    .selectFrom('data_folder_counts')
    .select(['parent_path', 'type', 'count'])
    .where('count', '<>', 0)
    .where('parent_path', 'like', '/z%')
    .orderBy('parent_path')
    .orderBy('type')
    .execute();
  const counted = await store.db
    .selectFrom('data_objects')
    .select((eb) => ['parent_path', 'type', eb.fn.countAll<number>().as('count')])
    .where('parent_path', 'like', '/z%')
    .groupBy(['parent_path', 'type'])
    .orderBy('parent_path')
    .orderBy('type')
    .execute();
  const plain = (rows: { parent_path: string; type: string; count: unknown }[]) =>
    rows.map((row) => `${row.parent_path} ${row.type} ${Number(row.count)}`);
  return { kept: plain(kept), counted: plain(counted) };
}

const object = (parent: string, name: string, type: 'file' | 'dir' = 'file') => ({
  id: randomUUID(),
  path: `${parent}/${name}`,
  parent_path: parent,
  name,
  type,
  owner: 'alice',
  created_at: 1,
  modified_at: 1,
});

for (const engine of engines) {
  describe(`migration 033 on ${engine}`, { skip: skipWithout(engine) }, () => {
    test('creates the listing indexes', async () => {
      await withStore(engine, async (store) => {
        const names = await indexNames(store);
        for (const name of indexes) assert.ok(names.includes(name), `${name} exists`);
        assert.ok(!names.includes('data_objects_parent'), 'the index they replace is gone');
        assert.ok(!names.includes('data_objects_children_name'), "033's own are gone too");
      });
    });

    test('keeps per-folder child counts through inserts, moves and deletes', async () => {
      await withStore(engine, async (store) => {
        const { db } = store;
        await db
          .insertInto('data_objects')
          .values(object('', 'z', 'dir'))
          .execute();
        await db
          .insertInto('data_objects')
          .values([object('/z', 'a', 'dir'), object('/z', 'b', 'dir'), object('/z', 'one')])
          .execute();
        await db
          .insertInto('data_objects')
          .values(Array.from({ length: 250 }, (_, i) => object('/z/a', `f${i}`)))
          .execute();
        await db
          .insertInto('data_objects')
          .values(object('/z/a', 'sub', 'dir'))
          .execute();
        let counts = await countsOf(store);
        assert.deepEqual(counts.kept, counts.counted);
        assert.ok(counts.kept.includes('/z/a file 250'));

        // A move of 100 files in one statement, then a rename that keeps the folder.
        await db
          .updateTable('data_objects')
          .set({ parent_path: '/z/b' })
          .where('parent_path', '=', '/z/a')
          .where('name', 'like', 'f1%')
          .execute();
        await db
          .updateTable('data_objects')
          .set({ name: 'uno', path: '/z/uno', modified_at: 2 })
          .where('path', '=', '/z/one')
          .execute();
        counts = await countsOf(store);
        assert.deepEqual(counts.kept, counts.counted);

        await db.deleteFrom('data_objects').where('parent_path', '=', '/z/b').execute();
        await db.deleteFrom('data_objects').where('path', '=', '/z/a/f0').execute();
        counts = await countsOf(store);
        assert.deepEqual(counts.kept, counts.counted);
        assert.ok(!counts.kept.some((row) => row.startsWith('/z/b ')));
      });
    });

    test('keeps per-user notification counts through inserts, marks and deletions', async () => {
      await withStore(engine, async (store) => {
        const { db } = store;
        const user = `u${randomUUID().slice(0, 8)}`;
        await db
          .insertInto('notifications')
          .values(
            Array.from({ length: 30 }, (_, i) => ({
              id: randomUUID(),
              username: user,
              type: ['data', 'analysis', 'tool'][i % 3]!,
              subject: `n${i}`,
              seen: i % 5 === 0,
              deleted: false,
              time_created: i,
              incoming_json: '{}',
            })),
          )
          .execute();
        await db
          .updateTable('notifications')
          .set({ seen: true })
          .where('username', '=', user)
          .where('type', '=', 'data')
          .execute();
        await db
          .updateTable('notifications')
          .set({ deleted: true })
          .where('username', '=', user)
          .where('subject', 'in', ['n1', 'n2', 'n4'])
          .execute();
        await db.deleteFrom('notifications').where('subject', '=', 'n7').execute();
        const kept = await db
          .selectFrom('notification_counts')
          .select(['type', 'seen', 'count'])
          .where('username', '=', user)
          .where('count', '<>', 0)
          .orderBy('type')
          .orderBy('seen')
          .execute();
        const counted = await db
          .selectFrom('notifications')
          .select((eb) => ['type', 'seen', eb.fn.countAll<number>().as('count')])
          .where('username', '=', user)
          .where('deleted', '=', false)
          .groupBy(['type', 'seen'])
          .orderBy('type')
          .orderBy('seen')
          .execute();
        const plain = (rows: { type: string; seen: unknown; count: unknown }[]) =>
          rows.map((row) => `${row.type} ${Boolean(row.seen)} ${Number(row.count)}`);
        assert.deepEqual(plain(kept), plain(counted));
        assert.equal(plain(kept).length, 5, 'data (all seen), analysis and tool, seen and not');
      });
    });
  });
}

// Migration 034 on each engine: data-info's paged listing picks a page's ids off an index of the
// folder's children holding every key of its order (a deferred join), for every sort field and
// direction, at the first, a middle and the last offset, over names of mixed letter case (where the
// order by path, the byte order of the name, differs from the order by name) and ties on every
// field — each page compared with an order computed here; the pages' id walks read the new
// indexes alone (SQLite: a covering index; PostgreSQL: an index-only scan); the migration's down
// restores migration 033's indexes; on a fresh PostgreSQL database (an empty table) it leaves no
// statistics that would turn the per-row lookups of a first bulk load into sequential scans.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { Lister, type SortDir, type SortField } from '../../../src/backends/data-info/listing.ts';
import * as pageIndexes from '../../../src/store/migrations/034-page-indexes.ts';
import { engines, home, type DataInfoHost } from '../../support/data-info-host.ts';
import {
  children,
  expected,
  insertChildren,
  listPage,
  namesOf,
} from '../../support/listing-order.ts';
import { planOf } from '../../support/postgres.ts';

for (const engine of engines) {
  describe(`paged listing over migration 034's indexes on ${engine.name}`, () => {
    let service: DataInfoHost | undefined;
    const folder = `${home('alice')}/many`;
    const list = children(240, 241);

    before(async () => {
      service = await engine.open();
      if (!service) return;
      await service.folder('alice', folder);
      await insertChildren(service, folder, list);
    });
    after(async () => service?.close());

    // A lister of its own each time: these pages are read as a first visit (no marks).
    const listing = (field: SortField, dir: SortDir, offset: number, limit = 25) =>
      listPage(service!, new Lister(service!.data), folder, { field, dir, offset, limit });

    test('every sort field and direction, first, middle and last pages', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set');
      for (const field of ['name', 'path', 'datecreated', 'datemodified', 'size'] as const)
        for (const dir of ['ASC', 'DESC'] as const) {
          const want = expected(list, field, dir);
          for (const offset of [0, 3, 6, 120, list.length - 25, list.length - 10]) {
            const page = await listing(field, dir, offset);
            const names = namesOf(page);
            assert.deepEqual(names, want.slice(offset, offset + 25), `${field} ${dir} @${offset}`);
            assert.equal(page.total, list.length);
          }
        }
    });

    test('pages follow each other without overlap or gap', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set');
      const seen: string[] = [];
      for (let offset = 0; offset < list.length; offset += 50) {
        const page = await listing('datemodified', 'DESC', offset, 50);
        seen.push(...[...page.folders, ...page.files].map((entry) => entry.path));
      }
      assert.equal(new Set(seen).size, list.length);
      assert.deepEqual(
        seen.map((path) => path.slice(folder.length + 1)),
        expected(list, 'datemodified', 'DESC'),
      );
    });

    test("a page's ids are read off the index alone", async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set');
      const db = service.store.db;
      const postgres = service.store.engine === 'postgres';
      const C = postgres ? sql` collate "C"` : sql``;
      const orders = {
        name: sql`lower(o.name)${C} asc, o.name${C} asc`,
        path: sql`o.name${C} desc`,
        modified_at: sql`o.modified_at desc, lower(o.name)${C}, o.name${C}`,
        size: sql`o.size asc, lower(o.name)${C}, o.name${C}`,
      };
      for (const [index, order] of Object.entries(orders)) {
        const query = sql`select o.id from data_objects o where o.parent_path = ${folder}
          and o.type = 'file' order by ${order} limit 25 offset 100`;
        const plan = await db.connection().execute(async (connection) => {
          if (!postgres)
            return (
              await sql<{ detail: string }>`explain query plan ${query}`.execute(connection)
            ).rows
              .map((row) => row.detail)
              .join('\n');
          // The plan of a table autovacuum has seen to: statistics current and the visibility map
          // set, without which an index-only scan costs as much as visiting every row (the planner
          // then once walked the name index backward and filtered, in a CI run). Autovacuum comes
          // when it will; here it is asked for.
          await sql`vacuum (analyze) data_objects`.execute(connection);
          // A table of 250 rows is cheaper to read whole: ask for the plan an index wins at scale.
          await sql`set enable_seqscan = off`.execute(connection);
          try {
            return (await sql<{ 'QUERY PLAN': string }>`explain ${query}`.execute(connection)).rows
              .map((row) => row['QUERY PLAN'])
              .join('\n');
          } finally {
            await sql`reset enable_seqscan`.execute(connection);
          }
        });
        const wanted = postgres
          ? `Index Only Scan${index === 'path' ? ' Backward' : ''}${index === 'modified_at' ? ' Backward' : ''} using data_objects_page_${index} `
          : `USING COVERING INDEX data_objects_page_${index} `;
        assert.ok(plan.includes(wanted), `${index}: ${plan}`);
      }
    });

    test("down restores migration 033's indexes, up puts 034's back", async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set');
      const db = service.store.db;
      const names = async () => {
        const rows =
          service!.store.engine === 'postgres'
            ? await sql<{
                name: string;
              }>`select indexname as name from pg_indexes where schemaname = current_schema()`.execute(
                db,
              )
            : await sql<{
                name: string;
              }>`select name from sqlite_master where type = 'index'`.execute(db);
        return rows.rows.map((row) => row.name).filter((name) => name.startsWith('data_objects_'));
      };
      await pageIndexes.down(db as never);
      let now = await names();
      assert.ok(now.includes('data_objects_children_name'), now.join());
      assert.ok(!now.some((name) => name.startsWith('data_objects_page_')), now.join());
      assert.ok(!now.includes('data_objects_by_name'), now.join());
      await pageIndexes.up(db as never);
      now = await names();
      for (const order of ['name', 'path', 'modified_at', 'created_at', 'size'])
        assert.ok(now.includes(`data_objects_page_${order}`), now.join());
      assert.ok(now.includes('data_objects_by_name'), now.join());
      assert.ok(!now.includes('data_objects_children_name'), now.join());
      const page = await listing('name', 'ASC', 0, 5);
      assert.deepEqual(namesOf(page), expected(list, 'name', 'ASC').slice(0, 5));
    });
  });
}

describe('a fresh PostgreSQL database after migration 034', () => {
  const postgres = engines.find((engine) => engine.name === 'PostgreSQL');

  test('looks a data object up by path through its index, not a sequential scan', async (t) => {
    const service = await postgres?.open();
    if (!service) return t.skip('DATABASE_URL is not set');
    try {
      const db = service.store.db;
      const empty = await db.selectFrom('data_objects').select('id').limit(1).execute();
      // Only meaningful while the table is as the migration left it on a new database.
      if (empty.length > 0) return t.skip('the migrated database already holds data objects');
      const text = await planOf(db, sql`select 1 from data_objects where path = ${'/platform/x'}`);
      assert.doesNotMatch(text, /Seq Scan/, text);
    } finally {
      await service.close();
    }
  });
});

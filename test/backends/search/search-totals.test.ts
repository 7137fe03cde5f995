// The data search's bounded total and its first pages over many hits (issue 20), on each engine:
// without track_total_hits `total` is exact up to 1,000 hits or the end of the page asked for and
// one more, past that a lower bound (`total_relation` `gte`); `track_total_hits: true` counts every
// hit, a number counts that many; bad values are 400s naming the field. The pages of a common word
// (read in name order off the catalog on both engines) are the hits computed here, never another
// user's private file, in any letter case; a sparse word's pages too (found through the name index).
// First pages by date modified, date created or size, either way, are read off the catalog in that
// order too, through its index. A walk whose first tenth holds too few hits reads nothing more; a
// walked count that read the whole catalog is exact, and on SQLite one whose rowid range deleted
// rows left too thin is counted again. A page that is not full gives the total without a count.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, createQueryId, sql } from 'kysely';
import { DataStore } from '../../../src/backends/data-info/store.ts';
import { readSearchRequest } from '../../../src/backends/search/request.ts';
import { search as searchStore } from '../../../src/backends/search/search.ts';
import { withUser } from '../../support/backend-host.ts';
import { engines, home, type DataInfoHost } from '../../support/data-info-host.ts';

interface Answer {
  total: number;
  total_relation: 'eq' | 'gte';
  hits: { _source: { path: string; label: string } }[];
}

const bytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

for (const engine of engines) {
  describe(`search totals and pages over many hits on ${engine.name}`, () => {
    let service: DataInfoHost | undefined;
    const a = home('alice');
    const b = home('bob');
    /** alice's objects inserted. */
    const objects: {
      path: string;
      name: string;
      id: string;
      created_at: number;
      modified_at: number;
      size: number;
    }[] = [];

    before(async () => {
      service = await engine.open(1024 * 1024, ['metadata', 'search']);
      if (!service) return;
      await service.folder('alice', `${a}/many`);
      await service.folder('bob', `${b}/private`);
      const rows: {
        id: string;
        path: string;
        parent_path: string;
        name: string;
        type: 'file';
        owner: string;
        created_at: number;
        modified_at: number;
        size: number;
      }[] = [];
      // Dates and sizes in an order of their own, each value shared by a dozen objects or more
      // (their ties are ordered by id).
      const add = (folder: string, owner: string, name: string) => {
        const id = randomUUID();
        const at = rows.length;
        const times = {
          created_at: 2000 + ((at * 53) % 400),
          modified_at: 1000 + ((at * 37) % 400),
        };
        const row = { id, path: `${folder}/${name}`, name, ...times, size: (at * 71) % 450 };
        rows.push({ ...row, parent_path: folder, type: 'file', owner });
        if (owner === 'alice') objects.push(row);
      };
      // 2,100 of alice's names hold "common" (some in capitals), 3,000 do not; bob's private
      // "common" files sort first by name and must never be hits; "sparse" names sort last.
      for (let i = 0; i < 5100; i++) {
        const n = String(i).padStart(4, '0');
        if (i % 17 === 0) add(`${a}/many`, 'alice', `m${n}-COMMON.txt`);
        else if (i < 2100 + Math.floor(2100 / 16)) add(`${a}/many`, 'alice', `m${n}-common.txt`);
        else add(`${a}/many`, 'alice', `m${n}-other.txt`);
      }
      for (let i = 0; i < 300; i++) add(`${b}/private`, 'bob', `a${i}-common.txt`);
      for (let i = 0; i < 150; i++) add(`${a}/many`, 'alice', `z${i}-sparse.txt`);
      const db = service.store.db;
      for (let at = 0; at < rows.length; at += 500)
        await db
          .insertInto('data_objects')
          .values(rows.slice(at, at + 500))
          .execute();
    });
    after(async () => service?.close());

    const search = async (body: object) => {
      const answer = await service!.request('POST', withUser('/search/data/search', 'alice'), {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return answer;
    };
    const ok = async (body: object): Promise<Answer> => {
      const answer = await search(body);
      assert.equal(answer.status, 200, answer.text);
      return answer.json() as Answer;
    };
    const word = (text: string) => ({ all: [{ type: 'label', args: { label: text } }] });
    /** alice's objects whose names hold `text` in any letter case, by name (bytes) then id. */
    const hitsOf = (text: string) =>
      objects
        .filter((object) => object.name.toLowerCase().includes(text))
        .sort((x, y) => bytes(x.name, y.name) || bytes(x.id, y.id))
        .map((object) => object.path);
    const paths = (answer: Answer) => answer.hits.map((hit) => hit._source.path);
    /** A search as alice through search() over a store recording each statement and its rows. */
    const recorded = async (body: object) => {
      const statements: (CompiledQuery & { rows?: number })[] = [];
      const db = service!.store.db;
      const recording = db.withPlugin({
        transformQuery: ({ node }) => {
          statements.push({ ...db.getExecutor().compileQuery(node, createQueryId()) });
          return node;
        },
        transformResult: async ({ result }) => {
          // Statements run one at a time here: a result answers the last one recorded.
          statements[statements.length - 1]!.rows = result.rows.length;
          return result;
        },
      });
      const data = new DataStore(recording, service!.config.dataStore);
      const answer = await searchStore(data, await data.caller('alice'), readSearchRequest(body));
      return { answer, statements };
    };
    const counts = (statements: CompiledQuery[]) =>
      statements.filter((statement) => /count\(\*\) as total/.test(statement.sql)).length;
    /** The statement reading the first rows of the catalog in the search's order. */
    const walkOf = (statements: (CompiledQuery & { rows?: number })[]) =>
      statements.find((statement) =>
        /from\s+\(select \* from data_objects o order by/.test(statement.sql),
      );

    test('the total is exact up to its bound, then a lower bound', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const all = hitsOf('common');
      assert.ok(all.length > 2000, `${all.length} hits`);
      const first = await ok({ query: word('common'), size: 100 });
      assert.equal(first.total, 1000);
      assert.equal(first.total_relation, 'gte');
      assert.deepEqual(paths(first), all.slice(0, 100));
      // Deeper pages count to their end and one more: a client paging by total reaches them all.
      const deep = await ok({ query: word('common'), size: 100, from: 1000 });
      assert.equal(deep.total, 1101);
      assert.equal(deep.total_relation, 'gte');
      assert.deepEqual(paths(deep), all.slice(1000, 1100));
      const last = await ok({ query: word('common'), size: 100, from: all.length - 50 });
      assert.equal(last.total, all.length);
      assert.equal(last.total_relation, 'eq');
      assert.deepEqual(paths(last), all.slice(all.length - 50));
      // A few hits: exact.
      const sparse = await ok({ query: word('sparse'), size: 10 });
      assert.equal(sparse.total, 150);
      assert.equal(sparse.total_relation, 'eq');
    });

    test('a page that is not full gives the total: no count is run', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const run = async (body: object) => {
        const { answer, statements } = await recorded(body);
        return [answer.total, answer.total_relation, answer.hits.length, counts(statements)];
      };
      const sparse = hitsOf('sparse').length;
      assert.deepEqual(await run({ query: word('sparse'), size: 100, from: 100 }), [
        sparse,
        'eq',
        sparse - 100,
        0,
      ]);
      assert.deepEqual(await run({ query: word('nowhere'), size: 10 }), [0, 'eq', 0, 0]);
      // A full page, or an empty one past the first, cannot tell: counted.
      assert.deepEqual(await run({ query: word('sparse'), size: 100 }), [sparse, 'eq', 100, 1]);
      assert.deepEqual(await run({ query: word('sparse'), size: 10, from: 200 }), [
        sparse,
        'eq',
        0,
        1,
      ]);
      assert.deepEqual(await run({ query: word('sparse'), size: 0 }), [sparse, 'eq', 0, 1]);
    });

    test('track_total_hits: true counts every hit, a number that many', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const all = hitsOf('common');
      const exact = await ok({ query: word('common'), size: 5, track_total_hits: true });
      assert.equal(exact.total, all.length);
      assert.equal(exact.total_relation, 'eq');
      assert.deepEqual(paths(exact), all.slice(0, 5));
      const ten = await ok({ query: word('common'), size: 5, track_total_hits: 10 });
      assert.deepEqual([ten.total, ten.total_relation], [10, 'gte']);
      assert.deepEqual(paths(ten), all.slice(0, 5));
      const enough = await ok({ query: word('common'), size: 5, track_total_hits: 5000 });
      assert.deepEqual([enough.total, enough.total_relation], [all.length, 'eq']);
      const none = await ok({ query: word('common'), size: 5, track_total_hits: 0 });
      assert.deepEqual([none.total, none.total_relation], [0, 'gte']);
      assert.deepEqual(paths(none), all.slice(0, 5));
      const nothing = await ok({ query: word('nowhere'), track_total_hits: 0 });
      assert.deepEqual([nothing.total, nothing.total_relation, nothing.hits], [0, 'eq', []]);
      for (const bad of ['yes', -1, 1.5, false, {}]) {
        const answer = await search({ query: word('common'), track_total_hits: bad });
        assert.equal(answer.status, 400, JSON.stringify(bad));
        assert.equal(answer.json().error_code, 'ERR_BAD_OR_MISSING_FIELD');
        assert.equal(answer.json().field, 'track_total_hits');
      }
    });

    test('first pages over many hits follow the order, in any letter case', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const all = hitsOf('common');
      for (const from of [0, 100, 850]) {
        const byDefault = await ok({ query: word('common'), size: 100, from });
        assert.deepEqual(paths(byDefault), all.slice(from, from + 100), `from ${from}`);
        const byLabel = await ok({
          query: word('CoMmOn'),
          size: 100,
          from,
          sort: [{ field: 'label', order: 'ascending' }],
        });
        assert.deepEqual(paths(byLabel), all.slice(from, from + 100), `label from ${from}`);
      }
      assert.ok(!all.some((path) => path.startsWith(`${b}/`)));
      const descending = await ok({
        query: word('common'),
        size: 100,
        sort: [{ field: 'label', order: 'descending' }],
      });
      const reversed = objects
        .filter((object) => object.name.toLowerCase().includes('common'))
        .sort((x, y) => bytes(y.name, x.name) || bytes(y.id, x.id))
        .map((object) => object.path);
      assert.deepEqual(paths(descending), reversed.slice(0, 100));
      // Hits that lie past the first rows in name order.
      const sparse = await ok({ query: word('sparse'), size: 100, from: 20 });
      assert.deepEqual(paths(sparse), hitsOf('sparse').slice(20, 120));
    });

    test('first pages by date or size are the hits in that order, read off its index', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const db = service.store.db;
      const postgres = engine.name !== 'SQLite';
      const orders = [
        ['dateModified', 'modified_at'],
        ['dateCreated', 'created_at'],
        ['fileSize', 'size'],
      ] as const;
      for (const [field, column] of orders)
        for (const order of ['ascending', 'descending'] as const) {
          const sign = order === 'ascending' ? 1 : -1;
          const all = objects
            .filter((object) => object.name.toLowerCase().includes('common'))
            .sort((x, y) => sign * (x[column] - y[column] || bytes(x.id, y.id)))
            .map((object) => object.path);
          for (const from of [0, 300]) {
            const answer = await ok({
              query: word('common'),
              size: 100,
              from,
              sort: [{ field, order }],
            });
            assert.deepEqual(
              paths(answer),
              all.slice(from, from + 100),
              `${field} ${order} ${from}`,
            );
            assert.deepEqual([answer.total, answer.total_relation], [1000, 'gte']);
          }
          // The page's statement reads the catalog in the order, off the order's index (without
          // it, every hit is read and sorted).
          const { statements } = await recorded({
            query: word('common'),
            size: 100,
            sort: [{ field, order }],
          });
          const walk = walkOf(statements);
          assert.ok(walk, `${field} ${order}: no statement reads the catalog in order`);
          // With statistics, as autovacuum keeps them (without, PostgreSQL guesses a table of a few
          // hundred rows, which it sorts).
          if (postgres) await sql`analyze data_objects`.execute(db);
          const explained = await db.executeQuery(
            CompiledQuery.raw(`explain ${postgres ? '' : 'query plan '}${walk.sql}`, [
              ...walk.parameters,
            ]),
          );
          const plan = JSON.stringify(explained.rows);
          assert.match(
            plan,
            new RegExp(`data_objects_by_${column}\\b`),
            `${field} ${order}: ${plan}`,
          );
        }
    });

    test('a walk whose first tenth holds too few hits reads no row', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      // "m1" names are alice's m1000–m1999: 700 of them within the first 2,000 rows by name, none
      // in the first 200 (bob's private files). The walk would have filled the page; the probe
      // sends the search to the name index instead, with the same page.
      const { answer, statements } = await recorded({ query: word('m1'), size: 100 });
      assert.equal(walkOf(statements)?.rows, 0);
      assert.deepEqual(paths(answer as Answer), hitsOf('m1').slice(0, 100));
      // Where the first tenth holds them, the walk reads the page.
      const dense = await recorded({
        query: word('m1'),
        size: 100,
        sort: [{ field: 'dateModified', order: 'descending' }],
      });
      assert.equal(walkOf(dense.statements)?.rows, 100);
    });

    test('a walked count that read the whole catalog is exact: counted once', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      // The catalog's 5,550 rows are fewer than the walked count may read (20,020); "m0" has
      // 1,000 hits, not past the bound, so the count says so without a second, exact count.
      const byDate = {
        query: word('m0'),
        size: 100,
        sort: [{ field: 'dateCreated', order: 'ascending' }],
      };
      const { answer, statements } = await recorded(byDate);
      assert.ok(walkOf(statements)?.rows === 100, 'the page is walked');
      assert.deepEqual([answer.total, answer.total_relation, counts(statements)], [1000, 'eq', 1]);
    });

    test('on SQLite, a count whose rowid range holds too few rows is counted again', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      if (engine.name !== 'SQLite') return t.skip("the rowid range is SQLite's");
      // Deleted rows leave gaps in the rowids: here all but the first 1,000 rows move 100,000 up,
      // so the walked count's range (20,020 rowids) holds 1,000 rows, too few to tell 1,000 hits
      // from more. The total must still be the bound, as a lower bound.
      const db = service.store.db;
      const move = (by: number) =>
        sql`update data_objects set rowid = rowid + ${by}
          where rowid >= (select min(rowid) from data_objects) + 1000`.execute(db);
      await move(100_000);
      try {
        const { answer, statements } = await recorded({
          query: word('common'),
          size: 100,
          sort: [{ field: 'dateModified', order: 'ascending' }],
        });
        assert.equal(walkOf(statements)?.rows, 100);
        assert.deepEqual(
          [answer.total, answer.total_relation, counts(statements)],
          [1000, 'gte', 2],
        );
      } finally {
        await move(-100_000);
      }
    });
  });
}

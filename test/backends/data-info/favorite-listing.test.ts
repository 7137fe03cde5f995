// data-info's `/favorite-lister` over migration 035, through the gateway's favourites listing (real
// HTTP, metadata and data-info embedded), on both engines: the page is walked off the sort keys
// kept in `favorites` and the total is `favorite_counts` minus the unreadable favourites found
// outside the caller's granted folders. Checked against an order computed here from `data_objects`
// itself: every sort field in both directions, pages across the folders/files boundary, entity-type
// and info-type filters; a renamed, moved (with its folder) or changed object listed under its new
// keys; an object in the caller's trash still listed, one deleted for good gone from page and
// total; favourites made unreadable (a file unshared, a shared folder in its owner's trash, a folder
// unshared) gone from page and total; the counts always equal to a count of the favourites; and
// the migration on a database with favourites already marked (down, mark, up); on a fresh
// PostgreSQL database it leaves no statistics that would turn lookups into sequential scans.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../src/store/schema.ts';
import * as favoriteKeys from '../../../src/store/migrations/035-favorite-keys.ts';
import { engines as dataInfoEngines } from '../../support/data-info-host.ts';
import { planOf } from '../../support/postgres.ts';
import { startMetadataGateway, type MetadataGateway } from '../../support/metadata-gateway.ts';

interface Row {
  id: string;
  path: string;
  name: string;
  type: string;
  size: number;
  created_at: number;
  modified_at: number;
  info_type: string;
}

const columns = ['NAME', 'ID', 'LASTMODIFIED', 'DATECREATED', 'SIZE'] as const;

/** The listing's order: folders first, the column, then case-folded name, name, id ascending. */
function expectedOrder(rows: Row[], column: string, direction: 'ASC' | 'DESC'): string[] {
  const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  const key: Record<string, (row: Row) => string | number> = {
    NAME: (row) => row.name.toLowerCase(),
    ID: (row) => row.path,
    LASTMODIFIED: (row) => Number(row.modified_at),
    DATECREATED: (row) => Number(row.created_at),
    SIZE: (row) => Number(row.size),
  };
  const sign = direction === 'ASC' ? 1 : -1;
  return [...rows]
    .sort(
      (a, b) =>
        compare(a.type === 'dir' ? 0 : 1, b.type === 'dir' ? 0 : 1) ||
        sign * compare(key[column]!(a), key[column]!(b)) ||
        (column === 'NAME' ? sign * compare(a.name, b.name) : 0) ||
        compare(a.name.toLowerCase(), b.name.toLowerCase()) ||
        compare(a.name, b.name) ||
        compare(a.id, b.id),
    )
    .map((row) => row.id);
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`favourites listing over kept keys and counts (${engine})`, () => {
    let g: MetadataGateway | undefined;
    let db: Kysely<Database>;
    /** The favourites alice should see. */
    const readable = new Set<string>();
    let home = '';
    let bobHome = '';
    const ids: Record<string, string> = {};

    const listing = (query: string) =>
      g!.ok('alice', 'GET', `/secured/favorites/filesystem?${query}`);
    const uuids = (body: any) =>
      [...body.filesystem.folders, ...body.filesystem.files].map((item: any) => item.uuid);
    const mark = async (id: string) =>
      assert.equal(
        (await g!.call('alice', 'PUT', `/secured/favorites/filesystem/${id}`)).status,
        200,
      );
    /** The objects of `readable`, as data_objects holds them now. */
    const rowsNow = async (): Promise<Row[]> =>
      (await db
        .selectFrom('data_objects')
        .select(['id', 'path', 'name', 'type', 'size', 'created_at', 'modified_at', 'info_type'])
        .where('id', 'in', [...readable])
        .execute()) as Row[];

    /** favorite_counts equals a count of the favourites whose object exists. */
    async function assertCountsKept(): Promise<void> {
      const kept = await db
        .selectFrom('favorite_counts')
        .select(['owner_id', 'target_type', 'obj_type', 'count'])
        .where('count', '<>', 0)
        .execute();
      const counted = await db
        .selectFrom('favorites as f')
        .innerJoin('data_objects as o', 'o.id', 'f.target_id')
        .select(({ fn }) => ['f.owner_id', 'f.target_type', 'o.type', fn.countAll().as('count')])
        .groupBy(['f.owner_id', 'f.target_type', 'o.type'])
        .execute();
      const text = (
        rows: { owner_id: string; target_type: string; count: unknown }[],
        type: (row: any) => string,
      ) =>
        rows
          .map((row) => `${row.owner_id} ${row.target_type} ${type(row)} ${Number(row.count)}`)
          .sort();
      assert.deepEqual(
        text(kept, (row) => row.obj_type),
        text(counted, (row) => row.type),
      );
      // The copied keys equal the objects' own.
      const stale = await db
        .selectFrom('favorites as f')
        .innerJoin('data_objects as o', 'o.id', 'f.target_id')
        .select('f.target_id')
        .where((eb) =>
          eb.or([
            eb('f.obj_type', 'is', null),
            eb('f.obj_path', '<>', eb.ref('o.path')),
            eb('f.obj_name', '<>', eb.ref('o.name')),
            eb('f.obj_size', '<>', eb.ref('o.size')),
            eb('f.obj_modified', '<>', eb.ref('o.modified_at')),
          ]),
        )
        .execute();
      assert.deepEqual(stale, []);
    }

    /** Every sort column both ways: the first page, and the whole set paged 3 at a time. */
    async function assertListed(): Promise<void> {
      const rows = await rowsNow();
      for (const column of columns)
        for (const dir of ['ASC', 'DESC'] as const) {
          const expected = expectedOrder(rows, column, dir);
          const first = await listing(`sort-col=${column}&sort-dir=${dir}&limit=100&offset=0`);
          assert.equal(first.filesystem.total, rows.length, `${column} ${dir} total`);
          assert.deepEqual(uuids(first), expected, `${column} ${dir}`);
          const paged: string[] = [];
          for (let offset = 0; offset < rows.length + 3; offset += 3) {
            const page = await listing(
              `sort-col=${column}&sort-dir=${dir}&limit=3&offset=${offset}`,
            );
            assert.equal(page.filesystem.total, rows.length);
            paged.push(...uuids(page));
          }
          assert.deepEqual(paged, expected, `${column} ${dir}, 3 a page`);
        }
      await assertCountsKept();
    }

    before(async () => {
      g = await startMetadataGateway({ engine });
      if (!g) return;
      db = g.running.gateway.store.db;
      home = g.home('alice');
      bobHome = g.home('bob');
      const names = [
        'b-file.txt',
        'C-file.txt',
        'a-file.txt',
        'c-file.txt',
        'Delta.csv',
        'echo.fa',
      ];
      await g.folder('alice', `${home}/keep`);
      for (const [index, name] of names.entries()) {
        const file = await g.upload('alice', `${home}/keep`, name, 'x'.repeat(index % 3));
        ids[name] = file.id;
        await db
          .updateTable('data_objects')
          .set({
            created_at: 1000 + (index % 2),
            modified_at: 5000 - (index % 3),
            info_type: name.endsWith('.csv') ? 'csv' : name.endsWith('.fa') ? 'fasta' : '',
          })
          .where('id', '=', file.id)
          .execute();
      }
      for (const name of ['Sub', 'other', 'archive']) {
        ids[name] = (await g.folder('alice', `${home}/keep/${name}`)).id;
      }
      ids.inner = (await g.upload('alice', `${home}/keep/Sub`, 'inner.txt', 'inner')).id;
      // bob's: a folder shared with alice (a granted root of hers), one file shared alone, a
      // folder shared that he will put in his trash.
      await g.folder('bob', `${bobHome}/proj`);
      ids.p1 = (await g.upload('bob', `${bobHome}/proj`, 'p1.txt', 'p')).id;
      ids.lone = (await g.upload('bob', bobHome, 'lone.txt', 'l')).id;
      await g.folder('bob', `${bobHome}/gone`);
      ids.g1 = (await g.upload('bob', `${bobHome}/gone`, 'g1.txt', 'g')).id;
      ids.proj = (await g.stat('bob', `${bobHome}/proj`)).id;
      await g.ok('bob', 'POST', '/secured/share', {
        json: {
          sharing: [
            {
              user: 'alice',
              paths: [`${bobHome}/proj`, `${bobHome}/lone.txt`, `${bobHome}/gone`].map((path) => ({
                path,
                permission: 'read',
              })),
            },
          ],
        },
      });
      for (const name of [
        ...names,
        'Sub',
        'other',
        'archive',
        'inner',
        'p1',
        'lone',
        'g1',
        'proj',
      ]) {
        await mark(ids[name]!);
        readable.add(ids[name]!);
      }
      // Marking again changes nothing.
      await mark(ids['a-file.txt']!);
    });
    after(async () => g?.close());

    test('every sort field both ways, pages across the folders/files boundary, the total', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      await assertListed();
    });

    test('entity-type and info-type filters, totals counting what passes', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const rows = await rowsNow();
      const files = rows.filter((row) => row.type === 'file');
      const onlyFiles = await listing(
        'entity-type=FILE&sort-col=NAME&sort-dir=ASC&limit=4&offset=2',
      );
      assert.equal(onlyFiles.filesystem.total, files.length);
      assert.deepEqual(uuids(onlyFiles), expectedOrder(files, 'NAME', 'ASC').slice(2, 6));
      const folders = rows.filter((row) => row.type === 'dir');
      const onlyFolders = await listing(
        'entity-type=folder&sort-col=size&sort-dir=desc&limit=100&offset=1',
      );
      assert.equal(onlyFolders.filesystem.total, folders.length);
      assert.deepEqual(uuids(onlyFolders), expectedOrder(folders, 'SIZE', 'DESC').slice(1));
      const typed = rows.filter(
        (row) => row.type === 'dir' || ['csv', 'fasta'].includes(row.info_type),
      );
      const answer = await listing(
        'sort-col=NAME&sort-dir=DESC&limit=100&offset=0&info-type=csv&info-type=fasta',
      );
      assert.equal(answer.filesystem.total, typed.length);
      assert.deepEqual(uuids(answer), expectedOrder(typed, 'NAME', 'DESC'));
      const paged = await listing('sort-col=NAME&sort-dir=DESC&limit=2&offset=4&info-type=csv');
      const csv = rows.filter((row) => row.type === 'dir' || row.info_type === 'csv');
      assert.equal(paged.filesystem.total, csv.length);
      assert.deepEqual(uuids(paged), expectedOrder(csv, 'NAME', 'DESC').slice(4, 6));
    });

    test('a renamed, moved or changed object is listed under its new name, path and keys', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      await g.ok('alice', 'POST', '/secured/filesystem/rename', {
        json: { source: `${home}/keep/a-file.txt`, dest: `${home}/keep/zz-file.txt` },
      });
      // The folder moves with the favourite inside it: every path below it changes.
      await g.ok('alice', 'POST', '/secured/filesystem/move', {
        json: { sources: [`${home}/keep/Sub`], dest: `${home}/keep/other` },
      });
      await db
        .updateTable('data_objects')
        .set({ size: 999, modified_at: 1 })
        .where('id', '=', ids['echo.fa']!)
        .execute();
      const renamed = await listing(
        'entity-type=FILE&sort-col=NAME&sort-dir=DESC&limit=1&offset=0',
      );
      assert.equal(renamed.filesystem.files[0].label, 'zz-file.txt');
      assert.equal(renamed.filesystem.files[0].id, `${home}/keep/zz-file.txt`);
      await assertListed();
    });

    test('in the trash a favourite stays listed; deleted for good it leaves page and total', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      await g.ok('alice', 'POST', '/secured/filesystem/delete', {
        json: { paths: [`${home}/keep/b-file.txt`] },
      });
      await assertListed();
      const trashed = (await listing('entity-type=FILE&sort-col=ID&sort-dir=DESC&limit=1&offset=0'))
        .filesystem;
      assert.equal(trashed.files[0].uuid, ids['b-file.txt']);
      assert.match(trashed.files[0].path, new RegExp(`^${g.trash('alice')}/`));
      await g.ok('alice', 'DELETE', '/secured/filesystem/trash', { raw: '{}' });
      readable.delete(ids['b-file.txt']!);
      await assertListed();
      // Deleted straight in the store (whichever code deletes).
      await db.deleteFrom('data_objects').where('id', '=', ids['C-file.txt']!).execute();
      readable.delete(ids['C-file.txt']!);
      await assertListed();
    });

    test('favourites the caller can no longer read leave page and total', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      // A file shared alone (outside every folder granted to alice), unshared.
      await g.ok('bob', 'POST', '/secured/unshare', {
        json: { unshare: [{ user: 'alice', paths: [`${bobHome}/lone.txt`] }] },
      });
      readable.delete(ids.lone!);
      await assertListed();
      // A shared folder moved to its owner's trash: another user's trash is never shown, even
      // below a folder granted to alice.
      await g.ok('bob', 'POST', '/secured/filesystem/delete', {
        json: { paths: [`${bobHome}/gone`] },
      });
      readable.delete(ids.g1!);
      await assertListed();
      // A shared folder unshared: the folder and what alice marked inside it.
      await g.ok('bob', 'POST', '/secured/unshare', {
        json: { unshare: [{ user: 'alice', paths: [`${bobHome}/proj`] }] },
      });
      readable.delete(ids.p1!);
      readable.delete(ids.proj!);
      await assertListed();
      // Removing a favourite counts too.
      await g.ok('alice', 'DELETE', `/secured/favorites/filesystem/${ids['Delta.csv']}`);
      readable.delete(ids['Delta.csv']!);
      await assertListed();
    });

    test('migration 035 on a database with favourites already marked: keys copied, counts made', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      await favoriteKeys.down(db as Kysely<unknown>);
      await db
        .insertInto('favorites')
        .values({
          owner_id: 'alice',
          target_id: ids['Delta.csv']!,
          target_type: 'file',
          created_on: Date.now(),
        })
        .execute();
      readable.add(ids['Delta.csv']!);
      await favoriteKeys.up(db as Kysely<unknown>);
      await assertListed();
    });
  });
}

describe('a fresh PostgreSQL database after migration 035', () => {
  const postgres = dataInfoEngines.find((engine) => engine.name === 'PostgreSQL');

  test("looks an object's favourites up through their index, not a sequential scan", async (t) => {
    const service = await postgres?.open();
    if (!service) return t.skip('DATABASE_URL is not set');
    try {
      const db = service.store.db;
      const empty = await db.selectFrom('favorites').select('target_id').limit(1).execute();
      // Only meaningful while the table is as the migration left it on a new database: no
      // statistics saying "empty", which would make every object written scan the favourites.
      if (empty.length > 0) return t.skip('the migrated database already holds favourites');
      const text = await planOf(
        db,
        sql`update favorites set obj_size = 1 where target_id = ${'x'}`,
      );
      assert.doesNotMatch(text, /Seq Scan/, text);
    } finally {
      await service.close();
    }
  });
});

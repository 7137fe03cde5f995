// The paged listing's marks (src/backends/data-info/page-marks.ts) and the folder versions they
// hang on (migration 036), on each engine: deep pages read from marks equal the order computed
// here for every sort field and direction (the same page again, the next page, a page between
// marks, the last page); a page is read from a mark while the version holds (shown by a change
// hidden from the version, which a walk would see and a mark does not) and walked again once the
// version changes; the version changes with every insert, delete, move, rename and change of
// dates or size among a folder's children of one type, and not with a change of other columns;
// migration 036's down leaves 033's counters working without the version. And PageMarks alone:
// the nearest mark at or before an offset, per version, the oldest marks and least recently used
// listings dropped first.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Lister, type SortDir, type SortField } from '../../../src/backends/data-info/listing.ts';
import { PageMarks } from '../../../src/backends/data-info/page-marks.ts';
import * as folderVersions from '../../../src/store/migrations/036-folder-versions.ts';
import { engines, home, type DataInfoHost } from '../../support/data-info-host.ts';
import {
  children,
  expected,
  fileChild,
  insertChildren,
  listPage,
  namesOf,
} from '../../support/listing-order.ts';

for (const engine of engines) {
  describe(`paged listing's marks and folder versions on ${engine.name}`, () => {
    let service: DataInfoHost | undefined;
    const folder = `${home('alice')}/many`;
    const elsewhere = `${home('alice')}/elsewhere`;
    const list = children(1500, 1511);

    before(async () => {
      service = await engine.open();
      if (!service) return;
      await service.folder('alice', folder);
      await service.folder('alice', elsewhere);
      await insertChildren(service, folder, list);
    });
    after(async () => service?.close());

    const listing = async (lister: Lister, field: SortField, dir: SortDir, offset: number) =>
      namesOf(await listPage(service!, lister, folder, { field, dir, offset }));

    const counter = async (parent: string, type: 'file' | 'dir' = 'file') => {
      const row = await service!.store.db
        .selectFrom('data_folder_counts')
        .select(['count', 'version'])
        .where('parent_path', '=', parent)
        .where('type', '=', type)
        .executeTakeFirstOrThrow();
      return { count: Number(row.count), version: String(row.version) };
    };

    test('deep pages from marks follow the order, every field and direction', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set');
      for (const field of ['name', 'path', 'datecreated', 'datemodified', 'size'] as const)
        for (const dir of ['ASC', 'DESC'] as const) {
          const want = expected(list, field, dir);
          const lister = new Lister(service.data);
          // A walk first (no mark yet), then the same page, the next, one between the marks
          // learned, one far past them, and the last.
          for (const offset of [1100, 1100, 1125, 1130, 1400, list.length - 10]) {
            const names = await listing(lister, field, dir, offset);
            assert.deepEqual(names, want.slice(offset, offset + 25), `${field} ${dir} @${offset}`);
          }
        }
    });

    test('a page is read from a mark while the version holds, and walked once it changes', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set');
      const db = service.store.db;
      const lister = new Lister(service.data);
      const before = await listing(lister, 'name', 'ASC', 1200);
      assert.deepEqual(before, expected(list, 'name', 'ASC').slice(1200, 1225));
      // A child that sorts first, its version change undone: a walk would now see every later
      // child one place further; a page read from the mark learned at 1200 starts at that child.
      const { version } = await counter(folder);
      const first = fileChild('!first.txt');
      await insertChildren(service, folder, [first]);
      await db
        .updateTable('data_folder_counts')
        .set({ version } as never)
        .where('parent_path', '=', folder)
        .where('type', '=', 'file')
        .execute();
      assert.deepEqual(await listing(lister, 'name', 'ASC', 1200), before);
      // A real change (the new child renamed) changes the version: the page is walked again.
      await db
        .updateTable('data_objects')
        .set({ name: '!first-renamed.txt', path: `${folder}/!first-renamed.txt` })
        .where('id', '=', first.id)
        .execute();
      const now = [...list, { ...first, name: '!first-renamed.txt' }];
      assert.deepEqual(
        await listing(lister, 'name', 'ASC', 1200),
        expected(now, 'name', 'ASC').slice(1200, 1225),
      );
      await db.deleteFrom('data_objects').where('id', '=', first.id).execute();
    });

    test('the version changes with every change of order among the children, and only then', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set');
      const db = service.store.db;
      const id = randomUUID();
      const name = 'versioned.txt';
      const changes: [string, () => Promise<unknown>, boolean][] = [
        ['insert', () => insertChildren(service!, folder, [fileChild(name, id)]), true],
        [
          'date modified',
          () =>
            db.updateTable('data_objects').set({ modified_at: 2 }).where('id', '=', id).execute(),
          true,
        ],
        [
          'date created',
          () =>
            db.updateTable('data_objects').set({ created_at: 2 }).where('id', '=', id).execute(),
          true,
        ],
        [
          'size',
          () => db.updateTable('data_objects').set({ size: 2 }).where('id', '=', id).execute(),
          true,
        ],
        [
          'rename',
          () =>
            db
              .updateTable('data_objects')
              .set({ name: 'v2.txt', path: `${folder}/v2.txt` })
              .where('id', '=', id)
              .execute(),
          true,
        ],
        [
          'checksum and info type',
          () =>
            db
              .updateTable('data_objects')
              .set({ md5: 'x', info_type: 'csv' })
              .where('id', '=', id)
              .execute(),
          false,
        ],
        [
          'the same date again',
          () =>
            db.updateTable('data_objects').set({ modified_at: 2 }).where('id', '=', id).execute(),
          false,
        ],
      ];
      for (const [change, run, changes_] of changes) {
        const was = await counter(folder);
        await run();
        const is = await counter(folder);
        assert.equal(
          is.version !== was.version,
          changes_,
          `${change}: ${was.version} → ${is.version}`,
        );
        assert.equal(is.count, was.count + (change === 'insert' ? 1 : 0), change);
      }
      const [inFolder, inElsewhere] = [
        await counter(folder),
        await counter(elsewhere).catch(() => undefined),
      ];
      await db
        .updateTable('data_objects')
        .set({ parent_path: elsewhere, path: `${elsewhere}/v2.txt` })
        .where('id', '=', id)
        .execute();
      const moved = await counter(folder);
      assert.notEqual(moved.version, inFolder.version, 'moved out');
      assert.equal(moved.count, inFolder.count - 1);
      const arrived = await counter(elsewhere);
      assert.notEqual(arrived.version, inElsewhere?.version, 'moved in');
      assert.equal(arrived.count, (inElsewhere?.count ?? 0) + 1);
      await db.deleteFrom('data_objects').where('id', '=', id).execute();
      const deleted = await counter(elsewhere);
      assert.notEqual(deleted.version, arrived.version, 'delete');
      assert.equal(deleted.count, arrived.count - 1);
    });

    test("down leaves migration 033's counters without the version; up brings it back", async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set');
      const db = service.store.db;
      const insert = (name: string) => insertChildren(service!, elsewhere, [fileChild(name)]);
      await folderVersions.down(db as never);
      await insert('down.txt');
      const row = await db
        .selectFrom('data_folder_counts')
        .selectAll()
        .where('parent_path', '=', elsewhere)
        .where('type', '=', 'file')
        .executeTakeFirstOrThrow();
      assert.equal('version' in row, false);
      assert.equal(Number(row.count), 1);
      await folderVersions.up(db as never);
      const was = await counter(elsewhere);
      await insert('up.txt');
      const is = await counter(elsewhere);
      assert.equal(is.count, 2);
      assert.notEqual(is.version, was.version);
    });
  });
}

describe('PageMarks', () => {
  const mark = (position: number) => ({ position, keys: [`k${position}`] });

  test('the nearest mark at or before an offset, of the version asked', () => {
    const marks = new PageMarks();
    marks.learn('a', '1', [mark(1000), mark(1099)]);
    marks.learn('a', '1', [mark(1500), mark(1599)]);
    assert.equal(marks.nearest('a', '1', 999), undefined);
    assert.deepEqual(marks.nearest('a', '1', 1000), mark(1000));
    assert.deepEqual(marks.nearest('a', '1', 1400), mark(1099));
    assert.deepEqual(marks.nearest('a', '1', 9999), mark(1599));
    assert.equal(marks.nearest('a', '2', 1400), undefined);
    assert.equal(marks.nearest('b', '1', 1400), undefined);
    // Another version's marks replace the old ones.
    marks.learn('a', '2', [mark(1200)]);
    assert.equal(marks.nearest('a', '1', 1400), undefined);
    assert.deepEqual(marks.nearest('a', '2', 1400), mark(1200));
    assert.equal(marks.nearest('a', '2', 1100), undefined);
  });

  test('keeps the 32 marks learned last, and the 256 listings used last', () => {
    const marks = new PageMarks();
    for (let position = 0; position < 40; position++) marks.learn('a', '1', [mark(position * 10)]);
    assert.deepEqual(marks.nearest('a', '1', 75), undefined); // 0–70 dropped
    assert.deepEqual(marks.nearest('a', '1', 85), mark(80));
    marks.learn('first', '1', [mark(5)]);
    for (let listing = 0; listing < 254; listing++) marks.learn(`l${listing}`, '1', [mark(5)]);
    assert.deepEqual(marks.nearest('a', '1', 85), mark(80)); // used: now the most recent
    marks.learn('one more', '1', [mark(5)]);
    assert.equal(marks.nearest('first', '1', 5), undefined);
    assert.deepEqual(marks.nearest('a', '1', 85), mark(80));
  });
});

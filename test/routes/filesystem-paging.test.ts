// routes.md §12 paged-directory: sort columns and directions in any case, paging, entity and info
// types, `total` — compared with an expectation computed here — on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { q, startDataStoreGateway, type DataStoreGateway } from '../support/data-store.ts';
import { requiredInCi } from '../support/gateway.ts';

interface Item {
  name: string;
  folder: boolean;
  size: number;
}

/** Creation order, names and sizes are three different orders, so every sort column is told apart. */
const items: Item[] = [
  { name: 'kiwi', folder: true, size: 0 },
  { name: 'delta.txt', folder: false, size: 40 },
  { name: 'apple', folder: true, size: 0 },
  { name: 'zulu.csv', folder: false, size: 5 },
  { name: 'bravo.txt', folder: false, size: 300 },
  { name: 'mango', folder: true, size: 0 },
  { name: 'echo.csv', folder: false, size: 1 },
  { name: 'charlie.txt', folder: false, size: 77 },
];

for (const engine of ['sqlite', 'postgres'] as const) {
  const skip =
    engine === 'postgres' && !requiredInCi('DATABASE_URL') ? 'DATABASE_URL is not set' : false;
  describe(`paged-directory on ${engine}`, () => {
    let gw: DataStoreGateway | undefined;
    let folder: string;
    const stats = new Map<string, any>();

    before(async () => {
      gw = await startDataStoreGateway({ engine });
      if (!gw) return;
      folder = `${gw.home('alice')}/paging`;
      await gw.ok('alice', 'POST', '/secured/filesystem/directory/create', {
        json: { path: folder },
      });
      for (const item of items) {
        await sleep(3); // distinct creation times
        if (item.folder)
          await gw.ok('alice', 'POST', '/secured/filesystem/directory/create', {
            json: { path: `${folder}/${item.name}` },
          });
        else await gw.upload('alice', folder, item.name, 'x'.repeat(item.size));
      }
      const answer = await gw.ok('alice', 'POST', '/secured/filesystem/stat', {
        json: { paths: items.map((item) => `${folder}/${item.name}`) },
      });
      for (const item of items) stats.set(item.name, answer.paths[`${folder}/${item.name}`]);
    });
    after(async () => gw?.close());

    /** What the listing should hold: folders first, then files, each sorted. */
    function expected(
      sortKey: (item: Item) => number | string,
      dir: 'asc' | 'desc',
      filter: (item: Item) => boolean = () => true,
    ) {
      // Ties (folder sizes) are broken by name, ascending in both directions, so pages never overlap.
      const compare = (a: Item, b: Item) => {
        const [x, y] = [sortKey(a), sortKey(b)];
        if (x !== y) return (x < y ? -1 : 1) * (dir === 'asc' ? 1 : -1);
        return a.name < b.name ? -1 : 1;
      };
      const selected = items.filter(filter);
      return [
        ...selected.filter((item) => item.folder).sort(compare),
        ...selected.filter((item) => !item.folder).sort(compare),
      ].map((item) => item.name);
    }

    const keys: Record<string, (item: Item) => number | string> = {
      name: (item) => item.name,
      path: (item) => item.name,
      id: (item) => item.name,
      datecreated: (item) => stats.get(item.name)['date-created'],
      datemodified: (item) => stats.get(item.name)['date-modified'],
      lastmodified: (item) => stats.get(item.name)['date-modified'],
      size: (item) => (item.folder ? 0 : item.size),
    };

    async function page(query: string) {
      const body = await gw!.ok(
        'alice',
        'GET',
        `/filesystem/paged-directory?path=${q(folder)}&${query}`,
      );
      return { body, names: [...body.folders, ...body.files].map((entry: any) => entry.label) };
    }

    test('the page object and its entries have the shape clients read', { skip }, async () => {
      const { body } = await page('limit=100');
      const stat = await gw!.stat('alice', folder);
      assert.deepEqual(
        { ...body, folders: undefined, files: undefined },
        {
          id: stat.id,
          path: folder,
          label: 'paging',
          permission: 'own',
          'date-created': stat['date-created'],
          'date-modified': stat['date-modified'],
          'file-size': 0,
          hasSubDirs: true,
          badName: false,
          isFavorite: false,
          infoType: null,
          total: items.length,
          totalBad: 0,
          folders: undefined,
          files: undefined,
        },
      );
      const file = body.files.find((entry: any) => entry.label === 'bravo.txt');
      const fileStat = stats.get('bravo.txt');
      assert.deepEqual(file, {
        id: fileStat.id,
        path: `${folder}/bravo.txt`,
        label: 'bravo.txt',
        infoType: fileStat.infoType,
        isFavorite: false,
        badName: false,
        permission: 'own',
        'date-created': fileStat['date-created'],
        'date-modified': fileStat['date-modified'],
        'file-size': 300,
      });
      const sub = body.folders.find((entry: any) => entry.label === 'kiwi');
      assert.equal(sub.infoType, null);
      assert.equal(sub['file-size'], 0);
      assert.equal(sub.path, `${folder}/kiwi`);
    });

    test(
      'every sort column, both directions, any letter case; sort-field is an alias',
      { skip },
      async () => {
        for (const [column, key] of Object.entries(keys)) {
          for (const dir of ['asc', 'desc'] as const) {
            const want = expected(key, dir);
            for (const [name, columnText, dirText] of [
              ['sort-col', column, dir],
              ['sort-col', column.toUpperCase(), dir.toUpperCase()],
              [
                'SORT-FIELD',
                column[0]!.toUpperCase() + column.slice(1),
                dir[0]!.toUpperCase() + dir.slice(1),
              ],
            ] as const) {
              const { names, body } = await page(
                `limit=100&${name}=${columnText}&sort-dir=${dirText}`,
              );
              assert.deepEqual(names, want, `${name}=${columnText} sort-dir=${dirText}`);
              assert.equal(body.total, items.length);
            }
          }
        }
        const { names } = await page('limit=100');
        assert.deepEqual(names, expected(keys.name!, 'asc'), 'name ascending by default');
        const bad = await gw!.call(
          'alice',
          'GET',
          `/filesystem/paged-directory?path=${q(folder)}&limit=10&sort-col=colour`,
        );
        assert.equal(bad.status, 400);
        assert.equal(bad.body.error_code, 'ERR_BAD_QUERY_PARAMETER');
      },
    );

    test(
      'limit and offset page through the sorted items; total counts the whole folder',
      { skip },
      async () => {
        const all = expected(keys.size!, 'desc');
        const seen: string[] = [];
        for (let offset = 0; offset < items.length; offset += 3) {
          const { body, names } = await page(
            `limit=3&offset=${offset}&sort-col=size&sort-dir=desc`,
          );
          assert.deepEqual(names, all.slice(offset, offset + 3), `offset ${offset}`);
          assert.equal(body.total, items.length, 'total is the whole folder, not the page');
          seen.push(...names);
        }
        assert.deepEqual(seen, all);
        const beyond = await page('limit=5&offset=50');
        assert.deepEqual(beyond.names, []);
        assert.equal(beyond.body.total, items.length);
        const empty = await page('limit=0');
        assert.deepEqual(empty.names, []);

        const missing = await gw!.call(
          'alice',
          'GET',
          `/filesystem/paged-directory?path=${q(folder)}`,
        );
        assert.equal(missing.status, 400);
        assert.equal(missing.body.error_code, 'ERR_MISSING_QUERY_PARAMETER');
        const words = await gw!.call(
          'alice',
          'GET',
          `/filesystem/paged-directory?path=${q(folder)}&limit=ten`,
        );
        assert.equal(words.status, 400);
        const conflicting = await gw!.call(
          'alice',
          'GET',
          `/filesystem/paged-directory?path=${q(folder)}&limit=3&limit=4`,
        );
        assert.equal(conflicting.status, 409);
        assert.equal(conflicting.body.error_code, 'ERR_CONFLICTING_QUERY_PARAMETER_VALUES');
        const repeated = await page('limit=3&limit=3');
        assert.equal(repeated.names.length, 3, 'identical repeats are harmless');
      },
    );

    test(
      'entity-type (any case) and repeated info-type select what is listed and counted',
      { skip },
      async () => {
        const files = await page('limit=100&entity-type=FILE');
        assert.deepEqual(
          files.names,
          expected(keys.name!, 'asc', (item) => !item.folder),
        );
        assert.equal(files.body.total, 5);
        const folders = await page('limit=1&entity-type=folder&sort-dir=DESC');
        assert.deepEqual(folders.names, ['mango']);
        assert.equal(folders.body.total, 3);
        const any = await page('limit=100&entity-type=Any');
        assert.equal(any.body.total, items.length);

        const csvType = stats.get('zulu.csv').infoType;
        const txtType = stats.get('bravo.txt').infoType;
        if (csvType && txtType && csvType !== txtType) {
          const both = await page(
            `limit=100&entity-type=file&info-type=${q(csvType)}&info-type=${q(txtType)}`,
          );
          assert.equal(both.body.total, 5);
          const one = await page(`limit=100&entity-type=file&info-type=${q(csvType)}`);
          assert.deepEqual(one.names, ['echo.csv', 'zulu.csv']);
          assert.equal(one.body.total, 2);
        } else {
          const one = await page(
            `limit=100&entity-type=file&info-type=no-such-type&info-type=other-type`,
          );
          assert.deepEqual(one.names, []);
          assert.equal(one.body.total, 0);
        }
      },
    );

    test(
      'anonymous callers may list community data only; a file is not a folder',
      { skip },
      async () => {
        const community = await gw!.ok(
          null,
          'GET',
          `/filesystem/paged-directory?path=${q(gw!.community)}&limit=10`,
        );
        assert.equal(community.label, 'shared');
        assert.equal(community.permission, 'read');
        assert.equal(community.badName, true, 'the community root is a bad path');
        const private_ = await gw!.call(
          null,
          'GET',
          `/filesystem/paged-directory?path=${q(folder)}&limit=10`,
        );
        assert.equal(private_.status, 401);
        assert.equal(private_.body.error_code, 'ERR_NOT_AUTHORIZED');
        assert.equal(
          (
            await gw!.call(
              null,
              'GET',
              `/secured/filesystem/paged-directory?path=${q(gw!.community)}&limit=10`,
            )
          ).status,
          401,
        );
        const secured = await gw!.ok(
          'alice',
          'GET',
          `/secured/filesystem/paged-directory?path=${q(folder)}&limit=1`,
        );
        assert.equal(secured.total, items.length);

        const file = await gw!.call(
          'alice',
          'GET',
          `/filesystem/paged-directory?path=${q(`${folder}/bravo.txt`)}&limit=10`,
        );
        assert.equal(file.status, 400);
        assert.equal(file.body.error_code, 'ERR_NOT_A_FOLDER');
        const stranger = await gw!.call(
          'bob',
          'GET',
          `/filesystem/paged-directory?path=${q(folder)}&limit=10`,
        );
        assert.equal(stranger.body.error_code, 'ERR_NOT_READABLE');
      },
    );
  });
}

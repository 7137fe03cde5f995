// Favourite files and folders through the gateway (spec "Favorite and favorite collections",
// "Favorites", "Errors" 5): real HTTP, the embedded metadata and data-info services, on both
// database engines. Listings are checked against an order computed here from the fixtures.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';

/** What the test knows of a fixture, enough to compute any listing independently. */
interface Fixture {
  uuid: string;
  path: string;
  name: string;
  type: 'file' | 'dir';
  size: number;
  created: number;
  modified: number;
  infoType: string;
}

const base = Date.UTC(2024, 0, 1);

/** The listing order data-info promises: folders first, then the column, ties by case-folded name, name, id (ascending). */
function expectedOrder(fixtures: Fixture[], column: string, direction: 'asc' | 'desc'): Fixture[] {
  const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  const key: Record<string, (item: Fixture) => string | number> = {
    name: (item) => item.name.toLowerCase(),
    id: (item) => item.path,
    lastmodified: (item) => item.modified,
    datecreated: (item) => item.created,
    size: (item) => item.size,
  };
  const sign = direction === 'asc' ? 1 : -1;
  return [...fixtures].sort(
    (a, b) =>
      compare(a.type === 'dir' ? 0 : 1, b.type === 'dir' ? 0 : 1) ||
      sign * compare(key[column]!(a), key[column]!(b)) ||
      (column === 'name' ? sign * compare(a.name, b.name) : 0) ||
      compare(a.name.toLowerCase(), b.name.toLowerCase()) ||
      compare(a.name, b.name) ||
      compare(a.uuid, b.uuid),
  );
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`favorites (${engine})`, () => {
    let g: MetadataGateway | undefined;
    /** alice's favourites, in her home and one of bob's files shared with her. */
    const favorites: Fixture[] = [];
    let notFavorite: any; // alice's file she did not mark
    let bobsPrivate: any; // bob's file alice cannot read
    let bobsShared: Fixture;

    const listing = (user: string, query: string) =>
      g!.call(user, 'GET', `/secured/favorites/filesystem?${query}`);
    const mark = (user: string, id: string) =>
      g!.call(user, 'PUT', `/secured/favorites/filesystem/${id}`);

    /** Gives an object known times and info type straight in the catalog (the API has no way to set times). */
    const settle = async (
      fixture: Omit<Fixture, 'created' | 'modified'>,
      index: number,
    ): Promise<Fixture> => {
      // Three different orders: by created, by modified, and by name or size.
      const created = base + ((index * 7) % 13) * 60_000;
      const modified = base + ((index * 5) % 13) * 3_600_000;
      await g!.running.gateway.store.db
        .updateTable('data_objects')
        .set({ created_at: created, modified_at: modified, info_type: fixture.infoType })
        .where('id', '=', fixture.uuid)
        .execute();
      return { ...fixture, created, modified };
    };

    before(async () => {
      g = await startMetadataGateway({ engine });
      if (!g) return;
      const home = g.home('alice');
      const files: [string, string, string][] = [
        ['apple.txt', 'a'.repeat(7), ''],
        ['Banana.csv', 'b'.repeat(3), 'csv'],
        ['cherry.fa', 'c'.repeat(11), 'fasta'],
        ['date.txt', 'd'.repeat(1), ''],
        ['Elder.csv', 'e'.repeat(5), 'csv'],
        ['fig.fa', 'f'.repeat(9), 'fasta'],
      ];
      let index = 0;
      for (const [name, content, infoType] of files) {
        const stat = await g.upload('alice', home, name, content);
        favorites.push(
          await settle(
            { uuid: stat.id, path: stat.path, name, type: 'file', size: content.length, infoType },
            index++,
          ),
        );
      }
      for (const name of ['Reports', 'data', 'zeta']) {
        const stat = await g.folder('alice', `${home}/${name}`);
        // A folder with something inside, for file-count and dir-count (filled before its times are set).
        if (name === 'Reports') {
          await g.upload('alice', `${home}/Reports`, 'q1.txt', 'q1');
          await g.folder('alice', `${home}/Reports/2024`);
        }
        favorites.push(
          await settle(
            { uuid: stat.id, path: stat.path, name, type: 'dir', size: 0, infoType: '' },
            index++,
          ),
        );
      }
      notFavorite = await g.upload('alice', home, 'plain.txt', 'not marked');
      bobsPrivate = await g.upload('bob', g.home('bob'), 'private.txt', 'mine');
      const shared = await g.upload('bob', g.home('bob'), 'grape.txt', 'g'.repeat(4));
      bobsShared = await settle(
        {
          uuid: shared.id,
          path: shared.path,
          name: 'grape.txt',
          type: 'file',
          size: 4,
          infoType: 'csv',
        },
        index++,
      );
      favorites.push(bobsShared);
      const sharing = await g.call('bob', 'POST', '/secured/share', {
        json: { sharing: [{ user: 'alice', paths: [{ path: shared.path, permission: 'read' }] }] },
      });
      assert.equal(sharing.status, 200, sharing.text);
      for (const fixture of favorites) {
        const marked = await mark('alice', fixture.uuid);
        assert.equal(marked.status, 200, marked.text);
      }
    });
    after(async () => g?.close());

    test('PUT marks (idempotently) what the caller can read; unknown or unreadable UUIDs are 404', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      assert.equal((await mark('alice', favorites[0]!.uuid)).status, 200);
      assert.equal((await mark('alice', favorites[0]!.uuid.toUpperCase())).status, 200);
      for (const id of [randomUUID(), bobsPrivate.id, 'not-a-uuid']) {
        const refused = await mark('alice', id);
        assert.equal(refused.status, 404, `${id}: ${refused.text}`);
        assert.equal(refused.body.error_code, 'ERR_NOT_FOUND');
      }
      // Nothing was stored for the refused ones.
      const filtered = await g.call('alice', 'POST', '/secured/favorites/filter', {
        json: { filesystem: [bobsPrivate.id, favorites[0]!.uuid] },
      });
      assert.deepEqual(filtered.body, { filesystem: [favorites[0]!.uuid] });
    });

    test('every field of the favourite file and folder objects', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const answer = await listing('alice', 'sort-col=NAME&sort-dir=ASC&limit=100&offset=0');
      assert.equal(answer.status, 200, answer.text);
      const { files, folders, total } = answer.body.filesystem;
      assert.equal(total, favorites.length);
      const cherry = favorites.find((item) => item.name === 'cherry.fa')!;
      assert.deepEqual(
        files.find((item: any) => item.uuid === cherry.uuid),
        {
          id: cherry.path,
          uuid: cherry.uuid,
          path: cherry.path,
          label: 'cherry.fa',
          type: 'file',
          'date-created': cherry.created,
          'date-modified': cherry.modified,
          'file-size': 11,
          'mime-type': files.find((item: any) => item.uuid === cherry.uuid)['mime-type'],
          infoType: 'fasta',
          permission: 'own',
          'share-count': 0,
          isFavorite: true,
        },
      );
      assert.match(
        files.find((item: any) => item.uuid === cherry.uuid)['mime-type'],
        /^[a-z]+\/[\w.+-]+/,
      );
      assert.equal(
        files.find((item: any) => item.name === 'apple.txt' || item.label === 'apple.txt')[
          'mime-type'
        ],
        'text/plain',
      );
      const grape = files.find((item: any) => item.uuid === bobsShared.uuid);
      assert.equal(grape.permission, 'read');
      assert.equal(grape['share-count'], 0);
      const reports = favorites.find((item) => item.name === 'Reports')!;
      const folder = folders.find((item: any) => item.uuid === reports.uuid);
      assert.deepEqual(folder, {
        id: reports.path,
        uuid: reports.uuid,
        path: reports.path,
        label: 'Reports',
        type: 'dir',
        'date-created': folder['date-created'],
        'date-modified': folder['date-modified'],
        'file-size': 0,
        'file-count': 1,
        'dir-count': 1,
        permission: 'own',
        'share-count': 0,
        isFavorite: true,
      });
      assert.equal(typeof folder['date-created'], 'number');
      // Owners see with how many others an entry is shared.
      const bobs = await listing('bob', 'sort-col=name&sort-dir=asc&limit=10&offset=0');
      assert.deepEqual(bobs.body.filesystem, { files: [], folders: [], total: 0 });
      assert.equal((await mark('bob', bobsShared.uuid)).status, 200);
      const shared = (await listing('bob', 'sort-col=name&sort-dir=asc&limit=10&offset=0')).body
        .filesystem;
      assert.equal(shared.files[0]['share-count'], 1);
      assert.equal(shared.files[0].permission, 'own');
      assert.equal(
        (await g.call('bob', 'DELETE', `/secured/favorites/filesystem/${bobsShared.uuid}`)).status,
        200,
      );
    });

    test('sorted by each column in both directions, paged, against an independently computed order', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const columns = ['NAME', 'id', 'LastModified', 'DATECREATED', 'size'];
      for (const column of columns) {
        for (const direction of ['ASC', 'desc'] as const) {
          const expected = expectedOrder(
            favorites,
            column.toLowerCase(),
            direction.toLowerCase() as 'asc' | 'desc',
          ).map((item) => item.uuid);
          const seen: string[] = [];
          for (let offset = 0; offset < favorites.length + 3; offset += 3) {
            const answer = await listing(
              'alice',
              `sort-col=${column}&sort-dir=${direction}&limit=3&offset=${offset}`,
            );
            assert.equal(answer.status, 200, answer.text);
            const { files, folders, total } = answer.body.filesystem;
            assert.equal(total, favorites.length);
            const page = [...folders, ...files].map((item: any) => item.uuid);
            assert.deepEqual(
              page,
              expected.slice(offset, offset + 3),
              `${column} ${direction} offset ${offset}`,
            );
            seen.push(...page);
          }
          assert.deepEqual(seen, expected, `${column} ${direction}`);
        }
      }
      // The alias without /secured answers the same.
      const plain = await g.call(
        'alice',
        'GET',
        '/favorites/filesystem?sort-col=size&sort-dir=desc&limit=2&offset=1',
      );
      assert.deepEqual(
        [...plain.body.filesystem.folders, ...plain.body.filesystem.files].map(
          (item: any) => item.uuid,
        ),
        expectedOrder(favorites, 'size', 'desc')
          .slice(1, 3)
          .map((item) => item.uuid),
      );
    });

    test('entity-type and info-type filters, total counting what passes', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const cases: [string, (item: Fixture) => boolean][] = [
        ['entity-type=FILE', (item) => item.type === 'file'],
        ['entity-type=folder', (item) => item.type === 'dir'],
        ['entity-type=Any', () => true],
        // info-type restricts files; folders pass.
        ['info-type=csv', (item) => item.type === 'dir' || item.infoType === 'csv'],
        [
          'info-type=csv&info-type=fasta&entity-type=file',
          (item) => item.type === 'file' && ['csv', 'fasta'].includes(item.infoType),
        ],
        ['entity-type=folder&info-type=csv', (item) => item.type === 'dir'],
      ];
      for (const [filter, keep] of cases) {
        const wanted = favorites.filter(keep);
        for (const [column, direction] of [
          ['datecreated', 'desc'],
          ['name', 'asc'],
        ] as const) {
          const expected = expectedOrder(wanted, column, direction).map((item) => item.uuid);
          const answer = await listing(
            'alice',
            `${filter}&sort-col=${column}&sort-dir=${direction}&limit=4&offset=1`,
          );
          assert.equal(answer.status, 200, `${filter}: ${answer.text}`);
          const { files, folders, total } = answer.body.filesystem;
          assert.equal(total, wanted.length, filter);
          assert.deepEqual(
            [...folders, ...files].map((item: any) => item.uuid),
            expected.slice(1, 5),
            `${filter} ${column} ${direction}`,
          );
        }
      }
    });

    test('GET: a missing or nonsensical parameter is 400, a conflicting repeat 409', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const good: Record<string, string> = {
        'sort-col': 'name',
        'sort-dir': 'asc',
        limit: '10',
        offset: '0',
      };
      const query = (values: Record<string, string>) =>
        Object.entries(values)
          .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
          .join('&');
      for (const name of Object.keys(good)) {
        const { [name]: _left, ...rest } = good;
        const answer = await listing('alice', query(rest));
        assert.equal(answer.status, 400, `without ${name}: ${answer.text}`);
        assert.equal(answer.body.error_code, 'ERR_MISSING_QUERY_PARAMETER');
      }
      for (const [name, value] of [
        ['sort-col', 'colour'],
        ['sort-col', ''],
        ['sort-dir', 'up'],
        ['limit', '-1'],
        ['limit', 'ten'],
        ['limit', '1.5'],
        ['offset', '-3'],
        ['offset', 'x'],
        ['entity-type', 'dirs'],
      ] as const) {
        const answer = await listing('alice', query({ ...good, [name]: value }));
        assert.equal(answer.status, 400, `${name}=${value}: ${answer.text}`);
        assert.equal(answer.body.error_code, 'ERR_BAD_QUERY_PARAMETER', `${name}=${value}`);
      }
      assert.equal((await listing('alice', `${query(good)}&sort-dir=desc`)).status, 409);
      // Parameter names in any case; unknown parameters and a body are ignored.
      const loud = await g.call(
        'alice',
        'GET',
        '/secured/favorites/filesystem?SORT-COL=name&Sort-Dir=asc&LIMIT=2&offset=0&colour=blue',
      );
      assert.equal(loud.status, 200, loud.text);
      assert.equal(loud.body.filesystem.total, favorites.length);
    });

    test('POST filter answers the favourites among the ids that the caller can read; a bad collection is 400', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const ids = [
        notFavorite.id,
        favorites[1]!.uuid,
        randomUUID(),
        'junk',
        favorites[7]!.uuid.toUpperCase(),
        bobsShared.uuid,
      ];
      const answer = await g.call('alice', 'POST', '/secured/favorites/filter', {
        json: { filesystem: ids },
      });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.body, {
        filesystem: [favorites[1]!.uuid, favorites[7]!.uuid.toUpperCase(), bobsShared.uuid],
      });
      assert.deepEqual(
        (await g.call('alice', 'POST', '/secured/favorites/filter', { json: { filesystem: [] } }))
          .body,
        { filesystem: [] },
      );
      for (const body of [{}, { filesystem: 'x' }, { filesystem: [1, 2] }, [favorites[0]!.uuid]]) {
        const refused = await g.call('alice', 'POST', '/secured/favorites/filter', { json: body });
        assert.equal(refused.status, 400, `${JSON.stringify(body)}: ${refused.text}`);
      }
      assert.equal(
        (await g.call('alice', 'POST', '/secured/favorites/filter', { raw: '{"filesystem": [' }))
          .status,
        400,
      );
    });

    test('every favourite route is 401 without credentials', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const id = favorites[0]!.uuid;
      for (const [method, route] of [
        ['PUT', `/secured/favorites/filesystem/${id}`],
        ['DELETE', `/secured/favorites/filesystem/${id}`],
        ['GET', '/secured/favorites/filesystem?sort-col=name&sort-dir=asc&limit=1&offset=0'],
        ['GET', '/favorites/filesystem?sort-col=name&sort-dir=asc&limit=1&offset=0'],
        ['POST', '/secured/favorites/filter'],
      ] as const) {
        const answer = await g.call(
          null,
          method,
          route,
          method === 'POST' ? { json: { filesystem: [id] } } : {},
        );
        assert.equal(answer.status, 401, `${method} ${route}: ${answer.text}`);
      }
    });

    test('an entry that is no longer readable leaves the listing and the filter; DELETE is 404 unless it was a favourite', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const unshared = await g.call('bob', 'POST', '/secured/unshare', {
        json: { unshare: [{ user: 'alice', paths: [bobsShared.path] }] },
      });
      assert.equal(unshared.status, 200, unshared.text);
      const readable = favorites.filter((item) => item !== bobsShared);
      const answer = await listing('alice', 'sort-col=size&sort-dir=asc&limit=100&offset=0');
      assert.equal(answer.body.filesystem.total, readable.length);
      assert.deepEqual(
        [...answer.body.filesystem.folders, ...answer.body.filesystem.files].map(
          (item: any) => item.uuid,
        ),
        expectedOrder(readable, 'size', 'asc').map((item) => item.uuid),
      );
      assert.deepEqual(
        (
          await g.call('alice', 'POST', '/secured/favorites/filter', {
            json: { filesystem: [bobsShared.uuid] },
          })
        ).body,
        { filesystem: [] },
      );

      // Removing: 200 once, then 404; never-marked and non-UUID ids are 404.
      const target = favorites[2]!.uuid;
      assert.equal(
        (await g.call('alice', 'DELETE', `/secured/favorites/filesystem/${target}`)).status,
        200,
      );
      const again = await g.call('alice', 'DELETE', `/secured/favorites/filesystem/${target}`);
      assert.equal(again.status, 404, again.text);
      assert.equal(again.body.error_code, 'ERR_NOT_FOUND');
      assert.equal(
        (await g.call('alice', 'DELETE', `/secured/favorites/filesystem/${notFavorite.id}`)).status,
        404,
      );
      assert.equal(
        (await g.call('alice', 'DELETE', '/secured/favorites/filesystem/not-a-uuid')).status,
        404,
      );
      assert.equal(
        (await listing('alice', 'sort-col=size&sort-dir=asc&limit=100&offset=0')).body.filesystem
          .total,
        readable.length - 1,
      );
      assert.equal((await mark('alice', target)).status, 200);
    });

    test('a listing over 5,000 favourites costs one data-info call and no metadata call (both embedded)', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const count = 5000;
      const user = 'erin';
      const folder = await g.folder(user, `${g.home(user)}/many`);
      const db = g.running.gateway.store.db;
      const rows = Array.from({ length: count }, (_unused, index) => ({
        id: randomUUID(),
        path: `${folder.path}/item-${String(index).padStart(5, '0')}.dat`,
        parent_path: folder.path,
        name: `item-${String(index).padStart(5, '0')}.dat`,
        type: 'file' as const,
        owner: user,
        created_at: base + index,
        modified_at: base + index,
        // Sizes in a scrambled order, all different.
        size: (index * 7919) % count,
        md5: null,
        content_type: 'application/octet-stream',
        info_type: index % 2 === 0 ? 'even' : 'odd',
        trash_origin: null,
        trashed_at: null,
      }));
      for (let start = 0; start < count; start += 500) {
        const part = rows.slice(start, start + 500);
        await db.insertInto('data_objects').values(part).execute();
        await db
          .insertInto('favorites')
          .values(
            part.map((row, offset) => ({
              owner_id: user,
              target_id: row.id,
              target_type: 'file' as const,
              created_on: base + start + offset,
            })),
          )
          .execute();
      }

      const metadataBefore = await g.backendCalls('metadata');
      const dataInfoBefore = await g.backendCalls('data-info');
      const answer = await listing(
        user,
        'sort-col=SIZE&sort-dir=DESC&limit=50&offset=100&info-type=odd',
      );
      assert.equal(answer.status, 200, answer.text);
      assert.equal((await g.backendCalls('metadata')) - metadataBefore, 0, 'no metadata call');
      assert.equal((await g.backendCalls('data-info')) - dataInfoBefore, 1, 'one data-info call');

      const expected = rows
        .filter((row) => row.info_type === 'odd')
        .sort((a, b) => b.size - a.size)
        .slice(100, 150)
        .map((row) => row.id);
      const { files, folders, total } = answer.body.filesystem;
      assert.equal(total, count / 2);
      assert.deepEqual(folders, []);
      assert.deepEqual(
        files.map((item: any) => item.uuid),
        expected,
      );
      assert.ok(
        files.every(
          (item: any) =>
            item.isFavorite === true && item.infoType === 'odd' && item.permission === 'own',
        ),
      );
    });
  });
}

// routes.md §12: the filesystem routes end to end, through a gateway whose data-info is the
// embedded one. Every answer's shape is asserted as clients read it (clients.md §5.3).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { q, startDataStoreGateway, type DataStoreGateway } from '../support/data-store.ts';
import { requiredInCi } from '../support/gateway.ts';

let gw: DataStoreGateway;
let home: string;

before(async () => {
  gw = (await startDataStoreGateway({ env: { DATA_ZONE: 'lab' } }))!;
  home = gw.home('alice');
});
after(async () => gw?.close());

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function assertNavigationEntry(entry: any, path: string) {
  assert.equal(entry.path, path);
  assert.match(entry.id, uuidPattern);
  assert.equal(typeof entry.label, 'string');
  assert.equal(typeof entry['date-created'], 'number');
  assert.equal(typeof entry['date-modified'], 'number');
  assert.ok(['read', 'write', 'own'].includes(entry.permission), entry.permission);
  assert.equal(entry.hasSubDirs, true);
}

describe('filesystem: navigation', () => {
  test('root lists home, community data, shared with me and trash, each with hasSubDirs', async () => {
    const body = await gw.ok('alice', 'GET', '/secured/filesystem/root');
    assert.deepEqual(body['base-paths'], {
      user_home_path: '/lab/home/alice',
      user_trash_path: '/lab/trash/home/alice',
      base_trash_path: '/lab/trash',
    });
    const byLabel = Object.fromEntries(body.roots.map((root: any) => [root.label, root]));
    assert.deepEqual(Object.keys(byLabel).sort(), [
      'Community Data',
      'Shared With Me',
      'Trash',
      'alice',
    ]);
    assertNavigationEntry(byLabel.alice, '/lab/home/alice');
    assert.equal(byLabel.alice.permission, 'own');
    assertNavigationEntry(byLabel['Community Data'], '/lab/home/shared');
    assertNavigationEntry(byLabel['Shared With Me'], '/lab/home');
    assertNavigationEntry(byLabel.Trash, '/lab/trash/home/alice');
    assert.equal(byLabel.Trash.permission, 'own');
    assert.equal((await gw.call(null, 'GET', '/secured/filesystem/root')).status, 401);
  });

  test('directory without a path answers the roots minus the trash; with one, the folder and its sub-folders', async () => {
    const roots = await gw.ok('alice', 'GET', '/secured/filesystem/directory');
    assert.deepEqual(roots.roots.map((root: any) => root.path).sort(), [
      '/lab/home',
      '/lab/home/alice',
      '/lab/home/shared',
    ]);
    for (const root of roots.roots) assert.equal(root.hasSubDirs, true);

    await gw.ok('alice', 'POST', '/secured/filesystem/directories', {
      json: { paths: [`${home}/nav/one`, `${home}/nav/two`] },
    });
    await gw.upload('alice', `${home}/nav`, 'file.txt', 'not a folder');
    const folder = await gw.ok(
      'alice',
      'GET',
      `/secured/filesystem/directory?path=${q(`${home}/nav`)}`,
    );
    assertNavigationEntry(folder, `${home}/nav`);
    assert.equal(folder.label, 'nav');
    assert.equal(folder.isFavorite, false, 'no metadata service: nothing is a favourite');
    assert.equal(folder.badName, false);
    assert.deepEqual(
      folder.folders.map((child: any) => child.path).sort(),
      [`${home}/nav/one`, `${home}/nav/two`],
      'sub-folders only',
    );
    for (const child of folder.folders) {
      assertNavigationEntry(child, child.path);
      assert.equal(child.isFavorite, false);
      assert.equal(child.badName, false);
      assert.equal(child.folders, undefined);
    }
    const own = await gw.ok('alice', 'GET', `/secured/filesystem/directory?PATH=${q(home)}`);
    assert.equal(
      own.badName,
      true,
      "the caller's home is a bad path: not to be renamed or deleted",
    );

    const missing = await gw.call(
      'alice',
      'GET',
      `/secured/filesystem/directory?path=${q(`${home}/nowhere`)}`,
    );
    assert.equal(missing.body.error_code, 'ERR_DOES_NOT_EXIST');
    assert.ok(missing.status >= 400 && missing.status < 500);
  });
});

describe('filesystem: stat, exists, folders', () => {
  test('stat describes files and folders by path and by id, as clients read them', async () => {
    await gw.ok('alice', 'POST', '/secured/filesystem/directories', {
      json: { paths: [`${home}/stat/inner`] },
    });
    const uploaded = await gw.upload('alice', `${home}/stat`, 'notes.txt', 'hello world\n');
    const body = await gw.ok('alice', 'POST', '/filesystem/stat', {
      json: { paths: [`${home}/stat`, `${home}/stat/notes.txt`] },
    });
    assert.deepEqual(body.ids, {});
    const folder = body.paths[`${home}/stat`];
    assert.equal(folder.type, 'dir');
    assert.equal(folder.label, 'stat');
    assert.equal(folder.permission, 'own');
    assert.equal(folder['share-count'], 0);
    assert.equal(folder['dir-count'], 1);
    assert.equal(folder['file-count'], 1);
    assert.equal(folder.md5, undefined);
    const file = body.paths[`${home}/stat/notes.txt`];
    assert.equal(file.id, uploaded.id);
    assert.equal(file.type, 'file');
    assert.equal(file['file-size'], 12);
    assert.equal(file.md5, '6f5902ac237024bdd0c176cb93063dc4');
    assert.match(file['content-type'], /^text\/plain/);
    assert.equal(typeof file.infoType, 'string');
    assert.equal(typeof file['date-created'], 'number');

    const byId = await gw.ok('alice', 'POST', '/secured/filesystem/stat', {
      json: { ids: [uploaded.id] },
    });
    assert.equal(byId.ids[uploaded.id].path, `${home}/stat/notes.txt`);

    const missing = await gw.call('alice', 'POST', '/filesystem/stat', {
      json: { paths: [`${home}/stat/missing.txt`] },
    });
    assert.equal(missing.body.error_code, 'ERR_DOES_NOT_EXIST');
  });

  test('anonymous stat: community data only, never by id; the /secured path needs a user', async () => {
    const community = await gw.ok(null, 'POST', '/filesystem/stat', {
      json: { paths: [gw.community] },
    });
    assert.equal(community.paths[gw.community].label, 'Community Data');
    assert.equal(community.paths[gw.community].permission, 'read');

    const theirs = await gw.call(null, 'POST', '/filesystem/stat', { json: { paths: [home] } });
    assert.equal(theirs.status, 401);
    assert.equal(theirs.body.error_code, 'ERR_NOT_AUTHORIZED');
    const byId = await gw.call(null, 'POST', '/filesystem/stat', {
      json: { ids: [community.paths[gw.community].id] },
    });
    assert.equal(byId.status, 401, 'never by ids');
    const mixed = await gw.call(null, 'POST', '/filesystem/stat', {
      json: { paths: [gw.community, '/lab/home/shared/../alice'] },
    });
    assert.equal(mixed.status, 400);
    assert.equal(mixed.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
    assert.equal(
      (await gw.call(null, 'POST', '/secured/filesystem/stat', { json: { paths: [gw.community] } }))
        .status,
      401,
    );
  });

  test('exists is true only for what exists and the caller can read', async () => {
    await gw.ok('alice', 'POST', '/secured/filesystem/directories', {
      json: { paths: [`${home}/exists`] },
    });
    const body = await gw.ok('alice', 'POST', '/secured/filesystem/exists', {
      json: { paths: [`${home}/exists`, `${home}/exists/nope`] },
    });
    assert.deepEqual(body, { paths: { [`${home}/exists`]: true, [`${home}/exists/nope`]: false } });
    const bob = await gw.ok('bob', 'POST', '/secured/filesystem/exists', {
      json: { paths: [`${home}/exists`] },
    });
    assert.deepEqual(bob, { paths: { [`${home}/exists`]: false } });
    assert.equal(
      (await gw.call('alice', 'POST', '/secured/filesystem/exists', { json: {} })).body.error_code,
      'ERR_BAD_OR_MISSING_FIELD',
    );
  });

  test('directories makes folders and their parents; directory/create answers the new Stat, ERR_EXISTS naming the path', async () => {
    const made = await gw.ok('alice', 'POST', '/filesystem/directories', {
      json: { paths: [`${home}/mk/b`, `${home}/mk/a/deep`] },
    });
    assert.ok(
      made.paths.includes(`${home}/mk/b`) && made.paths.includes(`${home}/mk/a/deep`),
      JSON.stringify(made),
    );
    assert.deepEqual(made.paths, [...made.paths].sort());

    const stat = await gw.ok('alice', 'POST', '/secured/filesystem/directory/create', {
      json: { path: `${home}/mk/new` },
    });
    assert.equal(stat.path, `${home}/mk/new`);
    assert.equal(stat.label, 'new');
    assert.equal(stat.type, 'dir');
    assert.equal(stat.permission, 'own');
    assert.match(stat.id, uuidPattern);

    const again = await gw.call('alice', 'POST', '/filesystem/directory/create', {
      json: { path: `${home}/mk/new` },
    });
    assert.equal(again.body.error_code, 'ERR_EXISTS');
    assert.equal(again.body.path, `${home}/mk/new`);
    const badChars = await gw.call('alice', 'POST', '/secured/filesystem/directory/create', {
      json: { path: `${home}/mk/it's` },
    });
    assert.equal(badChars.status, 400);
    assert.equal(badChars.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
  });
});

describe('filesystem: rename, move, delete contents', () => {
  test('rename keeps the folder; another folder is ERR_ILLEGAL_ARGUMENT', async () => {
    await gw.ok('alice', 'POST', '/secured/filesystem/directories', {
      json: { paths: [`${home}/rn/other`] },
    });
    const file = await gw.upload('alice', `${home}/rn`, 'old.txt', 'x');
    const answer = await gw.ok('alice', 'POST', '/secured/filesystem/rename', {
      json: { source: `${home}/rn/old.txt`, dest: `${home}/rn/new.txt` },
    });
    assert.equal(answer.user, 'alice');
    assert.equal(answer.source, `${home}/rn/old.txt`);
    assert.equal(answer.dest, `${home}/rn/new.txt`);
    assert.equal(
      (await gw.stat('alice', `${home}/rn/new.txt`)).id,
      file.id,
      'the same object, renamed',
    );
    assert.equal(await gw.stat('alice', `${home}/rn/old.txt`), undefined);

    const across = await gw.call('alice', 'POST', '/filesystem/rename', {
      json: { source: `${home}/rn/new.txt`, dest: `${home}/rn/other/new.txt` },
    });
    assert.equal(across.status, 400);
    assert.equal(across.body.error_code, 'ERR_ILLEGAL_ARGUMENT');
    const clash = await gw.upload('alice', `${home}/rn`, 'taken.txt', 'y');
    const taken = await gw.call('alice', 'POST', '/filesystem/rename', {
      json: { source: `${home}/rn/new.txt`, dest: `${home}/rn/taken.txt` },
    });
    assert.equal(taken.body.error_code, 'ERR_EXISTS');
    assert.equal((await gw.stat('alice', `${home}/rn/taken.txt`)).id, clash.id);
  });

  test('move puts sources into a folder; move-contents empties one folder into another', async () => {
    await gw.ok('alice', 'POST', '/secured/filesystem/directories', {
      json: { paths: [`${home}/mv/from/sub`, `${home}/mv/to`, `${home}/mv/bulk`] },
    });
    await gw.upload('alice', `${home}/mv/from`, 'one.txt', '1');
    await gw.upload('alice', `${home}/mv/from`, 'two.txt', '2');
    const moved = await gw.ok('alice', 'POST', '/filesystem/move', {
      json: { sources: [`${home}/mv/from/one.txt`], dest: `${home}/mv/to` },
    });
    assert.equal(moved.user, 'alice');
    assert.deepEqual(moved.sources, [`${home}/mv/from/one.txt`]);
    assert.equal(moved.dest, `${home}/mv/to`);
    assert.ok(await gw.stat('alice', `${home}/mv/to/one.txt`));

    const contents = await gw.ok('alice', 'POST', '/secured/filesystem/move-contents', {
      json: { source: `${home}/mv/from`, dest: `${home}/mv/bulk` },
    });
    assert.deepEqual([...contents.sources].sort(), [
      `${home}/mv/from/sub`,
      `${home}/mv/from/two.txt`,
    ]);
    assert.equal(contents.dest, `${home}/mv/bulk`);
    assert.ok(await gw.stat('alice', `${home}/mv/bulk/sub`));
    assert.ok(await gw.stat('alice', `${home}/mv/bulk/two.txt`));
    const emptied = await gw.stat('alice', `${home}/mv/from`);
    assert.equal(emptied['file-count'] + emptied['dir-count'], 0);
  });

  test('delete-contents moves what a folder holds to the trash and keeps the folder', async () => {
    await gw.ok('alice', 'POST', '/secured/filesystem/directories', {
      json: { paths: [`${home}/dc/sub`] },
    });
    await gw.upload('alice', `${home}/dc`, 'f.txt', 'f');
    const answer = await gw.ok('alice', 'POST', '/secured/filesystem/delete-contents', {
      json: { path: `${home}/dc` },
    });
    assert.deepEqual([...answer.paths].sort(), [`${home}/dc/f.txt`, `${home}/dc/sub`]);
    for (const [original, trashed] of Object.entries<string>(answer['trash-paths'])) {
      assert.ok(trashed.startsWith('/lab/trash/home/alice/'), trashed);
      assert.equal(await gw.stat('alice', original), undefined);
      assert.ok(await gw.stat('alice', trashed));
    }
    assert.ok(await gw.stat('alice', `${home}/dc`));
  });
});

describe('filesystem: reading files', () => {
  let csv: string;
  before(async () => {
    await gw.ok('alice', 'POST', '/secured/filesystem/directories', {
      json: { paths: [`${home}/read`] },
    });
    await gw.upload('alice', `${home}/read`, 'text.txt', '0123456789abcdefghij');
    await gw.upload('alice', `${home}/read`, 'table.csv', 'name,size\nalpha,1\nbeta,2\n');
    await gw.upload('alice', `${home}/read`, 'table.tsv', 'name\tsize\ngamma\t3\n');
    await gw.upload('alice', `${home}/read`, 'table.pct', '100%off\n');
    csv = `${home}/read/table.csv`;
  });

  test('read-chunk takes numbers as strings (as the web UI sends them)', async () => {
    const chunk = await gw.ok('alice', 'POST', '/filesystem/read-chunk', {
      json: { path: `${home}/read/text.txt`, position: '5', 'chunk-size': '7' },
    });
    assert.equal(chunk.chunk, '56789ab');
    assert.equal(chunk.path, `${home}/read/text.txt`);
    assert.equal(chunk.user, 'alice');
    assert.equal(Number(chunk.start), 5);
    assert.equal(Number(chunk['chunk-size']), 7);
    assert.equal(Number(chunk['file-size']), 20);
    const numbers = await gw.ok('alice', 'POST', '/secured/filesystem/read-chunk', {
      json: { path: `${home}/read/text.txt`, position: 0, 'chunk-size': 3 },
    });
    assert.equal(numbers.chunk, '012');
    const words = await gw.call('alice', 'POST', '/filesystem/read-chunk', {
      json: { path: `${home}/read/text.txt`, position: 'five', 'chunk-size': '7' },
    });
    assert.equal(words.status, 400);
    assert.equal(words.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
  });

  test('read-csv-chunk decodes the percent-encoded separator', async () => {
    const page = await gw.ok('alice', 'POST', '/filesystem/read-csv-chunk', {
      json: { path: csv, separator: '%2C', page: 1, 'chunk-size': '4096' },
    });
    assert.deepEqual(page.csv, [
      { 0: 'name', 1: 'size' },
      { 0: 'alpha', 1: '1' },
      { 0: 'beta', 1: '2' },
    ]);
    assert.equal(page.path, csv);
    assert.equal(Number(page['max-cols']), 2);
    assert.equal(Number(page['number-pages']), 1);
    assert.equal(Number(page.page), 1);
    const tabs = await gw.ok('alice', 'POST', '/secured/filesystem/read-csv-chunk', {
      json: { path: `${home}/read/table.tsv`, separator: '%09', page: '1', 'chunk-size': 4096 },
    });
    assert.deepEqual(tabs.csv[1], { 0: 'gamma', 1: '3' });
    const broken = await gw.call('alice', 'POST', '/filesystem/read-csv-chunk', {
      json: { path: csv, separator: '%E0%A4%A', page: 1, 'chunk-size': 10 },
    });
    assert.equal(broken.status, 400);
    assert.ok(
      ['ERR_BAD_OR_MISSING_FIELD', 'ERR_BAD_QUERY_PARAMETER'].includes(broken.body.error_code),
      broken.text,
    );
    const percent = await gw.ok('alice', 'POST', '/filesystem/read-csv-chunk', {
      json: { path: `${home}/read/table.pct`, separator: '%25', page: 1, 'chunk-size': 100 },
    });
    assert.deepEqual(percent.csv, [{ 0: '100', 1: 'off' }], 'decoded once: %25 is a literal %');
  });

  test('file/manifest names the content type clients test', async () => {
    const manifest = await gw.ok(
      'alice',
      'GET',
      `/filesystem/file/manifest?path=${q(`${home}/read/text.txt`)}`,
    );
    assert.match(manifest['content-type'], /^text\//);
    assert.equal(typeof manifest.infoType, 'string');
    assert.ok(Array.isArray(manifest.urls));
    const secured = await gw.ok('alice', 'GET', `/secured/filesystem/file/manifest?path=${q(csv)}`);
    assert.ok(typeof secured['content-type'] === 'string');
    const stranger = await gw.call('bob', 'GET', `/filesystem/file/manifest?path=${q(csv)}`);
    assert.equal(stranger.body.error_code, 'ERR_NOT_READABLE');
  });

  test('anon-files makes a file readable by anyone, and answers its public URL', async () => {
    const path = `${home}/read/text.txt`;
    // Signed out, a private file is refused as on a route that needs a user (filesystem-anonymous.test.ts).
    assert.equal(
      (
        await gw.call(null, 'POST', '/filesystem/read-chunk', {
          json: { path, position: 0, 'chunk-size': 4 },
        })
      ).body.error_code,
      'ERR_NOT_AUTHORIZED',
    );
    const answer = await gw.ok('alice', 'POST', '/filesystem/anon-files', {
      json: { paths: [path] },
    });
    assert.equal(answer.user, 'alice');
    assert.equal(typeof answer.paths[path], 'string');
    const anonymous = await gw.ok(null, 'POST', '/filesystem/read-chunk', {
      json: { path, position: 0, 'chunk-size': 4 },
    });
    assert.equal(anonymous.chunk, '0123');
    const permissions = await gw.ok('alice', 'POST', '/secured/filesystem/user-permissions', {
      json: { paths: [path] },
    });
    assert.equal(permissions.paths[0].path, path);
    assert.ok(Array.isArray(permissions.paths[0]['user-permissions']));
  });

  test('path-list-creator writes a file listing the paths below the given ones', async () => {
    const dest = `${home}/read/listing.txt`;
    const answer = await gw.ok(
      'alice',
      'POST',
      `/filesystem/path-list-creator?dest=${q(dest)}&recursive=true`,
      { json: { paths: [`${home}/read`] } },
    );
    assert.equal(answer.file.path, dest);
    assert.equal(answer.file.type, 'file');
    const content = await gw.ok('alice', 'POST', '/filesystem/read-chunk', {
      json: { path: dest, position: 0, 'chunk-size': 100000 },
    });
    assert.match(content.chunk, /table\.csv/);
    assert.match(content.chunk, /text\.txt/);
  });
});

/** The index of a fresh user with a known tree: two folders, two files (123 bytes), one trashed file. */
async function checkIndex(gw: DataStoreGateway, zone: string) {
  const fresh = 'ivan';
  const home = gw.home(fresh);
  await gw.ok(fresh, 'POST', '/secured/filesystem/directories', {
    json: { paths: [`${home}/a/b`] },
  });
  await gw.upload(fresh, `${home}/a`, 'one.bin', Buffer.alloc(100));
  await gw.upload(fresh, `${home}/a/b`, 'two.bin', Buffer.alloc(23));
  await gw.upload(fresh, home, 'bin.txt', 'trash me');
  await gw.ok(fresh, 'POST', '/secured/filesystem/delete', {
    json: { paths: [`${home}/bin.txt`] },
  });

  const index = await gw.ok(fresh, 'GET', '/secured/filesystem/index');
  assert.equal(index.user, fresh);
  assert.equal(index.zone, zone);
  assert.deepEqual(index['base-paths'], {
    user_home_path: home,
    user_trash_path: gw.trash(fresh),
    base_trash_path: `/${zone}/trash`,
  });
  assert.equal(index.roots.length, 4);
  for (const root of index.roots) assert.equal(root.hasSubDirs, true);
  assert.deepEqual(index.usage, { files: 2, folders: 2, bytes: 123 });
  assert.deepEqual(index.trash, { items: 1, bytes: 8 });
  assert.equal((await gw.call(null, 'GET', '/secured/filesystem/index')).status, 401);
}

describe('filesystem: index', () => {
  test("summarises the caller's store: paths, roots, usage under the home and the trash", async () => {
    await checkIndex(gw, 'lab');
  });

  test(
    'the same on PostgreSQL',
    { skip: requiredInCi('DATABASE_URL') ? false : 'DATABASE_URL is not set' },
    async () => {
      const pg = (await startDataStoreGateway({ engine: 'postgres' }))!;
      try {
        await checkIndex(pg, 'platform');
      } finally {
        await pg.close();
      }
    },
  );
});

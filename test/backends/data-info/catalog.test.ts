// The data-info catalog (ObjectIndex) directly on each engine: homes prepared once per user, grants that
// cover what lies below them, and share counts; many paths' levels at once, from the folders above
// them when those settle it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { createQueryId } from 'kysely';
import { ObjectIndex, everyone } from '../../../src/backends/data-info/object-index.ts';
import { openStore, type Store } from '../../../src/store/database.ts';
import { requiredInCi } from '../../support/gateway.ts';
import { pgDatabaseUrl } from '../../support/postgres.ts';

/** Homes, grants that cover what lies below them, and share counts: the same on each engine. */
async function exerciseCatalog(store: Store): Promise<void> {
  const catalog = new ObjectIndex(store.db, 'lab', () => 1_700_000_000_000);
  await catalog.prepareUser('alice');
  await catalog.prepareUser('bob');
  await catalog.prepareUser('alice');

  const home = await catalog.byPath('/lab/home/alice');
  assert.equal(home?.type, 'dir');
  assert.equal(home?.owner, 'alice');
  assert.equal(home?.parent_path, '/lab/home');
  assert.equal(home?.created_at, 1_700_000_000_000);
  assert.equal(await catalog.permission('alice', '/lab/home/alice'), 'own');
  assert.equal(await catalog.permission('alice', '/lab/trash/home/alice'), 'own');
  assert.equal(
    await catalog.permission('bob', '/lab/home/alice'),
    undefined,
    "scaffolding passes on no access to others' homes",
  );
  assert.equal(await catalog.permission('bob', '/lab/home'), undefined);
  assert.equal(
    await catalog.permission('bob', '/lab/home/shared/data.csv'),
    'read',
    'community data is readable by everyone',
  );

  const project = await catalog.create({
    path: '/lab/home/alice/project',
    type: 'dir',
    owner: 'alice',
  });
  const file = await catalog.create({
    path: '/lab/home/alice/project/reads.fq',
    type: 'file',
    owner: 'alice',
    size: 12,
    md5: 'abc',
    contentType: 'text/plain',
  });
  await catalog.create({ path: '/lab/home/alice/private.txt', type: 'file', owner: 'alice' });
  assert.equal(file.size, 12);
  assert.equal(file.name, 'reads.fq');
  assert.deepEqual(
    (await catalog.children('/lab/home/alice/project')).map((child) => child.name),
    ['reads.fq'],
  );
  assert.equal((await catalog.byId(file.id))?.path, file.path);
  await assert.rejects(
    catalog.create({ path: '/lab/home/alice/project', type: 'dir', owner: 'alice' }),
    'a path is taken once',
  );

  await catalog.grant(store.db, project.id, 'bob', 'read');
  assert.equal(
    await catalog.permission('bob', '/lab/home/alice/project/reads.fq'),
    'read',
    'a folder share covers its contents',
  );
  assert.equal(
    await catalog.permission('bob', '/lab/home/alice/private.txt'),
    undefined,
    'but not its siblings',
  );
  await catalog.grant(store.db, project.id, 'bob', 'write');
  assert.equal(
    await catalog.permission('bob', '/lab/home/alice/project'),
    'write',
    'a new grant replaces the old one',
  );
  assert.equal(await catalog.permission('alice', '/lab/home/alice/project/reads.fq'), 'own');
  assert.equal(await catalog.shareCount(project), 1);
  assert.equal(await catalog.shareCount(file), 0, 'share-count counts grants on the object itself');

  await catalog.grant(store.db, file.id, everyone, 'read');
  assert.equal(await catalog.permission('carol', file.path), 'read');
  assert.equal(await catalog.permission('carol', project.path), undefined);

  await exerciseManyPaths(store, catalog);
}

/**
 * permissions() for a page of paths: each path's level as permission() gives it, and for paths
 * below a folder the caller owns, one statement over the folders above them, not a parameter per
 * path.
 */
async function exerciseManyPaths(store: Store, catalog: ObjectIndex): Promise<void> {
  const batch = '/lab/home/alice/batch';
  const folder = await catalog.create({ path: batch, type: 'dir', owner: 'alice' });
  const files = [];
  for (let i = 0; i < 30; i++)
    files.push(await catalog.create({ path: `${batch}/f${i}.txt`, type: 'file', owner: 'alice' }));
  await catalog.grant(store.db, folder.id, 'bob', 'read');
  await catalog.grant(store.db, files[3]!.id, 'bob', 'write');
  await catalog.grant(store.db, files[4]!.id, 'bob', 'own');
  const paths = [
    ...files.map((file) => file.path),
    batch,
    '/lab/home/alice/private.txt',
    '/lab/home/alice/project/reads.fq',
    '/lab/home/shared/data.csv',
    '/lab/home/alice/batch/missing.txt',
  ];

  // Each statement the catalog runs, with its bound parameters.
  const statements: { sql: string; parameters: readonly unknown[] }[] = [];
  const executor = store.db.getExecutor();
  const recording = store.db.withPlugin({
    transformQuery: ({ node }) => {
      statements.push(executor.compileQuery(node, createQueryId()));
      return node;
    },
    transformResult: async ({ result }) => result,
  });

  for (const user of ['alice', 'bob', 'carol']) {
    const levels = await catalog.permissions(user, paths);
    for (const path of paths)
      assert.equal(levels.get(path), await catalog.permission(user, path), `${user} on ${path}`);
  }
  // Alice's own things: settled by the folders above them, in one statement.
  const own = paths.filter((path) => path.startsWith('/lab/home/alice/'));
  statements.length = 0;
  const alice = await catalog.permissions('alice', own, recording);
  assert.deepEqual(new Set(alice.values()), new Set(['own']));
  assert.equal(statements.length, 1, 'everything asked lies below her own home');
  assert.ok(
    statements[0]!.parameters.length < 10,
    `the folders above, not each path: ${statements[0]!.parameters.length} parameters`,
  );
  // Bob's are not: the paths themselves are read too.
  statements.length = 0;
  await catalog.permissions('bob', own, recording);
  assert.equal(statements.length, 2, 'the folders above, then the paths not owned');
  const bob = await catalog.permissions('bob', paths);
  assert.deepEqual(
    [files[0], files[3], files[4]].map((file) => bob.get(file!.path)),
    ['read', 'write', 'own'],
    "a file's own grant is stronger than its folder's",
  );
  assert.equal(bob.get('/lab/home/alice/private.txt'), undefined);
  assert.equal((await catalog.permissions('bob', [])).size, 0);
}

describe('data-store catalog', () => {
  test('on SQLite', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gateway-catalog-'));
    const store = await openStore({ dataDir });
    try {
      await exerciseCatalog(store);
    } finally {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('on PostgreSQL', async (t) => {
    const databaseUrl = requiredInCi('DATABASE_URL');
    if (!databaseUrl) return t.skip('DATABASE_URL is not set (CI sets it)');
    const { url, drop } = await pgDatabaseUrl(databaseUrl);
    const store = await openStore({ databaseUrl: url, dataDir: tmpdir() });
    try {
      await exerciseCatalog(store);
    } finally {
      await store.close();
      await drop();
    }
  });
});

// The data-info catalog (ObjectIndex) directly on each engine: homes prepared once per user, grants that
// cover what lies below them, and share counts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ObjectIndex, everyone } from '../../../src/backends/data-info/object-index.js';
import { openStore, type Store } from '../../../src/store/database.js';
import { requiredInCi } from '../../support/gateway.js';
import { pgSchemaUrl } from '../../support/postgres.js';

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
    const { url, drop } = await pgSchemaUrl(databaseUrl);
    const store = await openStore({ databaseUrl: url, dataDir: tmpdir() });
    try {
      await exerciseCatalog(store);
    } finally {
      await store.close();
      await drop();
    }
  });
});

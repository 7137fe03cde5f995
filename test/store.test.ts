import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { openStore, type Store } from '../src/store/database.js';
import { requiredInCi } from './helpers/gateway.js';
import { pgSchemaUrl } from './helpers/postgres.js';

/** The same checks, run against each engine: one query layer over both. */
async function exerciseStore(open: () => Promise<Store>, expectedEngine: string): Promise<void> {
  const store = await open();
  const id = randomUUID();
  try {
    assert.equal(store.engine, expectedEngine);
    await store.ping();
    await store.db.insertInto('users').values({ id, username: 'erin@example.org', email: 'erin@example.org', created_at: 1_700_000_000_123 }).execute();
    const row = await store.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.username, 'erin@example.org');
    assert.equal(row.created_at, 1_700_000_000_123, 'epoch milliseconds read back as numbers');
    await assert.rejects(
      store.db.insertInto('users').values({ id: randomUUID(), username: 'erin@example.org' }).execute(),
      'usernames are unique',
    );
  } finally {
    await store.close();
  }
  // Reopening runs the migrator again: nothing to apply, data still there.
  const reopened = await open();
  try {
    const row = await reopened.db.selectFrom('users').select('username').where('id', '=', id).executeTakeFirst();
    assert.equal(row?.username, 'erin@example.org');
    const applied = await reopened.db.selectFrom('kysely_migration' as never).select('name' as never).execute();
    assert.deepEqual(applied.map((migration) => (migration as { name: string }).name), ['001-users']);
  } finally {
    await reopened.close();
  }
}

describe('store', () => {
  test('SQLite in the data directory: migrated, typed queries, durable across reopen', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gateway-store-'));
    try {
      await exerciseStore(() => openStore({ dataDir }), 'sqlite');
      const mode = await openStore({ dataDir });
      try {
        const { rows } = await (await import('kysely')).sql<{ journal_mode: string }>`pragma journal_mode`.execute(mode.db);
        assert.equal(rows[0]?.journal_mode, 'wal');
      } finally {
        await mode.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('PostgreSQL from DATABASE_URL: the same queries and migrations', async (t) => {
    const databaseUrl = requiredInCi('DATABASE_URL');
    if (!databaseUrl) return t.skip('DATABASE_URL is not set (CI sets it)');
    const { url, drop } = await pgSchemaUrl(databaseUrl);
    try {
      await exerciseStore(() => openStore({ databaseUrl: url, dataDir: tmpdir() }), 'postgres');
    } finally {
      await drop();
    }
  });

  test('an unreachable PostgreSQL fails to open with a clear error', async () => {
    await assert.rejects(openStore({ databaseUrl: 'postgres://nobody@127.0.0.1:1/none', dataDir: tmpdir() }), /ECONNREFUSED|connect/);
  });
});

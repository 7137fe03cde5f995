// The store on each engine: SQLite in the data directory and PostgreSQL from DATABASE_URL, migrated
// (a schema on its own, even while other schemas of the database are being dropped), typed queries
// (upserts, booleans, cascades), durable across reopen, SQLite's pending migrations applied in one
// transaction (all or none), a PostgreSQL store waiting for another instance's migration beyond the
// requests' query timeout, and an unreachable PostgreSQL failing with a clear error.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { migrateToLatest, openStore, type Store } from '../../src/store/database.ts';
import type { Database } from '../../src/store/schema.ts';
import { migrations } from '../../src/store/migrations/index.ts';
import { recordUser } from '../../src/store/users.ts';
import { requiredInCi } from '../support/gateway.ts';
import { pgSchemaUrl } from '../support/postgres.ts';

/** Upserts, booleans and cascades: the query features embedded backends rely on, on each engine. */
async function exerciseUserQueries(store: Store): Promise<void> {
  const username = `frank-${randomUUID()}@example.org`;
  const first = await recordUser(store.db, username, { email: 'old@example.org' }, 1_000);
  const again = await recordUser(
    store.db,
    username,
    { email: 'new@example.org', firstName: 'Frank' },
    2_000,
  );
  assert.equal(again, first, 'recording a known user keeps its id');
  const user = await store.db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', first)
    .executeTakeFirstOrThrow();
  assert.deepEqual(
    [user.email, user.first_name, user.created_at, user.last_seen_at],
    ['new@example.org', 'Frank', 1_000, 2_000],
  );

  await store.db
    .insertInto('workspace')
    .values({ id: randomUUID(), user_id: first, root_category_id: randomUUID(), is_public: true })
    .execute();
  const workspace = await store.db
    .selectFrom('workspace')
    .select('is_public')
    .where('user_id', '=', first)
    .executeTakeFirstOrThrow();
  assert.equal(Boolean(workspace.is_public), true, 'booleans are written on both engines');
  const publicOnes = await store.db
    .selectFrom('workspace')
    .select('id')
    .where('is_public', '=', true)
    .where('user_id', '=', first)
    .execute();
  assert.equal(publicOnes.length, 1, 'booleans compare on both engines');

  await store.db
    .insertInto('user_sessions')
    .values({ id: randomUUID(), user_id: first, session: '{"a":1}' })
    .execute();
  await store.db.deleteFrom('users').where('id', '=', first).execute();
  const orphans = await store.db
    .selectFrom('user_sessions')
    .select('id')
    .where('user_id', '=', first)
    .execute();
  assert.equal(orphans.length, 0, 'deleting a user deletes their documents');
}

/** The same checks, run against each engine: one query layer over both. */
async function exerciseStore(open: () => Promise<Store>, expectedEngine: string): Promise<void> {
  const store = await open();
  const id = randomUUID();
  try {
    assert.equal(store.engine, expectedEngine);
    await store.ping();
    await store.db
      .insertInto('users')
      .values({
        id,
        username: 'erin@example.org',
        email: 'erin@example.org',
        created_at: 1_700_000_000_123,
      })
      .execute();
    const row = await store.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(row.username, 'erin@example.org');
    assert.equal(row.created_at, 1_700_000_000_123, 'epoch milliseconds read back as numbers');
    await assert.rejects(
      store.db
        .insertInto('users')
        .values({ id: randomUUID(), username: 'erin@example.org' })
        .execute(),
      'usernames are unique',
    );
    await exerciseUserQueries(store);
  } finally {
    await store.close();
  }
  // Reopening runs the migrator again: nothing to apply, data still there.
  const reopened = await open();
  try {
    const row = await reopened.db
      .selectFrom('users')
      .select('username')
      .where('id', '=', id)
      .executeTakeFirst();
    assert.equal(row?.username, 'erin@example.org');
    const applied = await reopened.db
      .selectFrom('kysely_migration' as never)
      .select('name' as never)
      .execute();
    assert.deepEqual(
      applied.map((migration) => (migration as { name: string }).name),
      Object.keys(migrations),
    );
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
        const { rows } = await (
          await import('kysely')
        ).sql<{ journal_mode: string }>`pragma journal_mode`.execute(mode.db);
        assert.equal(rows[0]?.journal_mode, 'wal');
      } finally {
        await mode.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('SQLite applies pending migrations in one transaction: a failing one leaves none applied', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gateway-store-'));
    try {
      // A table the last migration creates, already there: that migration fails, after all the others ran.
      const SQLite = (await import('better-sqlite3')).default;
      const raw = new SQLite(path.join(dataDir, 'gateway.sqlite'));
      raw.exec('create table qms_resource_types (id text)');
      raw.close();
      await assert.rejects(openStore({ dataDir }), /"qms_resource_types" already exists/);
      const after = new SQLite(path.join(dataDir, 'gateway.sqlite'), { readonly: true });
      try {
        const tables = after
          .prepare(`select name from sqlite_master where type = 'table' order by name`)
          .all() as Array<{ name: string }>;
        assert.deepEqual(
          tables.map((table) => table.name),
          ['kysely_migration', 'kysely_migration_lock', 'qms_resource_types'],
          'the tables of the migrations before the failing one were rolled back',
        );
        assert.deepEqual(
          after.prepare('select name from kysely_migration').all(),
          [],
          'no migration is recorded as applied',
        );
      } finally {
        after.close();
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

  test('PostgreSQL: a schema migrates on its own even when another schema of the database already was', async (t) => {
    const databaseUrl = requiredInCi('DATABASE_URL');
    if (!databaseUrl) return t.skip('DATABASE_URL is not set (CI sets it)');
    const first = await pgSchemaUrl(databaseUrl);
    const second = await pgSchemaUrl(databaseUrl);
    const opened: Store[] = [];
    try {
      opened.push(await openStore({ databaseUrl: first.url, dataDir: tmpdir() }));
      opened.push(await openStore({ databaseUrl: second.url, dataDir: tmpdir() }));
      const { rows } = await sql<{
        tables: number;
      }>`select count(*)::int as tables from information_schema.tables where table_schema = ${second.schema} and table_name like 'kysely_migration%'`.execute(
        opened[1]!.db,
      );
      assert.equal(rows[0]?.tables, 2, 'the second schema has its own migration bookkeeping');
    } finally {
      await Promise.all(opened.map((store) => store.close()));
      await first.drop();
      await second.drop();
    }
  });

  test('PostgreSQL: a table of another schema dropped while the migrator introspects every schema does not fail the migration', async (t) => {
    const databaseUrl = requiredInCi('DATABASE_URL');
    if (!databaseUrl) return t.skip('DATABASE_URL is not set (CI sets it)');
    const schema = await pgSchemaUrl(databaseUrl);
    // What PostgreSQL answers Kysely's introspection (a query over every schema's columns) when a
    // table it lists is dropped by another client before pg_get_serial_sequence reaches it: the
    // pool answers that once, and is the real database otherwise.
    let raced = 0;
    const pool = new pg.Pool({ connectionString: schema.url, max: 2 });
    const racingPool = {
      connect: async () => {
        const client = await pool.connect();
        return {
          query: async (text: string, values: unknown[]) => {
            if (raced === 0 && text.includes('pg_get_serial_sequence')) {
              raced++;
              throw Object.assign(new Error('relation "t_other.favorites" does not exist'), {
                code: '42P01',
              });
            }
            return client.query(text, values);
          },
          release: () => client.release(),
        };
      },
      end: () => pool.end(),
    };
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: racingPool as never }),
    });
    try {
      const result = await migrateToLatest(db, 'postgres');
      assert.equal(raced, 1, 'the introspection met the drop once');
      assert.ok(
        result.results && result.results.every((migration) => migration.status === 'Success'),
      );
      const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
      assert.equal(rows.length, Object.keys(migrations).length);
    } finally {
      await db.destroy();
      await schema.drop();
    }
  });

  test("PostgreSQL: a store opening while another instance migrates waits for that one's lock, past DATABASE_QUERY_TIMEOUT_MS", async (t) => {
    const databaseUrl = requiredInCi('DATABASE_URL');
    if (!databaseUrl) return t.skip('DATABASE_URL is not set (CI sets it)');
    const schema = await pgSchemaUrl(databaseUrl);
    const url = new URL(schema.url);
    const applicationName = `migration-wait-${randomUUID()}`;
    url.searchParams.set('application_name', applicationName);
    // Another instance migrating: it holds the lock Kysely's migrator takes (the adapter's LOCK_ID).
    const other = new pg.Client({ connectionString: databaseUrl });
    await other.connect();
    const queryTimeoutMs = 200;
    let opened: Store | undefined;
    try {
      await other.query('select pg_advisory_lock(3853314791062309107)');
      const opening = openStore({
        databaseUrl: url.toString(),
        dataDir: tmpdir(),
        database: { connectTimeoutMs: 5_000, queryTimeoutMs },
      });
      opening.catch(() => {});
      const waiting = async () =>
        (
          await other.query(
            `select 1 from pg_locks l join pg_stat_activity a using (pid)
             where l.locktype = 'advisory' and not l.granted and a.application_name = $1`,
            [applicationName],
          )
        ).rowCount === 1;
      while (!(await waiting())) await new Promise((resolve) => setImmediate(resolve));
      // Twice the requests' timeout: a migration bounded by it would have failed by now.
      await new Promise((resolve) => setTimeout(resolve, 2 * queryTimeoutMs));
      await other.query('select pg_advisory_unlock(3853314791062309107)');
      opened = await opening;
      const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(
        opened.db,
      );
      assert.equal(rows.length, Object.keys(migrations).length);
    } finally {
      await opened?.close();
      await other.end();
      await schema.drop();
    }
  });

  test('an unreachable PostgreSQL fails to open with a clear error', async () => {
    await assert.rejects(
      openStore({ databaseUrl: 'postgres://nobody@127.0.0.1:1/none', dataDir: tmpdir() }),
      /ECONNREFUSED|connect/,
    );
  });
});

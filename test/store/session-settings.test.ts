// The planner setting of the gateway's PostgreSQL sessions (DATABASE_RANDOM_PAGE_COST): by default
// every session of the store, pooled and of its own (LISTEN), plans with random_page_cost 1.1; an
// operator's value in DATABASE_URL's `options` wins over it, and options given there (a
// search_path) are kept; `server` leaves the server's value. With 1.1 a page of favourites in a
// 10,000-row table is looked up through the primary key instead of read whole. Bad values stop the
// gateway with a ConfigError naming the variable.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { pgSchemaUrl, planOf } from '../support/postgres.ts';
import { requiredInCi } from '../support/gateway.ts';

test('DATABASE_RANDOM_PAGE_COST: 1.1 by default, a number, or server', () => {
  assert.equal(loadConfig({}).database.randomPageCost, 1.1);
  assert.equal(loadConfig({ DATABASE_RANDOM_PAGE_COST: '2' }).database.randomPageCost, 2);
  assert.equal(
    loadConfig({ DATABASE_RANDOM_PAGE_COST: 'server' }).database.randomPageCost,
    undefined,
  );
  for (const bad of ['0', '-1', 'fast', '1e3', '1001'])
    assert.throws(
      () => loadConfig({ DATABASE_RANDOM_PAGE_COST: bad }),
      (error: unknown) =>
        error instanceof ConfigError && /DATABASE_RANDOM_PAGE_COST/.test(error.message),
      bad,
    );
});

describe('the sessions of a PostgreSQL store', () => {
  const databaseUrl = requiredInCi('DATABASE_URL');
  let schema: Awaited<ReturnType<typeof pgSchemaUrl>> | undefined;
  let dataDir: string;
  const opened: Store[] = [];

  before(async () => {
    if (!databaseUrl) return;
    schema = await pgSchemaUrl(databaseUrl);
    dataDir = await mkdtemp(path.join(tmpdir(), 'session-settings-'));
  });
  after(async () => {
    for (const store of opened) await store.close();
    await schema?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function storeWith(url: string, env: Record<string, string> = {}): Promise<Store> {
    const { database } = loadConfig(env);
    const store = await openStore({ databaseUrl: url, dataDir, database });
    opened.push(store);
    return store;
  }

  async function pooledSetting(store: Store, name: string): Promise<string> {
    const answer = await sql<
      Record<string, string>
    >`select current_setting(${name}) as value`.execute(store.db);
    return answer.rows[0]!.value!;
  }

  /** The setting as a connection of the store's own (LISTEN's) sees it. */
  async function ownSetting(store: Store, name: string): Promise<string> {
    const client = new pg.Client(store.clientConfig);
    await client.connect();
    try {
      return (await client.query('select current_setting($1) as value', [name])).rows[0].value;
    } finally {
      await client.end();
    }
  }

  test('1.1 on pooled and own sessions; the URL’s search_path kept', async (t) => {
    if (!schema) return t.skip('DATABASE_URL is not set');
    const store = await storeWith(schema.url);
    assert.equal(await pooledSetting(store, 'random_page_cost'), '1.1');
    assert.equal(await ownSetting(store, 'random_page_cost'), '1.1');
    assert.equal(await pooledSetting(store, 'search_path'), schema.schema);
    assert.equal(await ownSetting(store, 'search_path'), schema.schema);
  });

  test('an operator’s value in the URL wins; `server` keeps the server’s', async (t) => {
    if (!schema) return t.skip('DATABASE_URL is not set');
    const url = new URL(schema.url);
    url.searchParams.set('options', `${url.searchParams.get('options')} -c random_page_cost=3`);
    assert.equal(await pooledSetting(await storeWith(url.toString()), 'random_page_cost'), '3');

    const server = await storeWith(schema.url, { DATABASE_RANDOM_PAGE_COST: 'server' });
    const plain = new pg.Client({ connectionString: databaseUrl });
    await plain.connect();
    const serverValue = (await plain.query('show random_page_cost')).rows[0].random_page_cost;
    await plain.end();
    assert.equal(await pooledSetting(server, 'random_page_cost'), serverValue);
  });

  test('a page of favourites in 10,000 is looked up by key, not read whole', async (t) => {
    if (!schema) return t.skip('DATABASE_URL is not set');
    const store = await storeWith(schema.url);
    await sql`insert into favorites (owner_id, target_id, target_type, created_on)
      select 'fay', 'id-' || i, 'file', i from generate_series(1, 10000) as i`.execute(store.db);
    await sql`analyze favorites`.execute(store.db);
    const ids = Array.from({ length: 100 }, (_, i) => `id-${i * 97 + 1}`);
    const plan = await planOf(
      store.db,
      sql`select target_id from favorites where owner_id = 'fay'
        and target_type in ('file', 'folder') and target_id in (${sql.join(ids)})`,
    );
    assert.match(plan, /Index (Only )?Scan using favorites_/);
    assert.doesNotMatch(plan, /Seq Scan on favorites/);
  });
});

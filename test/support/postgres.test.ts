// The tests' PostgreSQL databases (test/support/postgres.ts): a suite claims one of a pool of
// copies of the migrated template and gives it back; the next claim of that copy finds what a
// fresh copy holds (its rows put back, a changed schema copied afresh, connections left open
// ended), no two claims hold one copy at once, and a process killed while holding one gives it up.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { requiredInCi } from './gateway.ts';
import { pgDatabaseUrl, templateName, withClient } from './postgres.ts';

const databaseUrl = requiredInCi('DATABASE_URL');

type Claim = Awaited<ReturnType<typeof pgDatabaseUrl>>;

/** Every row of every public table, as JSON in a stable order, keyed by table. */
async function contentsOf(url: string): Promise<Record<string, string[]>> {
  return withClient(url, async (client) => {
    const { rows: tables } = await client.query<{ name: string }>(
      `select quote_ident(relname) as name from pg_class
        where relnamespace = 'public'::regnamespace and relkind = 'r' order by relname`,
    );
    const contents: Record<string, string[]> = {};
    for (const { name } of tables) {
      // When a migration ran is the template's own fact, not a row a test could change: another
      // checkout's run on other migrations may make the template again while this file runs.
      const { rows } = await client.query<{ row: string }>(
        name === 'kysely_migration'
          ? `select name as row from public.${name} order by 1`
          : `select row_to_json(t)::text as row from public.${name} t order by 1`,
      );
      contents[name] = rows.map(({ row }) => row);
    }
    return contents;
  });
}

/**
 * Claims until the claim names `database` (other test processes may hold it for a moment), giving
 * back every other claim it made on the way.
 */
async function claimAgain(database: string): Promise<Claim> {
  const others: Claim[] = [];
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      const claim = await pgDatabaseUrl(databaseUrl!);
      if (claim.database === database) return claim;
      others.push(claim);
      if (others.length > 10) await others.shift()!.drop();
    }
    throw new Error(`${database} was not claimed again in 50 claims`);
  } finally {
    await Promise.all(others.map((claim) => claim.drop()));
  }
}

const url = (database: string) => {
  const address = new URL(databaseUrl!);
  address.pathname = `/${database}`;
  return address.toString();
};

describe('pooled test databases', { skip: databaseUrl ? false : 'DATABASE_URL is not set' }, () => {
  /** What a copy of the template holds, read from a copy made for this file alone. */
  let fresh: Record<string, string[]>;
  const freshCopy = `gateway_fresh_${process.pid}`;

  before(async () => {
    await (await pgDatabaseUrl(databaseUrl!)).drop(); // makes the template when there is none
    await withClient(databaseUrl!, (client) =>
      client.query(`create database ${freshCopy} template ${templateName}`),
    );
    fresh = await contentsOf(url(freshCopy));
  });
  after(async () => {
    await withClient(databaseUrl!, (client) =>
      client.query(`drop database if exists ${freshCopy} with (force)`),
    );
  });

  test("a copy given back is claimed again holding a fresh copy's rows: added rows gone, changed and removed seeded rows back", async () => {
    const first = await pgDatabaseUrl(databaseUrl!);
    await withClient(first.url, async (client) => {
      await client.query(`insert into qms_resource_types (id, name, unit, consumable)
                          select gen_random_uuid()::text, 'gpu.hours', 'hours', true`);
      await client.query(`update metadata_value_types set name = name || ' (changed)'`);
      await client.query(`delete from tool_request_status_codes`);
    });
    assert.notDeepEqual(await contentsOf(first.url), fresh, 'the copy was changed');
    await first.drop();

    const again = await claimAgain(first.database);
    try {
      assert.deepEqual(await contentsOf(again.url), fresh);
    } finally {
      await again.drop();
    }
  });

  test('a copy whose schema a test changed is copied afresh', async () => {
    const first = await pgDatabaseUrl(databaseUrl!);
    await withClient(first.url, async (client) => {
      await client.query('create table left_behind (a integer)');
      await client.query('alter table qms_plans add column left_behind integer');
    });
    await first.drop();

    const again = await claimAgain(first.database);
    try {
      const { rows } = await withClient(again.url, (client) =>
        client.query<{ name: string }>(
          `select table_name || coalesce('.' || column_name, '') as name
             from information_schema.columns where table_schema = 'public'
              and (table_name = 'left_behind' or column_name = 'left_behind')`,
        ),
      );
      assert.deepEqual(rows, []);
      assert.deepEqual(await contentsOf(again.url), fresh);
    } finally {
      await again.drop();
    }
  });

  test('no two claims hold one copy; a connection left open to a copy given back is ended at its next claim', async () => {
    const first = await pgDatabaseUrl(databaseUrl!);
    const second = await pgDatabaseUrl(databaseUrl!);
    assert.notEqual(first.database, second.database);
    await second.drop();

    const leftOpen = new pg.Client({ connectionString: first.url });
    // The first error is the termination; pg follows it with 'Connection terminated unexpectedly'.
    const ended = new Promise<Error>((resolve) => leftOpen.on('error', resolve));
    await leftOpen.connect();
    await first.drop();
    const again = await claimAgain(first.database);
    try {
      assert.equal(((await ended) as { code?: string }).code, '57P01', 'terminated by the claim');
    } finally {
      await again.drop();
      await leftOpen.end().catch(() => {});
    }
  });

  test('a process killed while holding a copy gives it up', async () => {
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { pgDatabaseUrl } = await import(${JSON.stringify(new URL('./postgres.ts', import.meta.url).href)});
         const claim = await pgDatabaseUrl(process.env.DATABASE_URL);
         process.stdout.write(claim.database + '\\n');
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    const held = line.toString().trim();
    assert.match(held, /^gateway_pool_/);
    child.kill('SIGKILL');
    await once(child, 'exit');
    const again = await claimAgain(held);
    await again.drop();
  });
});

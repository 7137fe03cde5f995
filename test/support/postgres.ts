// PostgreSQL for tests: databases of their own cloned from a migrated template (or private schemas,
// migrated from scratch, for the tests of migrating), so concurrent test files never see each
// other's tables, and the engines (SQLite, PostgreSQL) tests run on, PostgreSQL skipped without
// DATABASE_URL except in CI.
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import pg from 'pg';
import { openStore } from '../../src/store/database.ts';
import { requiredInCi } from './gateway.ts';
import { migrationsDigest } from './migrations-digest.ts';

/**
 * A private schema in the given PostgreSQL database, so concurrent test files never see each
 * other's tables. The returned URL selects it through the connection's search_path. It is empty:
 * whoever opens it migrates it from scratch, for the tests of migrating (and of several schemas
 * in one database); other tests take pgDatabaseUrl's migrated copy.
 */
export async function pgSchemaUrl(
  databaseUrl: string,
): Promise<{ url: string; schema: string; drop(): Promise<void> }> {
  const schema = `t_${randomUUID().replace(/-/g, '')}`;
  await withClient(databaseUrl, (client) => client.query(`create schema ${schema}`));
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    schema,
    drop: async () => {
      await withClient(databaseUrl, (client) =>
        client.query(`drop schema if exists ${schema} cascade`),
      );
    },
  };
}

/** Runs `work` with a client connected to `databaseUrl`, and ends the client. */
async function withClient<T>(
  databaseUrl: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** `databaseUrl` naming the database `name` on the same server instead. */
function urlOfDatabase(databaseUrl: string, name: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

const templatePrefix = 'gateway_template_';
/** The template the current migrations make: a database of that name is migrated to the latest. */
const templateName = `${templatePrefix}${migrationsDigest}`;
/** Serialises making the template among every test process using the server (pg_advisory_lock). */
const templateLock = 7_146_301_229;

/**
 * Makes the migrated template database unless it is there: under an advisory lock, so concurrent
 * test processes make it once; migrated under another name and renamed when done, so a template
 * is whole; other (stale) templates of ours are dropped when one is made, those still being
 * copied left for later.
 */
async function makeTemplate(databaseUrl: string): Promise<string> {
  await withClient(databaseUrl, async (client) => {
    await client.query('select pg_advisory_lock($1)', [templateLock]);
    try {
      const found = await client.query('select 1 from pg_database where datname = $1', [
        templateName,
      ]);
      if (found.rowCount) return;
      const building = `${templateName}_building`;
      await client.query(`drop database if exists ${building}`);
      await client.query(`create database ${building}`);
      // The store's pool is closed before the rename: a database with connections cannot be renamed or copied.
      const store = await openStore({
        databaseUrl: urlOfDatabase(databaseUrl, building),
        dataDir: tmpdir(),
      });
      await store.close();
      await client.query(`alter database ${building} rename to ${templateName}`);
      const stale = await client.query<{ datname: string }>(
        `select datname from pg_database where starts_with(datname, $1) and datname <> $2`,
        [templatePrefix, templateName],
      );
      for (const { datname } of stale.rows)
        await client.query(`drop database if exists ${datname}`).catch(() => {});
    } finally {
      await client.query('select pg_advisory_unlock($1)', [templateLock]);
    }
  });
  return templateName;
}

let template: Promise<string> | undefined;

/**
 * A database of its own on the server of `databaseUrl`, copied from the migrated template (made
 * once, see makeTemplate): what a fresh database migrated to the latest holds, without migrating
 * it. The returned URL names it; `drop` drops it, ending any connection still open to it.
 */
export async function pgDatabaseUrl(
  databaseUrl: string,
): Promise<{ url: string; database: string; drop(): Promise<void> }> {
  const database = `gateway_test_${randomUUID().replace(/-/g, '')}`;
  await withClient(databaseUrl, async (client) => {
    for (let attempt = 1; ; attempt++) {
      template ??= makeTemplate(databaseUrl);
      try {
        await client.query(`create database ${database} template ${await template}`);
        return;
      } catch (error) {
        // Another checkout's test run, on other migrations, dropped ours as stale: it is made again.
        if ((error as { code?: string }).code !== '3D000' || attempt > 1) throw error;
        template = undefined;
      }
    }
  });
  return {
    url: urlOfDatabase(databaseUrl, database),
    database,
    drop: () =>
      withClient(databaseUrl, async (client) => {
        await client.query(`drop database if exists ${database} with (force)`);
      }),
  };
}

/** The engines a store-backed suite runs on. */
export const engines = ['sqlite', 'postgres'] as const;

/**
 * The `skip` option of a suite on `engine`: a PostgreSQL suite is skipped without DATABASE_URL,
 * except in CI, where requiredInCi fails instead.
 */
export function skipWithout(engine: (typeof engines)[number]): string | false {
  return engine === 'postgres' && !requiredInCi('DATABASE_URL') ? 'DATABASE_URL is not set' : false;
}

/**
 * What puts a gateway started with startGateway on `engine`: a PostgreSQL database of its own,
 * migrated (its DATABASE_URL in `env`, dropped by `drop`), or nothing for SQLite, the default.
 */
export async function engineDatabase(
  engine: (typeof engines)[number],
): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (engine === 'sqlite') return { env: {}, drop: async () => {} };
  const database = await pgDatabaseUrl(requiredInCi('DATABASE_URL')!);
  return { env: { DATABASE_URL: database.url }, drop: database.drop };
}

/** PostgreSQL's plan for `statement` (EXPLAIN: planned, not run), its lines joined. */
export async function planOf(db: Kysely<any>, statement: RawBuilder<unknown>): Promise<string> {
  const plan = await sql<{ 'QUERY PLAN': string }>`explain ${statement}`.execute(db);
  return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
}

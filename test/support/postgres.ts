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
export async function withClient<T>(
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
const poolPrefix = 'gateway_pool_';
/**
 * What names this checkout's template and pool: the migrations' digest and the form of the
 * template's snapshot (bumped when `Snapshot` changes, so an older template is made again).
 */
const tag = `${migrationsDigest}s1`;
/** The template the current migrations make: a database of that name is migrated to the latest. */
export const templateName = `${templatePrefix}${tag}`;
/** Serialises making the template among every test process using the server (pg_advisory_lock). */
const templateLock = 7_146_301_229;

/**
 * What a fresh copy of the template holds beyond its empty tables, recorded on the template
 * (COMMENT ON DATABASE) when it is made, so that a pooled database is put back without reading
 * the template (a connection to a template makes others' CREATE DATABASE from it fail).
 */
interface Snapshot {
  /** A digest of the user schemas' definitions: what a test's DDL would change. */
  schema: string;
  /** Every table of the public schema, quoted. */
  tables: string[];
  /** The rows the migrations seeded, per table, as row_to_json gives them. */
  seeds: Array<{ table: string; columns: string[]; rows: unknown[] }>;
}

/**
 * The definitions of everything outside PostgreSQL's own schemas, digested: tables, indexes and
 * their columns, constraints, functions, triggers and the database's own settings.
 */
const schemaDigestQuery = `
  with spaces as (
    select oid, nspname from pg_namespace
    where nspname not in ('pg_catalog', 'information_schema')
      and nspname not like 'pg\\_toast%' and nspname not like 'pg\\_temp%'
  )
  select md5(concat_ws('|',
    (select string_agg(format('%s.%s:%s', s.nspname, c.relname, c.relkind), ',' order by 1)
       from pg_class c join spaces s on s.oid = c.relnamespace),
    (select string_agg(format('%s.%s:%s %s %s %s', c.relname, a.attname, a.atttypid, a.attnotnull, a.attisdropped, a.atthasdef), ',' order by 1)
       from pg_attribute a join pg_class c on c.oid = a.attrelid join spaces s on s.oid = c.relnamespace
      where a.attnum > 0),
    (select string_agg(format('%s:%s', conname, contype), ',' order by 1)
       from pg_constraint join spaces s on s.oid = connamespace),
    (select string_agg(format('%s:%s', proname, md5(prosrc)), ',' order by 1)
       from pg_proc join spaces s on s.oid = pronamespace),
    (select string_agg(format('%s:%s', tgname, tgenabled), ',' order by 1) from pg_trigger where not tgisinternal),
    (select string_agg(array_to_string(setconfig, ','), ';' order by 1) from pg_db_role_setting
      where setdatabase = (select oid from pg_database where datname = current_database()))
  )) as digest`;

/** The snapshot of a freshly migrated database, read through `client` connected to it. */
async function snapshotOf(client: pg.Client): Promise<Snapshot> {
  const { rows: tables } = await client.query<{ name: string; columns: string[] }>(
    `select quote_ident(c.relname) as name,
            array(select quote_ident(attname) from pg_attribute
                   where attrelid = c.oid and attnum > 0 and not attisdropped and attgenerated = ''
                   order by attnum) as columns
       from pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'
      order by c.relname`,
  );
  const seeds: Snapshot['seeds'] = [];
  for (const { name, columns } of tables) {
    const { rows } = await client.query<{ row: unknown }>(
      `select row_to_json(t) as row from public.${name} t`,
    );
    if (rows.length) seeds.push({ table: name, columns, rows: rows.map(({ row }) => row) });
  }
  const { rows } = await client.query<{ digest: string }>(schemaDigestQuery);
  return { schema: rows[0]!.digest, tables: tables.map(({ name }) => name), seeds };
}

/**
 * The statements that put a database of the template's schema back to the template's rows: every
 * table emptied and the seeded rows inserted again, in one transaction, with foreign keys and
 * triggers not firing (session_replication_role). DELETE, not TRUNCATE: TRUNCATE gives each
 * table new files, and creating and removing files by the thousand (each CREATE and DROP
 * DATABASE makes or removes ≈ 1,000) cost PostgreSQL's host more than any test did.
 */
function resetStatements(snapshot: Snapshot, client: pg.Client): string {
  return [
    'begin',
    'set local session_replication_role = replica',
    ...snapshot.tables.map((table) => `delete from public.${table}`),
    ...snapshot.seeds.map(({ table, columns, rows }) => {
      const list = columns.join(', ');
      return `insert into public.${table} (${list}) select ${list} from json_populate_recordset(null::public.${table}, ${client.escapeLiteral(JSON.stringify(rows))})`;
    }),
    'commit',
  ].join(';\n');
}

/**
 * Makes the migrated template database unless it is there: under an advisory lock, so concurrent
 * test processes make it once; migrated under another name and renamed when done, so a template
 * is whole; its snapshot recorded as its comment. Other (stale) templates and pooled databases of
 * ours are dropped when one is made, those in use left for later. Answers the snapshot.
 */
async function makeTemplate(databaseUrl: string): Promise<Snapshot> {
  return withClient(databaseUrl, async (client) => {
    await client.query('select pg_advisory_lock($1)', [templateLock]);
    try {
      const found = await client.query<{ comment: string | null }>(
        `select shobj_description(oid, 'pg_database') as comment from pg_database where datname = $1`,
        [templateName],
      );
      if (found.rows[0]?.comment) return JSON.parse(found.rows[0].comment) as Snapshot;
      const building = `${templateName}_building`;
      await client.query(`drop database if exists ${building}`);
      await client.query(`drop database if exists ${templateName}`);
      await client.query(`create database ${building}`);
      // The store's pool is closed before the rename: a database with connections cannot be
      // renamed or copied.
      const store = await openStore({
        databaseUrl: urlOfDatabase(databaseUrl, building),
        dataDir: tmpdir(),
      });
      await store.close();
      const snapshot = await withClient(urlOfDatabase(databaseUrl, building), snapshotOf);
      await client.query(
        `comment on database ${building} is ${client.escapeLiteral(JSON.stringify(snapshot))}`,
      );
      await client.query(`alter database ${building} rename to ${templateName}`);
      await dropStale(client);
      return snapshot;
    } finally {
      await client.query('select pg_advisory_unlock($1)', [templateLock]);
    }
  });
}

/**
 * Drops our templates and pooled databases of other migrations (and the per-suite databases an
 * earlier form of this file made and a killed test left), skipping any in use: a pooled database
 * whose lock another run holds, a database with connections.
 */
async function dropStale(client: pg.Client): Promise<void> {
  const stale = await client.query<{ datname: string }>(
    `select datname from pg_database
      where (starts_with(datname, $1) or starts_with(datname, $2) or starts_with(datname, 'gateway_test_'))
        and datname <> $3 and not starts_with(datname, $4)`,
    [templatePrefix, poolPrefix, templateName, poolName(tag, '')],
  );
  for (const { datname } of stale.rows) {
    const pooled = /^gateway_pool_([0-9a-f]{8})\w*_(\d+)$/.exec(datname);
    if (pooled) {
      const key = [lockKey(pooled[1]!), Number(pooled[2])];
      const { rows } = await client.query('select pg_try_advisory_lock($1, $2) as got', key);
      if (!rows[0].got) continue;
      await client.query(`drop database if exists ${datname} with (force)`).catch(() => {});
      await client.query('select pg_advisory_unlock($1, $2)', key);
    } else await client.query(`drop database if exists ${datname}`).catch(() => {});
  }
}

/** The pooled database `n` of the template `tag` names. */
const poolName = (tag: string, n: number | '') => `${poolPrefix}${tag}_${n}`;
/** The first key of the advisory locks that claim the pool's databases: its digest's first bits. */
const lockKey = (tag: string) => Number.parseInt(tag.slice(0, 8), 16) | 0;

let template: Promise<Snapshot> | undefined;

/**
 * A database of its own on the server of `databaseUrl`, holding what a fresh database migrated to
 * the latest holds, without migrating it: one of a pool of copies of the migrated template (made
 * once, see makeTemplate), claimed with an advisory lock held by a connection of the claim's own
 * (so a killed test process gives it up), and put back to the template's rows (resetStatements)
 * when claimed; a copy whose schema a test changed is copied afresh. The returned URL names it;
 * `drop` gives it back to the pool.
 */
export async function pgDatabaseUrl(
  databaseUrl: string,
): Promise<{ url: string; database: string; drop(): Promise<void> }> {
  template ??= makeTemplate(databaseUrl);
  const snapshot = await template.catch((error) => {
    template = undefined;
    throw error;
  });
  const claim = new pg.Client({ connectionString: databaseUrl });
  claim.on('error', () => {}); // the lock goes with the connection; the next claim sees to the rest
  await claim.connect();
  try {
    for (let n = 0; ; n++) {
      const { rows } = await claim.query('select pg_try_advisory_lock($1, $2) as got', [
        lockKey(tag),
        n,
      ]);
      if (!rows[0].got) continue;
      const database = poolName(tag, n);
      await putBack(claim, databaseUrl, database, snapshot);
      return { url: urlOfDatabase(databaseUrl, database), database, drop: () => claim.end() };
    }
  } catch (error) {
    await claim.end();
    throw error;
  }
}

/**
 * Makes the claimed pool database `database` what a fresh copy of the template is: copied when
 * it is not there or a test changed its schema, else its rows put back. Connections a test left
 * open to it are ended first.
 */
async function putBack(
  claim: pg.Client,
  databaseUrl: string,
  database: string,
  snapshot: Snapshot,
): Promise<void> {
  const copy = async () => {
    await claim.query(`drop database if exists ${database} with (force)`);
    try {
      await claim.query(`create database ${database} template ${templateName}`);
    } catch (error) {
      // Another checkout's test run, on other migrations, dropped ours as stale: it is made again.
      if ((error as { code?: string }).code !== '3D000') throw error;
      template = makeTemplate(databaseUrl);
      await template;
      await claim.query(`create database ${database} template ${templateName}`);
    }
  };
  const found = await claim.query('select 1 from pg_database where datname = $1', [database]);
  if (!found.rowCount) return copy();
  await claim.query(
    'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
    [database],
  );
  const reset = await withClient(urlOfDatabase(databaseUrl, database), async (client) => {
    const { rows } = await client.query<{ digest: string }>(schemaDigestQuery);
    if (rows[0]!.digest !== snapshot.schema) return false;
    await client.query(resetStatements(snapshot, client));
    return true;
  }).catch(() => false);
  if (!reset) await copy();
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

// PostgreSQL for tests: private schemas, so concurrent test files never see each other's tables, and
// the engines (SQLite, PostgreSQL) tests run on, PostgreSQL skipped without DATABASE_URL except in CI.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import pg from 'pg';
import { requiredInCi } from './gateway.js';

/**
 * A private schema in the given PostgreSQL database, so concurrent test files never see each
 * other's tables. The returned URL selects it through the connection's search_path.
 */
export async function pgSchemaUrl(
  databaseUrl: string,
): Promise<{ url: string; schema: string; drop(): Promise<void> }> {
  const schema = `t_${randomUUID().replace(/-/g, '')}`;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.end();
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    schema,
    drop: async () => {
      const dropper = new pg.Client({ connectionString: databaseUrl });
      await dropper.connect();
      await dropper.query(`drop schema if exists ${schema} cascade`);
      await dropper.end();
    },
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
 * What puts a gateway started with startGateway on `engine`: a private PostgreSQL schema (its
 * DATABASE_URL in `env`, dropped by `drop`), or nothing for SQLite, the default.
 */
export async function engineDatabase(
  engine: (typeof engines)[number],
): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (engine === 'sqlite') return { env: {}, drop: async () => {} };
  const schema = await pgSchemaUrl(requiredInCi('DATABASE_URL')!);
  return { env: { DATABASE_URL: schema.url }, drop: schema.drop };
}

/** PostgreSQL's plan for `statement` (EXPLAIN: planned, not run), its lines joined. */
export async function planOf(db: Kysely<any>, statement: RawBuilder<unknown>): Promise<string> {
  const plan = await sql<{ 'QUERY PLAN': string }>`explain ${statement}`.execute(db);
  return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
}

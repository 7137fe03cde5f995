import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type Pg from 'pg';
import { queryTimeoutMessage } from '../common/database-unavailable.ts';
import { isStalePlan, PreparedStatements, transactionBoundary } from './prepared-statements.ts';

/**
 * pg itself, imported by `loadPostgres`: a static import of this package (left out of the bundle,
 * scripts/build.mjs) would be hoisted to the bundle's top and loaded at every start, SQLite too.
 */
let pg: typeof Pg;

/** Loads pg and answers this module's functions (database.ts calls it only with DATABASE_URL). */
export async function loadPostgres() {
  pg ??= (await import('pg')).default;
  return { defaultPostgresBounds, clientConfig, boundedPool };
}

/**
 * PostgreSQL connections that survive an outage: a connection dropped by the server, a proxy or
 * the network is an error event that is always heard (an unheard one ends the process), and every
 * wait is bounded (connecting, waiting for a pooled connection, a query's answer) so that requests
 * during an outage fail fast instead of hanging on packets that never come. The pool replaces
 * broken connections on its own, so the gateway recovers when the database is back.
 */
export interface PostgresBounds {
  /** Longest wait for a new connection, or for a free one in the pool (DATABASE_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs: number;
  /** Longest wait for a query's answer (DATABASE_QUERY_TIMEOUT_MS); the connection is discarded past it. */
  queryTimeoutMs: number;
}

export const defaultPostgresBounds: PostgresBounds = {
  connectTimeoutMs: 5_000,
  queryTimeoutMs: 15_000,
};

// pg returns int8 as strings to protect precision beyond 2^53; our int8 columns hold epoch milliseconds.
const int8 = 20;
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === int8
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof Pg.types.getTypeParser,
};

/** A store's PostgreSQL settings: its waits, and the planner setting of its sessions. */
export interface PostgresSettings extends PostgresBounds {
  /** The planner's random_page_cost in the gateway's sessions (DATABASE_RANDOM_PAGE_COST); undefined: the server's. */
  randomPageCost?: number;
  /** Statements each pooled connection keeps prepared (DATABASE_PREPARED_STATEMENTS; 0: none; default 100). */
  preparedStatements?: number;
}

/**
 * The connection string and startup `options` for `session`: its settings as `-c` options, before
 * any the connection string (or PGOPTIONS) already gives, so that an operator's own value wins. pg
 * lets a connection string's `options` replace the config's, so they are moved into the config.
 */
function withSession(databaseUrl: string, session: PostgresSettings) {
  if (session.randomPageCost === undefined) return { connectionString: databaseUrl };
  const url = new URL(databaseUrl);
  const given = url.searchParams.get('options') ?? process.env.PGOPTIONS;
  url.searchParams.delete('options');
  const ours = `-c random_page_cost=${session.randomPageCost}`;
  return { connectionString: url.toString(), options: given ? `${ours} ${given}` : ours };
}

/** Settings of every connection to `databaseUrl`, pooled or of its own (LISTEN). */
export function clientConfig(databaseUrl: string, settings: PostgresSettings): Pg.ClientConfig {
  return {
    ...withSession(databaseUrl, settings),
    types: pgTypes,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    query_timeout: settings.queryTimeoutMs,
    // Probes an idle connection whose peer vanished without a word (a host gone, a NAT entry expired).
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
}

/**
 * A pool for Kysely's PostgresDialect. `onIdleError` hears the loss of a connection no request is
 * using (pg-pool has already discarded it); a request's own connection errors reach its query.
 */
export function boundedPool(
  config: Pg.ClientConfig,
  onIdleError: (error: Error) => void,
  preparedPerConnection?: number,
): PostgresPool {
  const pool = new pg.Pool({ ...config, max: 10 });
  pool.on('error', onIdleError);
  // A connection in use emits 'error' too, after failing its queries: the query's caller answers for it.
  pool.on('connect', (client) => client.on('error', () => {}));
  const prepared = new PreparedStatements(preparedPerConnection);
  return {
    connect: async () => lendable(await pool.connect(), prepared),
    end: () => pool.end(),
  };
}

/**
 * A pooled connection, lent for one query or one transaction. Repeated statements run prepared
 * (src/store/prepared-statements.ts). It is discarded rather than returned to the pool once a
 * query timed out (its unanswered query would hold every later one, pg answering in order, and it
 * may be blackholed), or once a prepared statement of its went stale (others may have too).
 */
function lendable(client: Pg.PoolClient, prepared: PreparedStatements): PostgresPoolClient {
  let broken: Error | undefined;
  let stale: Error | undefined;
  let inTransaction = false;
  const run = async (text: string, values: unknown[], name: string | undefined) => {
    try {
      return name === undefined
        ? await client.query(text, values)
        : await client.query({ name, text, values });
    } catch (error) {
      if (error instanceof Error && error.message === queryTimeoutMessage) broken = error;
      throw error;
    }
  };
  const query = async (text: string, parameters: ReadonlyArray<unknown>) => {
    if (broken) throw broken;
    const boundary = transactionBoundary(text);
    if (boundary !== undefined) inTransaction = boundary;
    // A text without parameters goes by pg's simple protocol, which runs several statements in
    // one text: prepared, it would not. Only texts with parameters (already sent by the extended
    // protocol, unnamed) are prepared.
    const name = parameters.length > 0 ? prepared.nameFor(client, text) : undefined;
    try {
      return await run(text, [...parameters], name);
    } catch (error) {
      if (name === undefined || !isStalePlan(error)) throw error;
      stale = error as Error;
      // Inside a transaction the failure has aborted it: the caller's transaction fails as a whole.
      if (inTransaction) throw error;
      return await run(text, [...parameters], undefined);
    }
  };
  return {
    // Kysely's cursor overload is not offered: the dialect is configured without a cursor.
    query: query as unknown as PostgresPoolClient['query'],
    release: () => client.release(broken ?? stale),
  };
}

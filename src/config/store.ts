// Where the gateway keeps its state: its data folder, the database (SQLite in the folder, or
// PostgreSQL at DATABASE_URL, with its waits and planner settings) and Redis (shared rate-limit
// buckets).
import path from 'node:path';
import { ConfigError, integer, text, url, type Env } from './variables.ts';

export interface StoreSettings {
  dataDir: string;
  databaseUrl?: string;
  /**
   * PostgreSQL waits: for a connection, new or pooled (DATABASE_CONNECT_TIMEOUT_MS), and a query's
   * answer (DATABASE_QUERY_TIMEOUT_MS); and the planner's `random_page_cost` for the gateway's own
   * sessions (DATABASE_RANDOM_PAGE_COST; undefined: the server's); the statements each pooled
   * connection keeps prepared (DATABASE_PREPARED_STATEMENTS; 0: none).
   */
  database: {
    connectTimeoutMs: number;
    queryTimeoutMs: number;
    randomPageCost?: number;
    preparedStatements: number;
  };
  redisUrl?: string;
  redisKeyPrefix: string;
  /** Longest wait for a Redis answer before a request is served with local counters (REDIS_COMMAND_TIMEOUT_MS). */
  redisCommandTimeoutMs: number;
}

/** Statements each pooled PostgreSQL connection keeps prepared unless DATABASE_PREPARED_STATEMENTS says (src/store/prepared-statements.ts). */
export const PREPARED_PER_CONNECTION = 100;

/**
 * DATABASE_RANDOM_PAGE_COST: PostgreSQL's default (4) prices a page read at random as a disk seek;
 * the gateway's rows are read through indexes from memory or SSD, where 1.1 is the usual setting,
 * and with 4 the planner prefers reading a whole small table to a hundred index probes (a 10,000-row
 * table: 4 ms instead of 0.2 per page of favourites, bench/README.md). `server` keeps the server's.
 */
function randomPageCost(env: Env): { randomPageCost?: number } {
  const raw = text(env, 'DATABASE_RANDOM_PAGE_COST') ?? '1.1';
  if (raw.toLowerCase() === 'server') return {};
  const cost = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN;
  if (!(cost > 0 && cost <= 1000))
    throw new ConfigError(
      'DATABASE_RANDOM_PAGE_COST',
      `must be a number above 0 and up to 1000, or server, got "${raw}"`,
    );
  return { randomPageCost: cost };
}

export function storeSettings(env: Env): StoreSettings {
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  return {
    dataDir: path.resolve(text(env, 'GATEWAY_DATA_DIR') ?? './data'),
    databaseUrl: databaseUrl?.toString(),
    database: {
      connectTimeoutMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5_000, 100, 600_000),
      queryTimeoutMs: integer(env, 'DATABASE_QUERY_TIMEOUT_MS', 15_000, 100, 3_600_000),
      ...randomPageCost(env),
      preparedStatements: integer(
        env,
        'DATABASE_PREPARED_STATEMENTS',
        PREPARED_PER_CONNECTION,
        0,
        10_000,
      ),
    },
    redisUrl: redisUrl?.toString(),
    redisKeyPrefix: text(env, 'REDIS_KEY_PREFIX') ?? 'gateway:',
    redisCommandTimeoutMs: integer(env, 'REDIS_COMMAND_TIMEOUT_MS', 250, 10, 60_000),
  };
}

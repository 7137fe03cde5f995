import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  sql,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type MigrationResultSet,
  type PostgresPool,
  type SqliteDialectConfig,
} from 'kysely';
import type pg from 'pg';
import { migrations } from './migrations/index.ts';
import type { PostgresSettings } from './postgres.ts';
import type { Database } from './schema.ts';
import { FOLD_CASE } from './any-case.ts';
import { withIntegerBooleans } from './sqlite-booleans.ts';
import { withStatementCache } from './statement-cache.ts';
import { traced } from './traced-sqlite.ts';
import { isConnectionTerminated } from '../common/database-unavailable.ts';

export type Engine = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  engine: Engine;
  /** Settings for PostgreSQL connections of their own, such as LISTEN (absent on SQLite): the pool's own. */
  clientConfig?: pg.ClientConfig;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** PostgreSQL connection string; absent means the embedded SQLite file. */
  databaseUrl?: string;
  dataDir: string;
  /** PostgreSQL waits and session settings (defaults: defaultPostgresBounds, the server's planner). */
  database?: PostgresSettings;
  /** Hears a pooled PostgreSQL connection lost while idle (the pool replaces it): for the log. */
  onConnectionLost?: (error: Error) => void;
}

/**
 * Transactions take the write lock when they begin (BEGIN IMMEDIATE), waiting up to busy_timeout
 * for another process's writer: with WORKERS>1 several processes share the file, and a deferred
 * transaction that read first and then writes would fail at once (SQLITE_BUSY) instead of waiting,
 * should another process have written meanwhile. One writer at a time, the others queue.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async acquireConnection(): Promise<DatabaseConnection> {
    return traced(await super.acquireConnection());
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/**
 * SQLite's DDL is transactional, though Kysely's adapter says not: saying so makes the migrator
 * run pending migrations in one transaction. All or none of them apply, another process
 * (WORKERS>1) waits for the write lock instead of migrating alongside, and a fresh database pays
 * one synced commit instead of one per statement (synchronous = FULL): ≈ 450 ms of a cold start.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  private readonly settings: SqliteDialectConfig;

  constructor(settings: SqliteDialectConfig) {
    super(settings);
    this.settings = settings;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

/** The embedded SQLite database's file in the data folder. */
export const sqliteFileName = 'gateway.sqlite';

function sqliteDialect(dataDir: string): SqliteDialect {
  mkdirSync(dataDir, { recursive: true });
  const database = new SQLite(path.join(dataDir, sqliteFileName));
  // WAL for concurrent readers; FULL sync so a committed write survives a power cut.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma('foreign_keys = ON');
  // Another process (WORKERS>1) holding the write lock is waited for this long, not failed at once.
  database.pragma('busy_timeout = 5000');
  // SQLite's lower() and LIKE fold ASCII letters only; text beyond ASCII is lower-cased by
  // JavaScript's (Unicode's) rules through this, as PostgreSQL's lower() does in its collation.
  database.function(FOLD_CASE, { deterministic: true }, (text: unknown) =>
    typeof text === 'string' ? text.toLowerCase() : text,
  );
  return new ImmediateSqliteDialect({
    database: withStatementCache(withIntegerBooleans(database)),
  });
}

export async function migrateToLatest(
  db: Kysely<Database>,
  engine: Engine,
): Promise<MigrationResultSet> {
  // Kysely looks for its bookkeeping tables in every schema unless told which one: a database whose
  // other schema was migrated before would otherwise make it skip creating them in ours.
  const schema =
    engine === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]
          ?.schema
      : undefined;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  for (let attempt = 1; ; attempt++) {
    const result = await migrator.migrateToLatest();
    if (!result.error) return result;
    if (engine !== 'postgres' || attempt >= maxMigrationAttempts || !droppedMeanwhile(result.error))
      throw result.error;
  }
}

const maxMigrationAttempts = 5;

/**
 * The longest a migration statement may go unanswered. A gateway that starts while another instance
 * migrates waits for that one's lock (Kysely waits up to an hour for it), and a migration may
 * rewrite a large table: neither may be cut at DATABASE_QUERY_TIMEOUT_MS, which bounds requests.
 */
const migrationQueryTimeoutMs = 10 * 60_000;

/**
 * A PostgreSQL database for migrating only: a pool of its own (the migrator uses one connection),
 * its queries bounded by migrationQueryTimeoutMs rather than the requests' timeout; destroyed once
 * the migration ends. A connection it loses fails the migration's query, which openStore reports.
 */
function migrationDatabase(
  boundedPool: (config: pg.ClientConfig, onIdleError: (error: Error) => void) => PostgresPool,
  clientConfig: pg.ClientConfig,
): Kysely<Database> {
  return new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: boundedPool(
        {
          ...clientConfig,
          query_timeout: Math.max(clientConfig.query_timeout ?? 0, migrationQueryTimeoutMs),
        },
        () => {},
      ),
    }),
  });
}

/**
 * Kysely's migrator looks for its bookkeeping tables by introspecting every table of every schema
 * (pg_get_serial_sequence per column), so a schema, table or column another client drops or
 * alters meanwhile (another tenant's, a test's) fails it with undefined_table, undefined_column or
 * invalid_schema_name. Nothing of ours has changed then, and the migration is run again.
 */
function droppedMeanwhile(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  // undefined table, column, object or schema; "cache lookup failed" for a relation dropped mid-scan.
  return (
    code === '42P01' ||
    code === '42703' ||
    code === '42704' ||
    code === '3F000' ||
    (code === 'XX000' && /cache lookup failed/.test((error as Error).message))
  );
}

/** Opens the configured engine and brings its schema up to date. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const engine: Engine = options.databaseUrl ? 'postgres' : 'sqlite';
  const onConnectionLost = options.onConnectionLost ?? (() => {});
  // pg is loaded only for PostgreSQL: a gateway on SQLite does not pay for it at start.
  const postgres = options.databaseUrl
    ? { url: options.databaseUrl, ...(await (await import('./postgres.ts')).loadPostgres()) }
    : undefined;
  // One client configuration for the pool and for connections of the store's own (LISTEN).
  const settings: PostgresSettings | undefined =
    options.database ?? postgres?.defaultPostgresBounds;
  const clientConfig = postgres && settings && postgres.clientConfig(postgres.url, settings);
  const db = new Kysely<Database>({
    dialect:
      postgres && clientConfig
        ? new PostgresDialect({
            pool: postgres.boundedPool(
              clientConfig,
              onConnectionLost,
              settings?.preparedStatements,
            ),
          })
        : sqliteDialect(options.dataDir),
  });
  const migrating =
    postgres && clientConfig ? migrationDatabase(postgres.boundedPool, clientConfig) : db;
  try {
    await migrateToLatest(migrating, engine);
  } catch (error) {
    await db.destroy();
    throw error;
  } finally {
    if (migrating !== db) await migrating.destroy();
  }
  return {
    db,
    engine,
    ...(clientConfig ? { clientConfig } : {}),
    ping: async () => {
      try {
        await sql`select 1`.execute(db);
      } catch (error) {
        // A pooled connection that died while idle (a network blip, a failover) fails the first
        // query given to it before the pool hears of its end; that says nothing about the database.
        // Asked again, the pool answers with a live connection or a new one: the database's own word.
        if (!isConnectionTerminated(error)) throw error;
        await sql`select 1`.execute(db);
      }
    },
    close: () => db.destroy(),
  };
}

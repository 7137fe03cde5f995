// better-sqlite3's `prepare`, each SQL text compiled once.
//
// Kysely's SQLite driver prepares every query it runs, and compiling SQL costs about as much as
// running a small lookup: measured on the 100k-item catalog of `npm run bench:scale-queries`,
// 5.5 µs to prepare a folder's counters against 10.7 µs to read them, 10.2 against 6.4 for an
// object by path, 49 against 697 for a listing's page (bench/README.md, "Data at scale"); in a CPU
// profile of the favourites listing under `npm run bench:scale`'s load, `prepare` was 8 % of the
// gateway's time. SQLite re-prepares a kept statement by itself after a schema change.
import { LRUCache } from 'lru-cache';

/** Statements kept compiled: the platform's queries have a few hundred distinct SQL texts. */
export const CACHED_STATEMENTS = 500;

/**
 * `database` for Kysely's SqliteDialect, its `prepare` answering a kept statement for a text seen
 * before. A statement is reused only while no `iterate` holds it (better-sqlite3 refuses to run a
 * busy one); the texts used least recently are dropped past `limit` (SQL with values written
 * inline makes new texts). `database` is better-sqlite3's, or one that adapts its statements
 * (sqlite-booleans.ts): what it compiles is what is kept.
 */
export function withStatementCache<Statement extends { readonly busy: boolean }>(
  database: { close(): void; prepare(text: string): Statement },
  limit = CACHED_STATEMENTS,
): { close(): void; prepare(text: string): Statement } {
  const statements = new LRUCache<string, Statement>({ max: limit });
  return {
    close: () => database.close(),
    prepare(text: string) {
      const kept = statements.get(text);
      if (kept && !kept.busy) return kept;
      const statement = database.prepare(text);
      statements.set(text, statement);
      return statement;
    },
  };
}

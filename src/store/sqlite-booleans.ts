// Booleans on SQLite. better-sqlite3 refuses to bind JavaScript booleans; SQLite keeps them as 0/1.
// The same queries pass `true`/`false` on both engines: on SQLite each statement's parameters are
// turned to 0/1 as they are bound. (A Kysely plugin rebuilding every query's tree to do this cost
// 5 % of the favourites listing's CPU: bench/README.md, "Data at scale".)
import type SQLite from 'better-sqlite3';
import type { SqliteStatement } from 'kysely';

const asSqlite = (value: unknown) => (typeof value === 'boolean' ? (value ? 1 : 0) : value);

/** The parameters as SQLite binds them: the same array when none is a boolean. */
export function bindable(parameters: ReadonlyArray<unknown>): ReadonlyArray<unknown> {
  return parameters.some((value) => typeof value === 'boolean')
    ? parameters.map(asSqlite)
    : parameters;
}

/** A compiled statement as Kysely's SQLite driver runs it, booleans bound as 0/1. */
class BooleanBinding implements SqliteStatement {
  readonly reader: boolean;
  private readonly statement: SQLite.Statement;

  constructor(statement: SQLite.Statement) {
    this.statement = statement;
    this.reader = statement.reader;
  }
  /** Whether an `iterate` still holds the statement (better-sqlite3 refuses to run it meanwhile). */
  get busy(): boolean {
    return this.statement.busy;
  }
  all(parameters: ReadonlyArray<unknown>): unknown[] {
    return this.statement.all(bindable(parameters));
  }
  run(parameters: ReadonlyArray<unknown>) {
    return this.statement.run(bindable(parameters));
  }
  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    return this.statement.iterate(bindable(parameters));
  }
}

/** better-sqlite3's `database`, each statement it compiles binding booleans as 0/1. */
export function withIntegerBooleans(database: SQLite.Database) {
  return {
    close: () => database.close(),
    prepare: (text: string) => new BooleanBinding(database.prepare(text)),
  };
}

/** A boolean column as either engine reads it back (SQLite: 0/1). */
export const asBoolean = (value: boolean | number): boolean => value === true || value === 1;

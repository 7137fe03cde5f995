// A span per SQLite statement when tracing is on. better-sqlite3 has no maintained OpenTelemetry
// instrumentation (pg's covers PostgreSQL), so the one place Kysely runs a statement, the driver's
// connection, is wrapped here: the span's attributes are those pg's instrumentation sets.
import type { CompiledQuery, DatabaseConnection, QueryResult } from 'kysely';
import { activeTracing, inSpan } from '../common/tracing.ts';

/** `SELECT`, `INSERT`, `begin`…: the statement's first word, which names its span. */
function operationOf(sql: string): string {
  return /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'QUERY';
}

class TracedConnection implements DatabaseConnection {
  private readonly connection: DatabaseConnection;

  constructor(connection: DatabaseConnection) {
    this.connection = connection;
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const operation = operationOf(query.sql);
    return inSpan(
      `sqlite.query:${operation}`,
      { 'db.system.name': 'sqlite', 'db.operation.name': operation, 'db.query.text': query.sql },
      () => this.connection.executeQuery<R>(query),
      { childOnly: true },
    );
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.connection.streamQuery<R>(query, chunkSize);
  }
}

/** The connection itself when tracing is off; otherwise one whose statements make spans. */
export function traced(connection: DatabaseConnection): DatabaseConnection {
  return activeTracing() ? new TracedConnection(connection) : connection;
}

import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The planner's statistics for a table whose indexes a migration changed: without them SQLite
 * guesses how selective each index is, and may walk a whole folder where the unique path index
 * finds one row. Not on an empty PostgreSQL table: statistics saying "empty" make its planner pick
 * sequential scans (the foreign-key and uniqueness checks of every insert among them) until
 * autovacuum analyzes it again, so a first bulk load, in one transaction, went quadratic (8 ms a
 * row at 100k).
 */
export async function refreshPlannerStatistics(db: Kysely<unknown>, table: string): Promise<void> {
  const empty =
    db.getExecutor().adapter instanceof PostgresAdapter &&
    (
      await sql<{
        found: boolean;
      }>`select exists (select 1 from ${sql.table(table)}) as found`.execute(db)
    ).rows[0]?.found !== true;
  if (!empty) await sql`analyze ${sql.table(table)}`.execute(db);
}

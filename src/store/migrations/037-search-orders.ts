import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Every data object by date modified, by date created and by size, each then by id: the search's
 * other one-field orders, so that the first page of a search with many hits sorted by one of them
 * is read in that order off the catalog and stops after the page (as migration 034's
 * `data_objects_by_name` does for the default order), instead of sorting every hit. A common
 * word's first page by date modified took 74 ms of SQL on SQLite and 82 on PostgreSQL at 100,000
 * items, against 3 and 8 by name (issue 20, `npm run bench:scale-queries`). Ascending and
 * descending both: an index is read either way. On PostgreSQL the id is in the "C" collation the
 * search sorts text in.
 */
const orders = ['modified_at', 'created_at', 'size'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const column of orders)
    await sql
      .raw(
        `create index data_objects_by_${column} on data_objects (${column}, ${postgres ? 'id collate "C"' : 'id'})`,
      )
      .execute(db);
  // The planner's statistics for the new indexes, so that SQLite does not take one for a folder's
  // listing, whose indexes (034's) it has statistics for; not on an empty PostgreSQL table, for
  // the reason migration 034 gives.
  const empty =
    postgres &&
    (await sql<{ found: boolean }>`select exists (select 1 from data_objects) as found`.execute(db))
      .rows[0]?.found !== true;
  if (!empty) await sql`analyze data_objects`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of orders) await sql.raw(`drop index data_objects_by_${column}`).execute(db);
}

import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { refreshPlannerStatistics } from './planner-statistics.ts';

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
  // So that SQLite does not take one of them for a folder's listing, whose indexes (034's) it has
  // statistics for.
  await refreshPlannerStatistics(db, 'data_objects');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of orders) await sql.raw(`drop index data_objects_by_${column}`).execute(db);
}

import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { refreshPlannerStatistics } from './planner-statistics.ts';

/**
 * Indexes that keep a deep page of a large folder, and the first page of a search with many hits,
 * from reading rows they do not answer (issue 20, `npm run bench:scale`):
 *
 * - `data_objects_page_*` replace migration 033's `data_objects_children_*`: a folder's children
 *   of one type in each order the paged listing offers, now holding every key of that order (the
 *   field, then the case-folded name and the name that break its ties) and the id. The listing
 *   picks a page's ids off the index alone (the walk up to a deep offset reads index entries, not
 *   rows: an index-only scan on PostgreSQL, a covering index on SQLite), then reads the 100 rows
 *   by id. SQLite has no `include`: the id is the last key. On PostgreSQL text is indexed in the
 *   "C" collation the listing sorts in (byte order on both engines).
 * - `data_objects_page_path` is the order by path, new: within one folder every path is the
 *   folder's path, a slash and the name, so the order by path is the byte order of the name.
 * - `data_objects_by_name`: every object by name (byte order) and id, the search's default order,
 *   so that the first page of a search with many hits can be read in order and stop after it,
 *   instead of sorting every hit.
 *
 * Each of these serves `parent_path = ?` (migration 033's indexes served it, and 004's before).
 * An entry holds the parent's path and the name twice: with the data store's limits (a path of
 * 2,048 bytes, a name of 255; src/common/data-path.ts) it stays below PostgreSQL's 2,704-byte
 * limit of a B-tree entry.
 */
const orders: Record<string, (folded: string, name: string) => string[]> = {
  name: (folded, name) => [folded, name],
  path: (_folded, name) => [name],
  modified_at: (folded, name) => ['modified_at', folded, name],
  created_at: (folded, name) => ['created_at', folded, name],
  size: (folded, name) => ['size', folded, name],
};

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const folded = postgres ? '(lower(name) collate "C")' : 'lower(name)';
  const name = postgres ? 'name collate "C"' : 'name';
  for (const [order, keys] of Object.entries(orders)) {
    const columns = ['parent_path', 'type', ...keys(folded, name)];
    const id = postgres ? ') include (id)' : ', id)';
    await sql
      .raw(`create index data_objects_page_${order} on data_objects (${columns.join(', ')}${id}`)
      .execute(db);
  }
  for (const column of ['name', 'modified_at', 'created_at', 'size'])
    await sql.raw(`drop index data_objects_children_${column}`).execute(db);
  await sql
    .raw(
      `create index data_objects_by_name on data_objects (${name}, ${postgres ? 'id collate "C"' : 'id'})`,
    )
    .execute(db);
  await refreshPlannerStatistics(db, 'data_objects');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const folded = postgres ? sql.raw('lower(name) collate "C"') : sql.raw('lower(name)');
  await sql`create index data_objects_children_name on data_objects (parent_path, type, (${folded}))`.execute(
    db,
  );
  for (const column of ['modified_at', 'created_at', 'size'])
    await sql
      .raw(
        `create index data_objects_children_${column} on data_objects (parent_path, type, ${column})`,
      )
      .execute(db);
  for (const order of Object.keys(orders))
    await sql.raw(`drop index data_objects_page_${order}`).execute(db);
  await sql`drop index data_objects_by_name`.execute(db);
}

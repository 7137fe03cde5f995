import { PostgresAdapter, sql, type RawBuilder, type SqlBool } from 'kysely';
import {
  readableCondition,
  type Caller,
  type DataObject,
  type DataStore,
} from '../data-info/index.ts';
import { avusOfObjects } from '../metadata/index.ts';
import { clauseTypes, type ClauseContext } from './clauses.ts';
import { sortFields, type QueryNode, type SearchRequest } from './request.ts';

/**
 * Running a search over the data store's catalog: one condition built from the query, always
 * joined with what the caller may read (data-info's visibility: never another user's private
 * file, only public data for the anonymous caller), counted for `total` and read a page at a time.
 * Hits have the shape of the DE search index's documents (`_source`).
 */
export interface SearchHit {
  _id: string;
  _index: 'data';
  _type: 'file' | 'folder';
  _score: null;
  _source: {
    id: string;
    path: string;
    label: string;
    creator: string;
    fileType: string;
    fileSize: number;
    dateCreated: number;
    dateModified: number;
    metadata: { irods: []; cyverse: { attribute: string; value: string; unit: string }[] };
  };
}

/**
 * `total` is exact (`total_relation` `eq`) or, past the bound the count stopped at, a lower bound
 * (`gte`), as Elasticsearch's `hits.total.relation` says.
 */
export interface SearchAnswer {
  total: number;
  total_relation: 'eq' | 'gte';
  hits: SearchHit[];
}

/**
 * Without `track_total_hits`, `total` counts this many hits at most, or up to the end of the page
 * asked for and one more, whichever is more: a client that pages by `total` can always reach the
 * next page while there is one, and a search with many hits does not count them all (the cost of
 * a count grows with the hits it counts).
 */
export const DEFAULT_TOTAL_BOUND = 1000;

/** The most hits `total` counts for this request; undefined: all of them. */
function totalBound(request: SearchRequest): number | undefined {
  if (request.trackTotalHits === true) return undefined;
  return request.trackTotalHits ?? Math.max(DEFAULT_TOTAL_BOUND, request.from + request.size + 1);
}

/** A query's condition, in both forms of a `Condition`, from one walk of its tree. */
interface QueryCondition {
  plain: RawBuilder<SqlBool>;
  indexed: RawBuilder<SqlBool>;
}

async function conditionOf(node: QueryNode, context: ClauseContext): Promise<QueryCondition> {
  if (node.kind === 'clause') {
    const condition = await clauseTypes[node.type]!.condition(node.args, node.at, context);
    return 'plain' in condition ? condition : { plain: condition, indexed: condition };
  }
  const each = (children: QueryNode[]) =>
    Promise.all(children.map((child) => conditionOf(child, context)));
  const [all, any, none] = await Promise.all([each(node.all), each(node.any), each(node.none)]);
  const combined = (form: keyof QueryCondition) => {
    const parts = all.map((part) => part[form]);
    const or = (some: QueryCondition[]) =>
      sql.join(
        some.map((part) => part[form]),
        sql` or `,
      );
    if (any.length > 0) parts.push(sql<SqlBool>`(${or(any)})`);
    if (none.length > 0) parts.push(sql<SqlBool>`not (${or(none)})`);
    return parts.length === 0
      ? sql<SqlBool>`1 = 1`
      : sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
  };
  return { plain: combined('plain'), indexed: combined('indexed') };
}

/**
 * The orders a first page may be read in off the catalog, each with an index over the whole
 * catalog (by the field, then the id: migration 034's `data_objects_by_name`, 037's others), read
 * forwards or backwards.
 */
const WALKED_FIELDS: ReadonlySet<SearchRequest['sort'][number]['field']> = new Set([
  'label',
  'dateModified',
  'dateCreated',
  'fileSize',
]);
/** The first pages a search may read in its order: those ending by this hit. */
const MAX_WALKED_END = 1000;
/** How many catalog rows a walk reads per hit it looks for (at least MIN_WALKED_ROWS). */
const WALKED_ROWS_PER_HIT = 20;
const MIN_WALKED_ROWS = 2000;
/** A walk first reads this part of its rows, and goes on only when they hold that part of the hits. */
const WALK_PROBE_SHARE = 10;

/**
 * A first page of a search in one field's order (by name when none is asked for; then by id), when
 * its hits are many, read without migration 026's name index (whose candidates, the hits of a
 * common word, are each looked up and sorted before the first row): the first rows of the whole
 * catalog in that order (off WALKED_FIELDS' indexes), each checked against the query (names by
 * `LIKE` alone), the page taken from those that match. They are a prefix of the order, so when
 * they hold hits up to the page's end the page is exact. Then the bounded count the same way: the
 * first rows of the catalog in any order, until one hit past the bound. Either undefined when the
 * rows read (or the first tenth of them, read first) hold too few hits (the hits are sparse: the
 * name index then finds them cheaply).
 *
 * SQLite has no statistics to make this choice. PostgreSQL's planner has, but it multiplies the
 * selectivities of the name index's candidates and of the exact name check as if they were
 * independent (they select the same rows), so it expects a common word's hits to be few and reads
 * every candidate: at 10,000 objects a common word's first page took 8 ms instead of 1, and at
 * 100,000, with statistics that happened to estimate the name check lower, 118 ms (bench/README.md,
 * "Data at scale").
 */
async function walkedSearch(
  db: DataStore['db'],
  request: SearchRequest,
  matching: RawBuilder<SqlBool>,
  readable: RawBuilder<SqlBool>,
  bound: number | undefined,
  postgres: boolean,
  order: RawBuilder<unknown>,
): Promise<{ rows: DataObject[]; found?: number } | undefined> {
  const [first] = request.sort;
  const inIndexedOrder =
    request.sort.length === 0 || (request.sort.length === 1 && WALKED_FIELDS.has(first!.field));
  const end = request.from + request.size;
  if (!inIndexedOrder || request.size === 0 || end > MAX_WALKED_END) return undefined;
  const where = sql<SqlBool>`${matching} and ${readable}`;
  const walked = (hits: number) => Math.max(MIN_WALKED_ROWS, WALKED_ROWS_PER_HIT * hits);
  // The probe: when the walk's first tenth holds less than a tenth of the page's hits, the whole
  // walk would likely not fill the page, and reads no row (a rare term's walked 2,000 rows for
  // nothing first). In the walk's limit, both engines count it before reading any row (in the
  // outer condition, SQLite tests it after reading each).
  const probe = sql`(select count(*) from (select 1 as hit from
      (select * from data_objects o order by ${order} limit ${walked(end) / WALK_PROBE_SHARE}) as o
      where ${where} limit ${end}) as probe)`;
  const page = await sql<DataObject>`select o.* from
    (select * from data_objects o order by ${order}
      limit case when ${end} <= ${WALK_PROBE_SHARE} * ${probe} then ${walked(end)} else 0 end) as o
    where ${where} order by ${order} limit ${request.size} offset ${request.from}`.execute(db);
  if (page.rows.length < request.size) return undefined;
  if (bound === undefined || bound > 2 * MAX_WALKED_END) return { rows: page.rows };
  // The count is exact when it read the whole catalog (`whole`, looked at only when its hits are
  // within the bound): a small catalog's common word is then counted once, not again through the
  // name index. SQLite reads a subquery's rows through a co-routine, every column of each; its
  // first rows are taken by a range of rowids instead (at most `limit` rows, fewer where rows were
  // deleted): a common word's count at 100k, 1.09 -> 0.49 ms.
  const limit = walked(bound + 1);
  const counted = postgres
    ? await sql<{ total: number | string; whole: boolean | null }>`select
        total, case when total <= ${bound} then
          (select count(*) from (select 1 from data_objects limit ${limit}) as catalog) < ${limit}
        end as whole
      from (select count(*) as total from
        (select 1 as hit from (select * from data_objects limit ${limit}) as o
        where ${where} limit ${bound + 1}) as hits) as counted`.execute(db)
    : await sql<{ total: number; whole: number | null }>`select count(*) as total,
        (select max(rowid) from data_objects) < (select min(rowid) from data_objects) + ${limit}
          as whole
      from (select 1 as hit from data_objects o
        where o.rowid < (select min(rowid) from data_objects) + ${limit} and ${where}
        limit ${bound + 1}) as hits`.execute(db);
  const found = Number(counted.rows[0]?.total ?? 0);
  const exact = found > bound || Boolean(counted.rows[0]?.whole);
  return exact ? { rows: page.rows, found } : { rows: page.rows };
}

export async function search(
  data: DataStore,
  caller: Caller,
  request: SearchRequest,
): Promise<SearchAnswer> {
  const { db, zone } = data;
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const matching = await conditionOf(request.query, { db, postgres, caller, zone });
  const readable = await readableCondition(data, caller, sql.ref('o.id'), sql.ref('o.path'));
  const where = sql<SqlBool>`${matching.indexed} and ${readable}`;

  // A bounded count reads one hit past the bound, to tell an exact total from a lower bound.
  const bound = totalBound(request);
  // Text sorts compare code points on both engines (the name index's order too); the id last
  // keeps pages from overlapping, in the last key's direction, so that an index of the key and the
  // id is read either way without sorting (SQLite sorts ties in the other direction as a separate
  // step: a common word's walk by date modified, descending, took 1.03 ms against 0.68 at 100k).
  // No sort asked for is by name.
  const sort: SearchRequest['sort'] =
    request.sort.length > 0 ? request.sort : [{ field: 'label', ascending: true }];
  const order = sql.join(
    [...sort, { field: 'id' as const, ascending: sort.at(-1)!.ascending }].map(
      ({ field, ascending }) => {
        const column = sql.ref(sortFields[field]);
        const text = ['creator', 'id', 'label', 'path'].includes(field);
        const key = text && postgres ? sql`${column} collate "C"` : column;
        return ascending ? sql`${key} asc` : sql`${key} desc`;
      },
    ),
  );
  const walked = await walkedSearch(db, request, matching.plain, readable, bound, postgres, order);
  const rows =
    request.size === 0
      ? []
      : (walked?.rows ??
        (
          await sql<DataObject>`select o.* from data_objects o where ${where}
            order by ${order} limit ${request.size} offset ${request.from}`.execute(db)
        ).rows);
  // A page that is not full ends the hits, so it tells their number and no count is run (a rare
  // term's search then reads its candidates once, not twice); an empty page past the first does
  // not: the hits may have ended before it.
  const pageTells = rows.length < request.size && (rows.length > 0 || request.from === 0);
  const counted =
    walked?.found !== undefined || pageTells
      ? undefined
      : bound === undefined
        ? await sql<{ total: number | string }>`select count(*) as total
          from data_objects o where ${where}`.execute(db)
        : await sql<{ total: number | string }>`select count(*) as total
          from (select 1 as hit from data_objects o where ${where} limit ${bound + 1}) as hits`.execute(
            db,
          );
  const found =
    walked?.found ??
    (pageTells ? request.from + rows.length : Number(counted?.rows[0]?.total ?? 0));
  const [total, total_relation] =
    bound !== undefined && found > bound ? [bound, 'gte' as const] : [found, 'eq' as const];
  if (rows.length === 0) return { total, total_relation, hits: [] };

  const avus = await avusOfObjects(
    db,
    rows.map((row) => row.id),
  );
  return {
    total,
    total_relation,
    hits: rows.map((row) => ({
      _id: row.id,
      _index: 'data',
      _type: row.type === 'dir' ? 'folder' : 'file',
      _score: null,
      _source: {
        id: row.id,
        path: row.path,
        label: row.name,
        creator: `${row.owner}#${zone}`,
        fileType: row.info_type,
        fileSize: Number(row.size),
        dateCreated: Number(row.created_at),
        dateModified: Number(row.modified_at),
        metadata: { irods: [], cyverse: avus.get(row.id) ?? [] },
      },
    })),
  };
}

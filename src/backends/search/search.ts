import { PostgresAdapter, sql, type RawBuilder, type SqlBool } from 'kysely';
import {
  readableCondition,
  type Caller,
  type DataObject,
  type DataStore,
} from '../data-info/index.js';
import { avusOfObjects } from '../metadata/index.js';
import { clauseTypes, type ClauseContext } from './clauses.js';
import { sortFields, type QueryNode, type SearchRequest } from './request.js';

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

export interface SearchAnswer {
  total: number;
  hits: SearchHit[];
}

async function conditionOf(node: QueryNode, context: ClauseContext): Promise<RawBuilder<SqlBool>> {
  if (node.kind === 'clause') return clauseTypes[node.type]!.condition(node.args, node.at, context);
  const all = await Promise.all(node.all.map((child) => conditionOf(child, context)));
  const any = await Promise.all(node.any.map((child) => conditionOf(child, context)));
  const none = await Promise.all(node.none.map((child) => conditionOf(child, context)));
  const parts = [...all];
  if (any.length > 0) parts.push(sql<SqlBool>`(${sql.join(any, sql` or `)})`);
  if (none.length > 0) parts.push(sql<SqlBool>`not (${sql.join(none, sql` or `)})`);
  return parts.length === 0 ? sql<SqlBool>`1 = 1` : sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
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
  const where = sql<SqlBool>`${matching} and ${readable}`;

  const counted = await sql<{ total: number | string }>`select count(*) as total
    from data_objects o where ${where}`.execute(db);
  const total = Number(counted.rows[0]?.total ?? 0);
  if (total === 0 || request.size === 0) return { total, hits: [] };

  // Text sorts compare code points on both engines; the id last keeps pages from overlapping.
  const order = [...request.sort, { field: 'id' as const, ascending: true }].map(
    ({ field, ascending }) => {
      const column = sql.ref(sortFields[field]);
      const text = ['creator', 'id', 'label', 'path'].includes(field);
      const key = text && postgres ? sql`${column} collate "C"` : column;
      return ascending ? sql`${key} asc` : sql`${key} desc`;
    },
  );
  if (request.sort.length === 0)
    order.unshift(sql`${sql.ref('o.name')}${postgres ? sql` collate "C"` : sql``} asc`);
  const page = await sql<DataObject>`select o.* from data_objects o where ${where}
    order by ${sql.join(order)} limit ${request.size} offset ${request.from}`.execute(db);

  const avus = await avusOfObjects(
    db,
    page.rows.map((row) => row.id),
  );
  return {
    total,
    hits: page.rows.map((row) => ({
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

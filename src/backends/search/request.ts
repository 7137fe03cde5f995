import { gatewayError } from '../../common/errors.ts';
import { badField, type Args } from './arguments.ts';
import { clauseTypes } from './clauses.ts';

/**
 * The body of `POST /data/search` (routes.md §26): `{query, size, from, sort}`. A query is
 * `{all, any, none}`, each a list of clauses `{type, args}` or nested queries: every one of `all`,
 * at least one of `any` (when given), none of `none`. Scrolling (`scroll`, `scroll_id`) is not
 * offered: pages are asked for with `from` and `size`.
 */
export type QueryNode =
  | { kind: 'clause'; type: string; args: Args; at: string }
  | { kind: 'query'; all: QueryNode[]; any: QueryNode[]; none: QueryNode[] };

export const sortFields = {
  creator: 'o.owner',
  dateCreated: 'o.created_at',
  dateModified: 'o.modified_at',
  fileSize: 'o.size',
  id: 'o.id',
  label: 'o.name',
  path: 'o.path',
} as const;

export type SortField = keyof typeof sortFields;

export interface SearchRequest {
  query: QueryNode;
  size: number;
  from: number;
  sort: { field: SortField; ascending: boolean }[];
  /**
   * How far `total` counts (Elasticsearch's `track_total_hits`): `true` every hit, a number that
   * many at most (the answer then says whether the total is exact), undefined the default bound.
   */
  trackTotalHits: number | true | undefined;
}

const DEFAULT_SIZE = 10;
const MAX_SIZE = 1000;
/** How deep `from + size` may reach, as Elasticsearch's default `max_result_window`. */
const MAX_WINDOW = 10000;
/** A larger `track_total_hits` counts as this many (Elasticsearch's is an int too). */
const MAX_TRACK_TOTAL_HITS = 2_147_483_647;
const MAX_DEPTH = 8;
const MAX_CLAUSES = 64;

function isObject(value: unknown): value is Args {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function integer(body: Args, name: string, fallback: number, max: number): number {
  const value = body[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max)
    throw badField(name, `must be an integer from 0 to ${max}`, value);
  return value;
}

function readSort(value: unknown): SearchRequest['sort'] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((item, index) => {
    const at = `sort[${index}]`;
    if (!isObject(item)) throw badField(at, 'must be an object {field, order}', item);
    if (typeof item.field !== 'string' || !Object.hasOwn(sortFields, item.field))
      throw badField(
        `${at}.field`,
        `must be one of ${Object.keys(sortFields).join(', ')}`,
        item.field,
      );
    const order = item.order ?? 'ascending';
    if (order !== 'ascending' && order !== 'descending')
      throw badField(`${at}.order`, 'must be ascending or descending', order);
    return { field: item.field as SortField, ascending: order === 'ascending' };
  });
}

function readNode(
  value: unknown,
  at: string,
  depth: number,
  count: { clauses: number },
): QueryNode {
  if (!isObject(value))
    throw badField(at, 'must be a clause {type, args} or a query {all, any, none}', value);
  if (depth > MAX_DEPTH) throw badField(at, `nests queries deeper than ${MAX_DEPTH}`);
  const isQuery = ['all', 'any', 'none'].some((key) => value[key] !== undefined);
  if (isQuery || value.type === undefined) {
    const part = (key: 'all' | 'any' | 'none'): QueryNode[] => {
      const list = value[key];
      if (list === undefined || list === null) return [];
      if (!Array.isArray(list)) throw badField(`${at}.${key}`, 'must be a list', list);
      return list.map((item, index) => readNode(item, `${at}.${key}[${index}]`, depth + 1, count));
    };
    return { kind: 'query', all: part('all'), any: part('any'), none: part('none') };
  }
  if (typeof value.type !== 'string' || !Object.hasOwn(clauseTypes, value.type))
    throw badField(
      `${at}.type`,
      `must be one of ${Object.keys(clauseTypes).join(', ')}`,
      value.type,
    );
  if (++count.clauses > MAX_CLAUSES) throw badField(at, `is past ${MAX_CLAUSES} clauses`);
  const args = value.args ?? {};
  if (!isObject(args)) throw badField(`${at}.args`, 'must be an object', args);
  return { kind: 'clause', type: value.type, args, at: `${at}.args` };
}

/** The search a body asks for; 400s name the field at fault. */
export function readSearchRequest(body: unknown): SearchRequest {
  if (!isObject(body)) throw badField('body', 'must be a JSON object');
  if (body.scroll !== undefined || body.scroll_id !== undefined)
    throw gatewayError(
      'ERR_ILLEGAL_ARGUMENT',
      'The embedded search does not scroll: ask for pages with from and size',
      { field: body.scroll_id !== undefined ? 'scroll_id' : 'scroll' },
    );
  if (body.query === undefined) throw badField('query', 'is required');
  const query = readNode(body.query, 'query', 0, { clauses: 0 });
  const size = integer(body, 'size', DEFAULT_SIZE, MAX_SIZE);
  const from = integer(body, 'from', 0, MAX_WINDOW);
  if (from + size > MAX_WINDOW)
    throw badField('from', `plus size may not pass ${MAX_WINDOW}`, from);
  return { query, size, from, sort: readSort(body.sort), trackTotalHits: readTrackTotalHits(body) };
}

function readTrackTotalHits(body: Args): SearchRequest['trackTotalHits'] {
  const value = body.track_total_hits;
  if (value === undefined || value === null) return undefined;
  if (value === true) return true;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0)
    return Math.min(value, MAX_TRACK_TOTAL_HITS);
  throw badField('track_total_hits', 'must be true or an integer from 0', value);
}

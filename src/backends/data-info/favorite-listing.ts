import type { FastifyPluginAsync } from 'fastify';
import { sql, type Expression, type SqlBool } from 'kysely';
import { favoriteCountsOf, favoritesOf, type FavoriteDataType } from '../metadata/index.ts';
import type { DataObject } from './object-index.ts';
import {
  entityTypes,
  orderObjects,
  sortDirs,
  sortFields,
  type SortDir,
  type SortField,
} from './listing.ts';
import { choiceParam, integerParam, valuesOf } from './query.ts';
import { pageStats, statFilter } from './stat-routes.ts';
import type { Caller, DataStore } from './store.ts';
import { visibilityOf, type Visibility } from './visibility.ts';

/** The most entries one page may hold, as `/stat-lister`. */
const MAX_PAGE = 100_000;

/** The object types, in the listing's order: folders, then files. */
const objectTypes = ['dir', 'file'] as const;
type ObjectType = (typeof objectTypes)[number];

/** The copy of each sort field in `favorites` (migration 035). */
const keyColumns: Record<SortField, string> = {
  name: 'f.obj_name',
  path: 'f.obj_path',
  datemodified: 'f.obj_modified',
  datecreated: 'f.obj_created',
  size: 'f.obj_size',
};

/**
 * A half-open range of paths `[from, to)` in byte order (the order of both engines here: SQLite's
 * binary collation, the "C" collation of migration 035's copies on PostgreSQL); no bound is open.
 */
interface PathRange {
  from?: string;
  to?: string;
}

/** Byte order of UTF-8 text (JavaScript's `<` compares UTF-16 code units). */
function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** `a` before `b` as lower bounds (none = the lowest). */
const fromOrder = (a: PathRange, b: PathRange) =>
  a.from === undefined ? -1 : b.from === undefined ? 1 : compareBytes(a.from, b.from);

/** Everything below `folder` (not the folder itself): `[folder/, folder0)`, '0' following '/'. */
const below = (folder: string): PathRange => ({ from: `${folder}/`, to: `${folder}0` });

/**
 * The paths where a favourite may be unreadable although the caller holds grants: outside every
 * granted root (`roots`, topmost, so their ranges do not overlap), and in other users' trash.
 * A superset is harmless (each favourite found there is checked), a subset would not be.
 */
export function uncoveredRanges(
  roots: string[],
  hidden: { below: string; except: string },
): PathRange[] {
  const covered = roots.map(below).sort(fromOrder);
  const ranges: PathRange[] = [];
  let cursor: string | undefined;
  for (const range of covered) {
    ranges.push({ from: cursor, to: range.from });
    cursor = range.to;
  }
  ranges.push({ from: cursor });
  const trash = below(hidden.below);
  const own = below(hidden.except);
  ranges.push({ from: trash.from, to: own.from }, { from: own.to, to: trash.to });
  // Merged, without empty ones.
  const merged: PathRange[] = [];
  for (const range of ranges
    .filter(
      (range) =>
        range.from === undefined ||
        range.to === undefined ||
        compareBytes(range.from, range.to) < 0,
    )
    .sort(fromOrder)) {
    const last = merged[merged.length - 1];
    if (
      last &&
      (last.to === undefined ||
        (range.from !== undefined && compareBytes(range.from, last.to) <= 0))
    ) {
      if (last.to !== undefined && (range.to === undefined || compareBytes(range.to, last.to) > 0))
        last.to = range.to;
    } else merged.push({ ...range });
  }
  return merged;
}

/**
 * GET `/favorite-lister` (an embedded-only addition to backends.md §2.1, for the gateway's
 * favourites listing): `/stat-lister`'s answer for "the favourites of the caller" instead of a
 * list of ids. Registered only when the metadata service is hosted on the same store
 * (BackendContext.hosted): the caller's favourites are read from metadata's `favorites` table
 * through metadata's door (favoritesOf), so the listing has no cap on the number of favourites and
 * sends no ids anywhere.
 *
 * Query: `user`, `entity-type` (`any` default, `file`, `folder`: the kind the favourite was marked
 * as), `sort-field` (or `sort-col`), `sort-dir`, `limit`, `offset`, `info-type`* (files of these
 * info types; folders pass), `filter-include`, `filter-exclude`. Answer `{files, folders, total}`:
 * the favourites that exist and the caller can read, folders first, sorted as `/stat-lister` sorts;
 * `total` is exactly how many there are (the legacy web UI pages by it).
 *
 * Why this design (issue 20: a page and its total independent of the number of favourites):
 *
 * - **The page is walked, not sorted.** Migration 035 keeps a copy of each marked object's sort
 *   keys in `favorites` (type, name, path, dates, size; NULL once the object is deleted), rewritten
 *   by triggers in the transaction that renames, moves, changes or deletes the object, and indexes
 *   the owner's favourites of one object type in each order offered (`favorites_page_*`). Folders
 *   and then files are read in index order, each checked for readability as it comes
 *   (`Visibility.readableBelow` on the copied path: below a granted root, or a grant of its own,
 *   and not in another user's trash), and the walk stops after the page: a first page reads about
 *   `limit` favourites, a deep page `offset + limit` index entries (as the paged folder listing).
 *   A favourite of a deleted object has no type, so no walk finds it; one the caller can no longer
 *   read is skipped by the check. Only the page's rows are read from `data_objects`.
 *   Walking `data_objects`' own name index instead, with a semi-join on the favourites, would be
 *   quick only when most objects are favourites (a user with 10 favourites in a catalog of
 *   millions would read the catalog), and would not serve the date and size orders.
 * - **The total is kept, minus the exceptions.** `favorite_counts` (migration 035) holds, per
 *   owner, marked kind and object type, how many favourites have an existing object, kept by
 *   triggers on `favorites` (so mark, unmark and an object's deletion all count). Readability is
 *   not kept (a grant given or taken away on any folder above a favourite changes it): it is
 *   checked where it can fail. A favourite lying below one of the caller's topmost granted folders
 *   (Visibility.grantedRoots) is readable unless it is in another user's trash, so only the
 *   favourites outside those folders' path ranges, or in other users' trash, are checked
 *   (`favorites_page_path`, one index range each; uncoveredRanges), and the unreadable ones are
 *   taken off the count. Usually that is few or none (a user's own things lie in their home): the
 *   total costs a few index probes whatever the number of favourites. What it still reads: the
 *   favourites of things shared with the caller one by one (files outside every granted folder),
 *   each checked.
 * - **Where it counts instead.** With `info-type` (a file's info type is not copied) the files are
 *   counted with their objects joined, and past MAX_SEARCH_ROOTS granted folders (readableFast's
 *   fallback) every favourite is counted with the full readability check: exact, linear in the
 *   favourites.
 *
 * The total and the page (one statement per object type on it) are separate statements (no
 * transaction): a favourite marked or removed between them can make one answer's total and page
 * disagree by that one.
 */
export const favoriteListingRoutes: FastifyPluginAsync<{ data: DataStore }> = async (
  app,
  { data },
) => {
  const visibility = visibilityOf(data);

  app.get('/favorite-lister', async (request) => {
    const caller = await data.callerOf(request.query);
    const entityType = choiceParam(request.query, 'entity-type', entityTypes, 'any');
    const sortField = choiceParam(request.query, ['sort-field', 'sort-col'], sortFields, 'name');
    const sortDir = choiceParam(request.query, 'sort-dir', sortDirs, 'ASC');
    const limit = integerParam(request.query, 'limit', 0, MAX_PAGE) ?? Number.MAX_SAFE_INTEGER;
    const offset = integerParam(request.query, 'offset', 0, Number.MAX_SAFE_INTEGER) ?? 0;
    const infoTypes = valuesOf(request.query, 'info-type').filter((type) => type !== '');
    const pick = statFilter(request.query);
    const types: FavoriteDataType[] =
      entityType === 'any' ? ['file', 'folder'] : [entityType === 'file' ? 'file' : 'folder'];

    const favorites = new Favorites(data, visibility, caller, types, infoTypes);
    await favorites.prepare();
    const totals = await favorites.totals();

    // Folders, then files: the page's part of each, walked in order.
    const page: DataObject[] = [];
    let skip = offset;
    for (const type of objectTypes) {
      const wanted = limit - page.length;
      if (wanted <= 0) break;
      if (skip >= totals[type]) {
        skip -= totals[type];
        continue;
      }
      page.push(...(await favorites.page(type, sortField, sortDir, skip, wanted)));
      skip = 0;
    }
    return {
      ...(await pageStats(data, caller, page, pick)),
      total: totals.dir + totals.file,
    };
  });
};

/** One listing's favourites: the caller's, of the kinds asked, readable, passing info-type. */
class Favorites {
  /** The caller's topmost granted folders, or undefined when there are too many to use. */
  private roots: string[] | undefined;

  private readonly data: DataStore;
  private readonly visibility: Visibility;
  private readonly caller: Caller;
  private readonly types: FavoriteDataType[];
  private readonly infoTypes: string[];

  constructor(
    data: DataStore,
    visibility: Visibility,
    caller: Caller,
    types: FavoriteDataType[],
    infoTypes: string[],
  ) {
    this.data = data;
    this.visibility = visibility;
    this.caller = caller;
    this.types = types;
    this.infoTypes = infoTypes;
  }

  async prepare(): Promise<void> {
    this.roots = await this.visibility.grantedRoots(this.caller);
  }

  /** SQL: the favourite `f` is readable (its copied path and its id). */
  private readable(): Expression<SqlBool> {
    const path = sql.ref('f.obj_path');
    return this.roots === undefined
      ? this.visibility.readable(this.caller, path)
      : this.visibility.readableBelow(this.caller, this.roots, sql.ref('f.target_id'), path);
  }

  /** The caller's favourites of the kinds asked whose object exists and is of one of `types`. */
  private ofTypes(types: ObjectType[]) {
    let query = favoritesOf(this.data.db, this.caller.name, this.types).where(
      'f.obj_type',
      'in',
      types,
    );
    // Folders pass the info-type filter; files need their object's info type.
    if (types.includes('file') && this.infoTypes.length > 0)
      query = query.where((eb) =>
        eb.or([
          eb('f.obj_type', '=', 'dir'),
          eb.exists(
            eb
              .selectFrom('data_objects as o')
              .select('o.id')
              .whereRef('o.id', '=', 'f.target_id')
              .where('o.info_type', 'in', this.infoTypes),
          ),
        ]),
      );
    return query;
  }

  /** How many folders and files the listing holds. */
  async totals(): Promise<Record<ObjectType, number>> {
    const totals: Record<ObjectType, number> = { dir: 0, file: 0 };
    const counted: ObjectType[] = [];
    if (this.roots === undefined) counted.push(...objectTypes);
    else {
      const kept: ObjectType[] = this.infoTypes.length > 0 ? ['dir'] : ['dir', 'file'];
      if (this.infoTypes.length > 0) counted.push('file');
      // The kept counts less the unreadable favourites, found where they may lie (one index
      // range each): one statement.
      const ranges = uncoveredRanges(this.roots, this.visibility.hiddenRange(this.caller));
      const parts = ranges.map((range) => {
        let part = this.ofTypes(kept).select(['f.obj_type', sql<number>`-1`.as('n')]);
        if (range.from !== undefined) part = part.where('f.obj_path', '>=', range.from);
        if (range.to !== undefined) part = part.where('f.obj_path', '<', range.to);
        return part.where(sql<SqlBool>`not ${this.readable()}`);
      });
      const union = parts.reduce(
        (all, part) => all.unionAll(part),
        favoriteCountsOf(this.data.db, this.caller.name, this.types)
          .select([sql<ObjectType | null>`obj_type`.as('obj_type'), sql<number>`count`.as('n')])
          .where('obj_type', 'in', kept),
      );
      const rows = await this.data.db
        .selectFrom(union.as('c'))
        .select((eb) => ['c.obj_type', eb.fn.sum<number | string>('c.n').as('count')])
        .groupBy('c.obj_type')
        .execute();
      for (const row of rows) totals[row.obj_type as ObjectType] += Number(row.count);
    }
    for (const type of counted) {
      const row = await this.ofTypes([type])
        .where(this.readable())
        .select((eb) => eb.fn.countAll<number | string>().as('count'))
        .executeTakeFirstOrThrow();
      totals[type] = Number(row.count);
    }
    return totals;
  }

  /**
   * The objects of `limit` readable favourites of `type` after `offset` of them, in the order
   * asked: the walk picks their ids (a deferred join), then only those rows are read and put in
   * the same order (orderObjects over the objects' own keys, which the copies equal).
   */
  async page(
    type: ObjectType,
    field: SortField,
    dir: SortDir,
    offset: number,
    limit: number,
  ): Promise<DataObject[]> {
    const direction = sql.raw(dir === 'DESC' ? 'desc' : 'asc');
    const folded = sql`lower(f.obj_name)`;
    let walk = this.ofTypes([type]).select('f.target_id').where(this.readable());
    // The order of a favorites_page_* index (owner and type fixed); ties as orderObjects breaks
    // them (case-folded name, name, id, ascending), sorted as they come.
    if (field === 'name')
      walk = walk
        .orderBy(sql`${folded} ${direction}`)
        .orderBy(sql`f.obj_name ${direction}`)
        .orderBy('f.target_id');
    else if (field === 'path')
      walk = walk.orderBy(sql`f.obj_path ${direction}`).orderBy('f.target_id');
    else
      walk = walk
        .orderBy(sql`${sql.ref(keyColumns[field])} ${direction}`)
        .orderBy(folded)
        .orderBy('f.obj_name')
        .orderBy('f.target_id');
    const rows = await orderObjects(
      this.data.db,
      this.data.db
        .selectFrom('data_objects as o')
        .selectAll('o')
        .where('o.id', 'in', walk.limit(limit).offset(offset)),
      field,
      dir,
    ).execute();
    return rows as DataObject[];
  }
}

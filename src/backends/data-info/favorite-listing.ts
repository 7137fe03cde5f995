import type { FastifyPluginAsync } from 'fastify';
import { sql } from 'kysely';
import { requireUserParam } from '../../common/query-params.js';
import { favoritesOf, type FavoriteDataType } from '../metadata/index.js';
import type { DataObject } from './object-index.js';
import { entityTypes, orderObjects, sortDirs, sortFields } from './listing.js';
import { choiceParam, integerParam, valuesOf } from './query.js';
import { pageStats, statFilter } from './stat-routes.js';
import type { DataStore } from './store.js';
import { visibilityOf } from './visibility.js';

/** The most entries one page may hold, as `/stat-lister`. */
const MAX_PAGE = 100_000;
/** The page's rows are read by id, this many ids a statement. */
const ROWS_PER_READ = 10_000;

/**
 * GET `/favorite-lister` (an embedded-only addition to backends.md §2.1, for the gateway's
 * favourites listing): `/stat-lister`'s answer for "the favourites of the caller" instead of a
 * list of ids. Registered only when the metadata service is hosted on the same store
 * (BackendContext.hosted): the caller's favourites are read from metadata's `favorites` table
 * through metadata's door (favoritesOf), joined to the data objects in one query, so the listing
 * has no cap on the number of favourites and sends no ids anywhere.
 *
 * Query: `user`, `entity-type` (`any` default, `file`, `folder`: the kind the favourite was marked
 * as), `sort-field` (or `sort-col`), `sort-dir`, `limit`, `offset`, `info-type`* (files of these
 * info types; folders pass), `filter-include`, `filter-exclude`. Answer `{files, folders, total}`:
 * the favourites that exist and the caller can read, folders first, sorted as `/stat-lister` sorts.
 *
 * The query starts from the caller's favourites (the primary key `(owner_id, target_id)`) and
 * looks each object up by id (a `cross join`, which SQLite keeps in that order; PostgreSQL plans
 * it as any inner join); readability is `Visibility.readableFast`. One pass gives the page's ids
 * (a sort of ids and keys only, not whole rows) and the total (a window count), then the page's
 * rows are read by id. That pass still reads every favourite of the caller: the time grows with
 * their number (bench/README.md, "Data at scale").
 */
export const favoriteListingRoutes: FastifyPluginAsync<{ data: DataStore }> = async (
  app,
  { data },
) => {
  const visibility = visibilityOf(data);

  app.get('/favorite-lister', async (request) => {
    const caller = await data.caller(requireUserParam(request.query));
    const entityType = choiceParam(request.query, 'entity-type', entityTypes, 'any');
    const sortField = choiceParam(request.query, ['sort-field', 'sort-col'], sortFields, 'name');
    const sortDir = choiceParam(request.query, 'sort-dir', sortDirs, 'ASC');
    const limit = integerParam(request.query, 'limit', 0, MAX_PAGE) ?? Number.MAX_SAFE_INTEGER;
    const offset = integerParam(request.query, 'offset', 0, Number.MAX_SAFE_INTEGER) ?? 0;
    const infoTypes = valuesOf(request.query, 'info-type').filter((type) => type !== '');
    const pick = statFilter(request.query);
    const types: FavoriteDataType[] =
      entityType === 'any' ? ['file', 'folder'] : [entityType === 'file' ? 'file' : 'folder'];

    let matching = favoritesOf(data.db, caller.name, types)
      .crossJoin('data_objects as o')
      .whereRef('o.id', '=', 'f.target_id')
      .where(await visibility.readableFast(caller, sql.ref('o.id'), sql.ref('o.path')));
    if (infoTypes.length > 0)
      matching = matching.where((eb) =>
        eb.or([eb('o.type', '=', 'dir'), eb('o.info_type', 'in', infoTypes)]),
      );

    // One pass over the favourites for the page's ids (folders first; a sort of ids and keys, not
    // whole rows) and, as a window over every match, the total; a page past the end counts apart.
    const ids = await orderObjects(
      data.db,
      matching.select((eb) => ['o.id', eb.fn.countAll<number>().over().as('total')]),
      sortField,
      sortDir,
    )
      .limit(limit)
      .offset(offset)
      .execute();
    const total =
      ids.length > 0
        ? Number(ids[0]!.total)
        : Number(
            (
              await matching
                .select((eb) => eb.fn.countAll<number>().as('count'))
                .executeTakeFirstOrThrow()
            ).count,
          );
    // Large pages (a limit up to MAX_PAGE) in parts, within what both engines bind.
    const rows: DataObject[] = [];
    for (let at = 0; at < ids.length; at += ROWS_PER_READ) {
      const part = ids.slice(at, at + ROWS_PER_READ).map((row) => row.id);
      rows.push(
        ...((await data.db
          .selectFrom('data_objects')
          .selectAll()
          .where('id', 'in', part)
          .execute()) as DataObject[]),
      );
    }
    const byId = new Map(rows.map((row) => [row.id, row]));
    const page = ids.map((row) => byId.get(row.id)).filter((row) => row !== undefined);
    return {
      ...(await pageStats(data, caller, page, pick)),
      total,
    };
  });
};

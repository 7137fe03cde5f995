import type { FastifyPluginAsync } from 'fastify';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { MAX_BULK_PATHS } from './bulk.ts';
import { atLeast, type DataObject } from './object-index.ts';
import type { Permission, Stat } from '../../common/data-stat.ts';
import { ancestorsOf } from '../../common/data-path.ts';
import { isUuid } from '../../common/ids.ts';
import { orderObjects, sortDirs, sortFields } from './listing.ts';
import {
  badParameter,
  booleanParam,
  choiceParam,
  commaListParam,
  integerParam,
  valuesOf,
} from './query.ts';
import type { Caller, DataStore } from './store.ts';
import { reported, visibilityOf } from './visibility.ts';
import { below } from './tree.ts';
import { GatewayError, gatewayError } from '../../common/errors.ts';

/** backends.md §2.2: the keys `filter-include` / `filter-exclude` choose among. */
const statKeys = [
  'id',
  'path',
  'type',
  'label',
  'date-created',
  'date-modified',
  'permission',
  'share-count',
  'file-size',
  'md5',
  'content-type',
  'infoType',
  'file-count',
  'dir-count',
] as const;

const validations = ['read', 'write', 'own'] as const;

/** Picks the stat keys the query asks for (all when it names none). */
export function statFilter(query: unknown): (stat: Stat) => Partial<Stat> {
  const include = commaListParam(query, 'filter-include');
  const exclude = commaListParam(query, 'filter-exclude');
  for (const [name, keys] of [
    ['filter-include', include],
    ['filter-exclude', exclude],
  ] as const) {
    const unknown = keys.filter((key) => !(statKeys as readonly string[]).includes(key));
    if (unknown.length > 0)
      throw badParameter(
        name,
        `names unknown stat keys (${unknown.join(', ')}); known: ${statKeys.join(', ')}`,
        keys.join(','),
      );
  }
  if (include.length === 0 && exclude.length === 0) return (stat) => stat;
  // The kept keys are chosen once, in the stat's own order: each stat is then copied key by key
  // (objects of one shape), not rebuilt through Object.entries and Object.fromEntries.
  const kept = statKeys.filter(
    (key) => (include.length === 0 || include.includes(key)) && !exclude.includes(key),
  );
  return (stat) => {
    const picked: Partial<Record<keyof Stat, unknown>> = {};
    for (const key of kept) if (stat[key] !== undefined) picked[key] = stat[key];
    return picked as Partial<Stat>;
  };
}

/**
 * `/stat-lister` takes a whole set at once (a user's favourites: the gateway lists them in one
 * call), so it accepts more ids than the other bulk routes; both engines bind this many parameters.
 */
export const MAX_LISTED_IDS = 20_000;

function bulkLimit(count: number, limit = MAX_BULK_PATHS): void {
  if (count > limit) {
    throw gatewayError(
      'ERR_TOO_MANY_RESULTS',
      `at most ${limit} paths or ids are accepted; ${count} were sent`,
      { count, limit },
    );
  }
}

const pathsAndIds = Type.Object({
  paths: Type.Optional(Type.Array(Type.String())),
  ids: Type.Optional(Type.Array(Type.String())),
});
const pathsOnly = Type.Object({ paths: Type.Array(Type.String()) });
const idsOnly = Type.Object({ ids: Type.Array(Type.String()) });

/**
 * Stats in bulk (backends.md §2.1): `/stat-gatherer`, `/path-info`, `/stat-lister`,
 * `/existence-marker`, `/creatability-marker`.
 */
export const statRoutes: FastifyPluginAsync<{ data: DataStore }> = async (app, { data }) => {
  const visibility = visibilityOf(data);

  /** The stat of an object the caller holds `needed` on (read also admits pass-through folders). */
  const checkedStat = async (
    caller: Caller,
    object: DataObject,
    needed: Permission,
  ): Promise<Stat> => {
    if (needed === 'read')
      return data.stat(caller, object, reported(await visibility.requireRead(caller, object)));
    return data.stat(caller, object, await visibility.requireLevel(caller, object, needed));
  };

  /** stat-gatherer and path-info: one stat per requested path and id, or the first failure (unless told to skip it). */
  const gather = async (request: { query: unknown; body: unknown }) => {
    const caller = await data.callerOf(request.query);
    const needed = choiceParam(request.query, 'validation-behavior', validations, 'read');
    const ignoreMissing = booleanParam(request.query, 'ignore-missing');
    const ignoreInaccessible = booleanParam(request.query, 'ignore-inaccessible');
    const pick = statFilter(request.query);
    const { paths = [], ids = [] } = request.body as { paths?: string[]; ids?: string[] };
    bulkLimit(paths.length + ids.length);
    const canonical = paths.map((path) => data.path(path, 'paths'));
    for (const id of ids)
      if (!isUuid(id))
        throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `${JSON.stringify(id)} is not an id`, {
          field: 'ids',
          id,
        });

    const statOne = async (
      object: DataObject | undefined,
      missing: () => GatewayError,
    ): Promise<Partial<Stat> | undefined> => {
      if (!object) {
        if (ignoreMissing) return undefined;
        throw missing();
      }
      try {
        return pick(await checkedStat(caller, object, needed));
      } catch (error) {
        if (
          ignoreInaccessible &&
          error instanceof GatewayError &&
          ['ERR_NOT_READABLE', 'ERR_NOT_WRITEABLE', 'ERR_NOT_OWNER'].includes(error.errorCode)
        ) {
          return undefined;
        }
        throw error;
      }
    };

    const byPath: Record<string, Partial<Stat>> = {};
    const pathStats = await Promise.all(
      canonical.map(async (path) =>
        statOne(await data.catalog.byPath(path), () =>
          gatewayError('ERR_DOES_NOT_EXIST', `${path} does not exist`, { path, paths: [path] }),
        ),
      ),
    );
    paths.forEach((path, index) => {
      const stat = pathStats[index];
      if (stat) byPath[path] = stat;
    });
    const byId: Record<string, Partial<Stat>> = {};
    const idStats = await Promise.all(
      ids.map(async (id) =>
        statOne(await data.catalog.byId(id.toLowerCase()), () =>
          gatewayError('ERR_DOES_NOT_EXIST', `no file or folder has the id ${id}`, {
            id,
            ids: [id],
          }),
        ),
      ),
    );
    ids.forEach((id, index) => {
      const stat = idStats[index];
      if (stat) byId[id] = stat;
    });
    return { paths: byPath, ids: byId };
  };

  app.post('/stat-gatherer', { schema: { body: pathsAndIds } }, gather);
  app.post('/path-info', { schema: { body: pathsAndIds } }, gather);

  app.post('/stat-lister', { schema: { body: idsOnly } }, async (request) => {
    const caller = await data.callerOf(request.query);
    const { ids } = request.body as { ids: string[] };
    bulkLimit(ids.length, MAX_LISTED_IDS);
    for (const id of ids)
      if (!isUuid(id))
        throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `${JSON.stringify(id)} is not an id`, {
          field: 'ids',
          id,
        });
    const sortField = choiceParam(request.query, ['sort-field', 'sort-col'], sortFields, 'name');
    const sortDir = choiceParam(request.query, 'sort-dir', sortDirs, 'ASC');
    const limit = integerParam(request.query, 'limit', 0, 100_000);
    const offset = integerParam(request.query, 'offset', 0, Number.MAX_SAFE_INTEGER) ?? 0;
    const infoTypes = valuesOf(request.query, 'info-type').filter((type) => type !== '');
    const pick = statFilter(request.query);
    if (ids.length === 0) return { files: [], folders: [], total: 0 };

    let matching = data.db
      .selectFrom('data_objects as o')
      .where(
        'o.id',
        'in',
        ids.map((id) => id.toLowerCase()),
      )
      .where(visibility.readable(caller, sql.ref('o.path')));
    if (infoTypes.length > 0)
      matching = matching.where((eb) =>
        eb.or([eb('o.type', '=', 'dir'), eb('o.info_type', 'in', infoTypes)]),
      );
    const [counted, page] = await Promise.all([
      matching.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
      (() => {
        const ordered = orderObjects(data.db, matching.selectAll('o'), sortField, sortDir);
        if (limit === undefined)
          return ordered.offset(offset).limit(Number.MAX_SAFE_INTEGER).execute();
        return ordered.limit(limit).offset(offset).execute();
      })() as Promise<DataObject[]>,
    ]);
    return { ...(await pageStats(data, caller, page, pick)), total: Number(counted.count) };
  });

  app.post('/existence-marker', { schema: { body: pathsOnly } }, async (request) => {
    const caller = await data.callerOf(request.query);
    const { paths } = request.body as { paths: string[] };
    bulkLimit(paths.length);
    const canonical = paths.map((path) => data.path(path, 'paths'));
    const answers = await Promise.all(
      canonical.map(async (path) => {
        const object = await data.catalog.byPath(path);
        return object !== undefined && (await visibility.access(caller, object)) !== undefined;
      }),
    );
    return { paths: Object.fromEntries(paths.map((path, index) => [path, answers[index]!])) };
  });

  app.post('/creatability-marker', { schema: { body: pathsOnly } }, async (request) => {
    const caller = await data.callerOf(request.query);
    const { paths } = request.body as { paths: string[] };
    bulkLimit(paths.length);
    const canonical = paths.map((path) => data.path(path, 'paths'));
    const answers = await Promise.all(canonical.map((path) => creatable(data, caller, path)));
    return { paths: Object.fromEntries(paths.map((path, index) => [path, answers[index]!])) };
  });
};

/** A listed page's stats (the caller's level on each), files and folders apart, in page order. */
export async function pageStats(
  data: DataStore,
  caller: Caller,
  page: DataObject[],
  pick: (stat: Stat) => Partial<Stat>,
): Promise<{ files: Partial<Stat>[]; folders: Partial<Stat>[] }> {
  const levels = await visibilityOf(data).levels(
    caller,
    page.map((object) => object.path),
  );
  const stats = (
    await data.stats(
      caller,
      page.map((object) => ({ object, permission: levels.get(object.path) ?? 'read' })),
    )
  ).map(pick);
  return {
    files: stats.filter((_stat, index) => page[index]!.type === 'file'),
    folders: stats.filter((_stat, index) => page[index]!.type === 'dir'),
  };
}

/** A path can be created when nothing is there and its nearest existing ancestor is a folder the caller can write. */
async function creatable(data: DataStore, caller: Caller, path: string): Promise<boolean> {
  if (caller.anonymous) return false;
  const chain = [...ancestorsOf(path), path];
  const existing = await data.db
    .selectFrom('data_objects')
    .select(['path', 'type'])
    .where('path', 'in', chain)
    .execute();
  if (existing.some((object) => object.path === path)) return false;
  const nearest = existing.sort((a, b) => b.path.length - a.path.length)[0];
  if (!nearest || nearest.type !== 'dir') return false;
  return atLeast(await visibilityOf(data).level(caller, nearest.path), 'write');
}

/**
 * GET /usage-summary (an addition to backends.md §2, for the gateway's `/secured/filesystem/index`):
 * everything below the caller's home (`files`, `folders`, `bytes`) and their trash (`items` at its
 * top level, `bytes` of all its files). Anonymous callers have neither: ERR_NOT_A_USER.
 */
export const usageSummaryRoutes: FastifyPluginAsync<{ data: DataStore }> = async (
  app,
  { data },
) => {
  const totalsBelow = async (folder: string) => {
    const rows = await data.db
      .selectFrom('data_objects')
      .select([
        'type',
        (eb) => eb.fn.countAll<number>().as('count'),
        (eb) => eb.fn.sum<number>('size').as('bytes'),
      ])
      .where(below(folder))
      .groupBy('type')
      .execute();
    const of = (type: 'file' | 'dir') => rows.find((row) => row.type === type);
    return {
      files: Number(of('file')?.count ?? 0),
      folders: Number(of('dir')?.count ?? 0),
      bytes: Number(of('file')?.bytes ?? 0),
    };
  };

  app.get('/usage-summary', async (request) => {
    const caller = await data.writerOf(request.query);
    const { user_home_path: home, user_trash_path: trash } = data.catalog.basePaths(caller.name);
    const [inHome, inTrash, trashItems] = await Promise.all([
      totalsBelow(home),
      totalsBelow(trash),
      data.db
        .selectFrom('data_objects')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('parent_path', '=', trash)
        .executeTakeFirstOrThrow(),
    ]);
    return { home: inHome, trash: { items: Number(trashItems.count), bytes: inTrash.bytes } };
  });
};

// Tag: favorites. routes.md §5, spec "Favorite and favorite collections", "Favorites" and "Errors" 5:
// favourite files and folders, kept by the metadata service as bare UUIDs. The gateway checks that
// a new favourite exists and is readable, and lists favourites with data-info's stats. When
// metadata and data-info are both embedded (they share the gateway's store) a listing is one
// data-info call, `/favorite-lister`, which joins the favourites to the data objects and filters,
// sorts and pages in one query, whatever the number of favourites. When either is reached by URL
// it is two calls: metadata for the ids, then data-info's `/stat-lister` for those ids, which
// takes at most STAT_LISTER_MAX_IDS of them; past that the listing is refused (tooManyFavorites).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { isUuid } from '../common/ids.ts';
import type { Stat } from '../common/data-stat.ts';
import type { GatewayConfig } from '../config/index.ts';
import { backendError, type BackendResponse } from '../http/backend-answer.ts';
import { routeSecurity, takesNoBody } from '../http/openapi.ts';
import type { Forwarder } from '../http/proxy.ts';
import { routeAtBoth } from '../http/secured-alias.ts';
import { queryNormalizer } from '../common/query-params.ts';
import { dataInfoCall, dataInfoJson, readableStats } from '../clients/data-info.ts';
import { metadataCall, metadataJson } from '../clients/metadata.ts';
import { gatewayError } from '../common/errors.ts';

export interface FavoriteDeps {
  forwarder: Forwarder;
  config: GatewayConfig;
}

/** The listing's `sort-col` values (any case) and data-info's `sort-field` for each. */
const sortColumns: Record<string, string> = {
  name: 'name',
  id: 'path',
  lastmodified: 'datemodified',
  datecreated: 'datecreated',
  size: 'size',
};
const sortDirections = ['asc', 'desc'];
const entityTypes = ['any', 'file', 'folder'];
/** The most entries one page may hold (data-info's `/stat-lister` maximum); larger limits are capped. */
const MAX_PAGE = 100_000;
/** The most ids data-info's `/stat-lister` takes at once (its MAX_LISTED_IDS). */
const STAT_LISTER_MAX_IDS = 20_000;

/**
 * Metadata and data-info both run embedded in this gateway, on its store: data-info can list the
 * favourites itself (`/favorite-lister`, an embedded-only route).
 */
function favoritesShareStore(config: GatewayConfig): boolean {
  return (['metadata', 'data-info'] as const).every(
    (name) => !config.backends[name].url && config.embeddedBackends.includes(name),
  );
}

/** Split backends, more favourites than `/stat-lister` takes: a refusal that says so. */
const tooManyFavorites = (count: number) =>
  gatewayError(
    'ERR_TOO_MANY_RESULTS',
    `the caller has ${count} favourites of this kind; with the metadata or data-info service reached by URL the listing sorts at most ${STAT_LISTER_MAX_IDS} (unlimited when both are embedded)`,
    { count, limit: STAT_LISTER_MAX_IDS },
  );

const common = {
  id: Type.String({ description: 'Absolute path' }),
  uuid: Type.String({ description: 'UUID of the file or folder' }),
  path: Type.String({ description: 'Absolute path' }),
  label: Type.String({ description: 'Name within its folder' }),
  'date-created': Type.Number({ description: 'Milliseconds since the epoch' }),
  'date-modified': Type.Number({ description: 'Milliseconds since the epoch' }),
  permission: Type.String({ description: '`read`, `write` or `own`' }),
  'share-count': Type.Integer({
    description: 'Other users it is shared with (0 unless the caller owns it)',
  }),
  isFavorite: Type.Boolean({ description: 'Always true' }),
};
const FavoriteFile = Type.Object({
  ...common,
  type: Type.Literal('file'),
  'file-size': Type.Number(),
  'mime-type': Type.String(),
  infoType: Type.String({ description: 'Info type, or empty' }),
});
const FavoriteFolder = Type.Object({
  ...common,
  type: Type.Literal('dir'),
  'file-size': Type.Literal(0),
  'file-count': Type.Integer({ description: 'Files directly inside' }),
  'dir-count': Type.Integer({ description: 'Folders directly inside' }),
});
const Listing = Type.Object({
  filesystem: Type.Object({
    files: Type.Array(FavoriteFile),
    folders: Type.Array(FavoriteFolder),
    total: Type.Integer({
      description: 'Favourites the caller can read that pass entity-type and info-type',
    }),
  }),
});
const ListingQuery = Type.Object(
  {
    'sort-col': Type.String({
      description: 'NAME, ID (path), LASTMODIFIED, DATECREATED or SIZE, any case',
    }),
    'sort-dir': Type.String({ description: 'ASC or DESC, any case' }),
    limit: Type.String({
      pattern: '^[0-9]+$',
      description: `Entries per page (at most ${MAX_PAGE})`,
    }),
    offset: Type.String({ pattern: '^[0-9]+$', description: 'Entries of the sorted set to skip' }),
    'entity-type': Type.Optional(
      Type.String({ description: 'ANY (default), FILE or FOLDER, any case' }),
    ),
    'info-type': Type.Optional(
      Type.Array(Type.String(), { description: 'Restricts files to these info types; repeatable' }),
    ),
  },
  { additionalProperties: true },
);
const IdCollection = Type.Object({
  filesystem: Type.Array(Type.String({ description: 'UUID of a file or folder' })),
});
const FavoriteParams = Type.Object({
  favorite: Type.String({ description: 'UUID of the file or folder' }),
});

const badParameter = (name: string, allowed: string) =>
  gatewayError('ERR_BAD_QUERY_PARAMETER', `query parameter "${name}" must be ${allowed}`, {
    field: name,
  });

/** One of `allowed`, compared in lower case; 400 otherwise. */
function choice(
  query: Record<string, unknown>,
  name: string,
  allowed: readonly string[],
  fallback?: string,
): string {
  const raw = query[name];
  if (raw === undefined && fallback !== undefined) return fallback;
  const value = String(raw).toLowerCase();
  if (!allowed.includes(value))
    throw badParameter(name, `one of ${allowed.map((item) => item.toUpperCase()).join(', ')}`);
  return value;
}

/** A non-negative integer; the schema has already checked the digits. */
function count(query: Record<string, unknown>, name: string): number {
  const value = Number(query[name]);
  if (!Number.isSafeInteger(value)) throw badParameter(name, 'a non-negative integer');
  return value;
}

/** A metadata answer with no content the client needs: 200 `{}`, or metadata's refusal as it sent it. */
async function done(reply: FastifyReply, answer: BackendResponse): Promise<object> {
  if (answer.statusCode < 200 || answer.statusCode >= 300)
    throw await backendError('metadata', answer);
  await answer.body.dump();
  reply.code(200);
  return {};
}

/** The ids among `ids` that exist and the caller can read, with their stats (`filter-include` keys). */
const readable = (deps: FavoriteDeps, request: FastifyRequest, ids: string[], keys: string) =>
  readableStats<Partial<Stat>>(dataInfoCall(deps, request), ids, keys);

/**
 * Spec "Errors" 5: a filter body that is not a data id collection is 400. Checked before
 * validation, which would coerce a single string into a list.
 */
async function idCollection(request: FastifyRequest): Promise<void> {
  const body = request.body as { filesystem?: unknown } | null;
  const list =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? body.filesystem : undefined;
  if (!Array.isArray(list) || list.some((id) => typeof id !== 'string')) {
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      'the body must be a data id collection: {"filesystem": [<uuid>, ...]}',
      { field: 'filesystem' },
    );
  }
}

const notFavorite = (favorite: string) =>
  gatewayError(
    'ERR_NOT_FOUND',
    `${JSON.stringify(favorite)} is not a file or folder the caller can read`,
    { 'target-id': favorite },
  );

/**
 * A data-info stat in the spec's favourite shape: `id` is the path, the UUID moves to `uuid`. The
 * fields of its kind are assigned onto the shared part: spreading the shared part into a new
 * literal cost ≈ 6 µs an entry (V8 copies it into a slow object), 0.6 ms of a page of 100, where
 * Object.assign costs ≈ 0.07 µs (bench/README.md, "Data at scale").
 */
function favoriteEntry(stat: Stat) {
  const entry = {
    id: stat.path,
    uuid: stat.id,
    path: stat.path,
    label: stat.label,
    'date-created': stat['date-created'],
    'date-modified': stat['date-modified'],
    permission: stat.permission,
    'share-count': stat['share-count'] ?? 0,
    isFavorite: true,
  };
  if (stat.type === 'dir')
    return Object.assign(entry, {
      type: 'dir' as const,
      'file-size': 0,
      'file-count': stat['file-count'] ?? 0,
      'dir-count': stat['dir-count'] ?? 0,
    });
  return Object.assign(entry, {
    type: 'file' as const,
    'file-size': stat['file-size'] ?? 0,
    'mime-type': stat['content-type'] ?? 'application/octet-stream',
    infoType: stat.infoType ?? '',
  });
}

/** What a change answers once the metadata service has made it. */
const Done = Type.Object({}, { description: 'Done: an empty object' });

const options = (summary: string, description: string, schema: Record<string, unknown>) => ({
  config: { auth: 'user' as const },
  schema: { tags: ['favorites'], summary, description, security: routeSecurity('user'), ...schema },
});

export async function favoriteRoutes(app: FastifyInstance, deps: FavoriteDeps): Promise<void> {
  app.put('/secured/favorites/filesystem/:favorite', {
    ...options(
      'Mark a file or folder as a favourite',
      'Idempotent; 404 when the UUID names nothing the caller can read. Body and query are ignored.',
      { params: FavoriteParams, response: { 200: Done }, ...takesNoBody },
    ),
    handler: async (request, reply) => {
      const { favorite } = request.params as { favorite: string };
      if (!isUuid(favorite)) throw notFavorite(favorite);
      const id = favorite.toLowerCase();
      const stat = (await readable(deps, request, [id], 'id,type')).get(id);
      if (!stat) throw notFavorite(favorite);
      const dataType = stat.type === 'dir' ? 'folder' : 'file';
      return done(
        reply,
        await metadataCall(deps, request, {
          method: 'PUT',
          path: `/favorites/filesystem/${id}`,
          query: { 'data-type': dataType },
        }),
      );
    },
  });

  app.delete('/secured/favorites/filesystem/:favorite', {
    ...options('Unmark a favourite', '404 when it was not a favourite of the caller.', {
      params: FavoriteParams,
      response: { 200: Done },
    }),
    handler: async (request, reply) => {
      const { favorite } = request.params as { favorite: string };
      if (!isUuid(favorite)) {
        throw gatewayError(
          'ERR_NOT_FOUND',
          "The target-id wasn't marked as a favorite by the user",
          { 'target-id': favorite },
        );
      }
      return done(
        reply,
        await metadataCall(deps, request, {
          method: 'DELETE',
          path: `/favorites/filesystem/${favorite.toLowerCase()}`,
        }),
      );
    },
  });

  app.delete('/secured/favorites/filesystem', {
    ...options('Unmark every favourite of a kind', '`entity-type` ANY (default), FILE or FOLDER.', {
      querystring: Type.Object(
        { 'entity-type': Type.Optional(Type.String()) },
        { additionalProperties: true },
      ),
      response: { 200: Done },
    }),
    preValidation: queryNormalizer(),
    handler: async (request, reply) => {
      const entityType = choice(
        request.query as Record<string, unknown>,
        'entity-type',
        entityTypes,
        'any',
      );
      return done(
        reply,
        await metadataCall(deps, request, {
          method: 'DELETE',
          path: '/favorites/filesystem',
          query: { 'entity-type': entityType },
        }),
      );
    },
  });

  routeAtBoth(app, 'user', {
    method: 'GET',
    url: '/favorites/filesystem',
    schema: {
      tags: ['favorites'],
      summary: "List the caller's favourite files and folders, sorted and paged",
      description:
        'Only entries the caller can still read. Folders come before files in the sorted set; `limit` and `offset` page over it. With the metadata and data-info services embedded: one backend call and no limit on the number of favourites. With either reached by URL: two calls, and more than 20,000 favourites (of the `entity-type` asked) is 400 `ERR_TOO_MANY_RESULTS`.',
      querystring: ListingQuery,
      response: { 200: Listing },
    },
    preValidation: queryNormalizer(['info-type']),
    handler: async (request: FastifyRequest) => {
      const query = request.query as Record<string, unknown>;
      const sortField = sortColumns[choice(query, 'sort-col', Object.keys(sortColumns))]!;
      const sortDir = choice(query, 'sort-dir', sortDirections).toUpperCase();
      const limit = Math.min(count(query, 'limit'), MAX_PAGE);
      const offset = count(query, 'offset');
      const entityType = choice(query, 'entity-type', entityTypes, 'any');
      const infoTypes = ((query['info-type'] as string[] | undefined) ?? []).filter(
        (type) => type !== '',
      );

      const page = {
        'sort-field': sortField,
        'sort-dir': sortDir,
        limit: String(limit),
        offset: String(offset),
        'info-type': infoTypes,
        'filter-exclude': 'md5',
      };
      type Listed = { files: Stat[]; folders: Stat[]; total: number };
      let listed: Listed;
      if (favoritesShareStore(deps.config)) {
        listed = await dataInfoJson<Listed>(dataInfoCall(deps, request), {
          method: 'GET',
          path: '/favorite-lister',
          query: { ...page, 'entity-type': entityType },
        });
      } else {
        const marked = await metadataJson<{ filesystem?: unknown }>(deps, request, {
          method: 'GET',
          path: '/favorites/filesystem',
          query: { 'entity-type': entityType },
        });
        const ids = Array.isArray(marked?.filesystem) ? marked.filesystem.filter(isUuid) : [];
        if (ids.length === 0) return { filesystem: { files: [], folders: [], total: 0 } };
        if (ids.length > STAT_LISTER_MAX_IDS) throw tooManyFavorites(ids.length);
        listed = await dataInfoJson<Listed>(dataInfoCall(deps, request), {
          method: 'POST',
          path: '/stat-lister',
          query: page,
          json: { ids },
        });
      }
      return {
        filesystem: {
          files: listed.files.map(favoriteEntry),
          folders: listed.folders.map(favoriteEntry),
          total: listed.total,
        },
      };
    },
  });

  app.post('/secured/favorites/filter', {
    ...options(
      'Which of these files and folders are favourites',
      'Answers the ids of the collection that are favourites of the caller and that the caller can still read, in the order given.',
      { body: IdCollection, response: { 200: IdCollection } },
    ),
    preValidation: idCollection,
    handler: async (request) => {
      const { filesystem } = request.body as { filesystem: string[] };
      const ids = [...new Set(filesystem.filter(isUuid).map((id) => id.toLowerCase()))];
      if (ids.length === 0) return { filesystem: [] };
      const marked = await metadataJson<{ filesystem?: unknown }>(deps, request, {
        method: 'POST',
        path: '/favorites/filter',
        json: { filesystem: ids },
      });
      const favorites = Array.isArray(marked?.filesystem)
        ? marked.filesystem.filter(isUuid).map((id) => id.toLowerCase())
        : [];
      const visible =
        favorites.length === 0 ? new Map() : await readable(deps, request, favorites, 'id');
      return { filesystem: filesystem.filter((id) => isUuid(id) && visible.has(id.toLowerCase())) };
    },
  });
}

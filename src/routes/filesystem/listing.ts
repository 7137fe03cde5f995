// Tag filesystem: the data browser's listings (root, directory, paged-directory), reshaped from
// data-info navigation and paged listings, with favourites from the metadata service.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { defaultBadChars, isBadName } from '../../common/data-path.ts';
import { basePaths } from '../../common/base-paths.ts';
import { jsonAnswer } from '../../http/backend-answer.ts';
import { documentedNotEnforced, routeSecurity } from '../../http/openapi.ts';
import { routeAtBoth } from '../../http/secured-alias.ts';
import { queryNormalizer } from '../../common/query-params.ts';
import {
  communityRoot,
  dataPath,
  readSignedOut,
  wellFormed,
  type FilesystemDeps,
} from './support.ts';
import { dataInfo, encodedPath } from '../../clients/data-info.ts';
import { metadataJson } from '../../clients/metadata.ts';
import { gatewayError } from '../../common/errors.ts';

/**
 * Name policy sent with listings (backends.md §2): the data store's default bad characters.
 * There is no bad-name list configured; paths are the community root, the caller's home and
 * `/<zone>/home/public`, which are not the caller's to rename or delete. Navigation answers carry
 * no `badName`: the gateway flags them with the data store's own rule (`isBadName`).
 */
function namePolicy(deps: FilesystemDeps, username: string) {
  const zone = deps.config.dataStore.zone;
  return {
    badChars: defaultBadChars,
    badNames: [] as string[],
    badPaths: [
      communityRoot(deps.config),
      basePaths(zone, username).user_home_path,
      `/${zone}/home/public`,
    ],
  };
}

/**
 * The subset of `ids` the caller marked as favourites (metadata `POST /favorites/filter`). A
 * failing (or absent) metadata service must not break the browser: everything is then false.
 */
async function favoritesAmong(
  deps: FilesystemDeps,
  request: FastifyRequest,
  ids: string[],
): Promise<Set<string>> {
  if (!request.identity || ids.length === 0) return new Set();
  try {
    const answer = await metadataJson<{ filesystem?: unknown }>(deps, request, {
      method: 'POST',
      path: '/favorites/filter',
      json: { filesystem: ids },
    });
    return new Set(
      Array.isArray(answer?.filesystem)
        ? answer.filesystem.filter((id): id is string => typeof id === 'string')
        : [],
    );
  } catch (error) {
    request.log.debug({ err: error }, 'favorites filter failed; listing without favourites');
    return new Set();
  }
}

const NavigationEntry = Type.Object(
  {
    id: Type.String(),
    path: Type.String(),
    label: Type.String(),
    permission: Type.String(),
    'date-created': Type.Number(),
    'date-modified': Type.Number(),
    hasSubDirs: Type.Boolean(),
  },
  { additionalProperties: true },
);

const BasePathsSchema = Type.Object({
  user_home_path: Type.String(),
  user_trash_path: Type.String(),
  base_trash_path: Type.String(),
});

interface NavigationFolder {
  id: string;
  path: string;
  label: string;
  permission: string;
  'date-created': number;
  'date-modified': number;
  folders?: NavigationFolder[];
}

interface RootAnswer {
  roots: NavigationFolder[];
  'base-paths': { user_home_path: string; user_trash_path: string; base_trash_path: string };
}

const withSubDirs = <T extends object>(entry: T) => ({ ...entry, hasSubDirs: true });

/** routes.md §12 paged-directory: `sort-col` values and what data-info calls them. */
const sortColumns: Record<string, string> = {
  name: 'name',
  id: 'path',
  path: 'path',
  lastmodified: 'datemodified',
  datemodified: 'datemodified',
  datecreated: 'datecreated',
  size: 'size',
};

interface ListingEntry {
  id: string;
  path: string;
  name: string;
  permission: string;
  dateCreated: number;
  dateModified: number;
  size: number;
  infoType: string | null;
  badName: boolean;
}

interface Listing extends ListingEntry {
  files: ListingEntry[];
  folders: ListingEntry[];
  total: number;
  totalBad: number;
}

const PagedEntry = Type.Object({
  id: Type.String(),
  path: Type.String(),
  label: Type.String(),
  infoType: Type.Union([Type.String(), Type.Null()]),
  isFavorite: Type.Boolean(),
  badName: Type.Boolean(),
  permission: Type.String(),
  'date-created': Type.Number(),
  'date-modified': Type.Number(),
  'file-size': Type.Number(),
});

const PagedFolder = Type.Object({
  id: Type.String(),
  path: Type.String(),
  label: Type.String(),
  permission: Type.String(),
  'date-created': Type.Number(),
  'date-modified': Type.Number(),
  'file-size': Type.Number(),
  hasSubDirs: Type.Boolean(),
  badName: Type.Boolean(),
  isFavorite: Type.Boolean(),
  infoType: Type.Null(),
  total: Type.Integer({
    description: 'Items in the whole folder matching entity-type and info-type, not just this page',
  }),
  totalBad: Type.Integer(),
  folders: Type.Array(PagedEntry),
  files: Type.Array(PagedEntry),
});

const anyCase = (values: string[]) =>
  Type.String({ description: `One of ${values.join(', ')}; any letter case` });

const PagedQuery = Type.Object({
  path: Type.String({ description: 'Folder to list' }),
  limit: Type.Integer({ minimum: 0, description: 'Page size' }),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  'sort-col': Type.Optional(anyCase(Object.keys(sortColumns))),
  'sort-field': Type.Optional(anyCase(Object.keys(sortColumns))),
  'sort-dir': Type.Optional(anyCase(['asc', 'desc'])),
  'entity-type': Type.Optional(anyCase(['any', 'file', 'folder'])),
  'info-type': Type.Optional(
    Type.Array(Type.String(), { description: 'Repeatable: only files of these info types' }),
  ),
});

function enumValue(
  field: string,
  value: string | undefined,
  allowed: readonly string[],
): string | undefined {
  if (value === undefined) return undefined;
  const lower = value.toLowerCase();
  if (!allowed.includes(lower))
    throw gatewayError(
      'ERR_BAD_QUERY_PARAMETER',
      `query parameter "${field}" must be one of ${allowed.join(', ')}`,
      { field },
    );
  return lower;
}

export async function filesystemListingRoutes(
  app: FastifyInstance,
  deps: FilesystemDeps,
): Promise<void> {
  const { config } = deps;

  app.get('/secured/filesystem/root', {
    ...documentedNotEnforced,
    schema: {
      tags: ['filesystem'],
      summary: "The caller's top-level folders: home, community data, shared with me, trash",
      security: routeSecurity('user'),
      response: {
        200: Type.Object({ roots: Type.Array(NavigationEntry), 'base-paths': BasePathsSchema }),
      },
    },
    handler: async (request) => {
      const answer = await dataInfo<RootAnswer>(deps, request, {
        method: 'GET',
        path: '/navigation/root',
      });
      return { ...answer, roots: answer.roots.map(withSubDirs) };
    },
  });

  app.get('/secured/filesystem/directory', {
    ...documentedNotEnforced,
    preValidation: queryNormalizer(),
    schema: {
      tags: ['filesystem'],
      summary: 'A folder and its sub-folders; without a path, the top-level folders',
      description:
        'With `path`: the folder with `folders` (its sub-folders, without their own). Without: `{roots: [home, community, shared with me]}`.',
      security: routeSecurity('user'),
      querystring: Type.Object({ path: Type.Optional(Type.String()) }),
      response: {
        200: Type.Union([
          Type.Object({ roots: Type.Array(NavigationEntry) }),
          Type.Intersect([
            NavigationEntry,
            Type.Object({
              isFavorite: Type.Boolean(),
              badName: Type.Boolean(),
              folders: Type.Array(NavigationEntry),
            }),
          ]),
        ]),
      },
    },
    handler: async (request) => {
      const { path: rawPath } = request.query as { path?: string };
      if (rawPath === undefined || rawPath === '') {
        const answer = await dataInfo<RootAnswer>(deps, request, {
          method: 'GET',
          path: '/navigation/root',
        });
        const trash = answer['base-paths'].user_trash_path;
        return { roots: answer.roots.filter((root) => root.path !== trash).map(withSubDirs) };
      }
      const policy = namePolicy(deps, request.identity!.username);
      const path = dataPath(config, rawPath);
      const { folder } = await dataInfo<{ folder: NavigationFolder }>(deps, request, {
        method: 'GET',
        path: `/navigation/path${encodedPath(path)}`,
      });
      const children = folder.folders ?? [];
      const favorites = await favoritesAmong(deps, request, [
        folder.id,
        ...children.map((child) => child.id),
      ]);
      const describe = (entry: NavigationFolder) => ({
        ...entry,
        isFavorite: favorites.has(entry.id),
        badName: isBadName(entry.path, policy),
        hasSubDirs: true,
      });
      return { ...describe({ ...folder, folders: undefined }), folders: children.map(describe) };
    },
  });

  const pagedDirectory = {
    ...documentedNotEnforced,
    preValidation: queryNormalizer(['info-type']),
    schema: {
      tags: ['filesystem'],
      summary: 'One page of a folder: its sub-folders and files, sorted',
      description:
        'Signed out: public data only (the community data folder, folders on the way to files made public); anything else is 401 `ERR_NOT_AUTHORIZED`. `sort-col` (alias `sort-field`): `name`, `id` (= path), `path`, `lastmodified`/`datemodified`, `datecreated`, `size`; `sort-dir`: `asc`/`desc`; any case.',
      querystring: PagedQuery,
      response: { 200: PagedFolder },
    },
    handler: async (request: FastifyRequest) => {
      const query = request.query as {
        path: string;
        limit: number;
        offset?: number;
        'sort-col'?: string;
        'sort-field'?: string;
        'sort-dir'?: string;
        'entity-type'?: string;
        'info-type'?: string[];
      };
      const path = dataPath(config, query.path);
      const sortColumn = enumValue(
        'sort-col',
        query['sort-col'] ?? query['sort-field'],
        Object.keys(sortColumns),
      );
      const sortDir = enumValue('sort-dir', query['sort-dir'], ['asc', 'desc']);
      const entityType = enumValue('entity-type', query['entity-type'], ['any', 'file', 'folder']);
      const policy = namePolicy(deps, request.identity?.username ?? 'anonymous');
      const infoTypes = query['info-type'] ?? [];
      if (infoTypes.some((infoType) => !wellFormed(infoType))) {
        throw gatewayError(
          'ERR_BAD_QUERY_PARAMETER',
          'query parameter "info-type" must be valid Unicode',
          { field: 'info-type' },
        );
      }

      const listing = await readSignedOut(config, request, [path], async () => {
        const response = await deps.forwarder.call(
          'data-info',
          {
            method: 'GET',
            path: `/data/path${encodedPath(path)}`,
            identity: request.identity,
            identityStyle: 'data-user',
            query: {
              limit: String(query.limit),
              offset: String(query.offset ?? 0),
              'sort-field': sortColumn ? sortColumns[sortColumn] : undefined,
              'sort-dir': sortDir?.toUpperCase(),
              'entity-type': entityType,
              'info-type': infoTypes,
              'bad-chars': policy.badChars,
              'bad-name': policy.badNames,
              'bad-path': policy.badPaths,
            },
          },
          request.id,
        );
        // A file answers with its bytes (and a Content-Disposition): that is not a folder to list.
        if (response.statusCode < 300 && response.headers['content-disposition'] !== undefined) {
          await response.body.dump();
          throw gatewayError('ERR_NOT_A_FOLDER', `${path} is not a folder`, { path });
        }
        return jsonAnswer<Listing>('data-info', response);
      });

      const entries = [...listing.folders, ...listing.files];
      const favorites = await favoritesAmong(deps, request, [
        listing.id,
        ...entries.map((entry) => entry.id),
      ]);
      const entry = (item: ListingEntry) => ({
        id: item.id,
        path: item.path,
        label: item.name,
        infoType: item.infoType ?? null,
        isFavorite: favorites.has(item.id),
        badName: item.badName,
        permission: item.permission,
        'date-created': item.dateCreated,
        'date-modified': item.dateModified,
        'file-size': item.size ?? 0,
      });
      return {
        ...entry(listing),
        infoType: null,
        'file-size': 0,
        hasSubDirs: true,
        total: listing.total,
        totalBad: listing.totalBad ?? 0,
        folders: listing.folders.map(entry),
        files: listing.files.map(entry),
      };
    },
  };
  routeAtBoth(app, 'optional', {
    method: 'GET',
    url: '/filesystem/paged-directory',
    ...pagedDirectory,
  });
}

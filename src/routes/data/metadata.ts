// Tag data: AVU metadata of files and folders (routes.md §13). The embedded data-info keeps no
// metadata, so these are gateway aggregates: data-info says whether the entry exists and what the
// caller may do with it (read to see, write to change), the metadata service keeps the AVUs
// (`/avus/{file|folder}/{id}`). Saving metadata to a file, the OAI-ORE export and the CSV
// parser are in metadata-files.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { documentedNotEnforced } from '../../http/openapi.ts';
import { routeAtBoth } from '../../http/secured-alias.ts';
import { queryNormalizer } from '../../common/query-params.ts';
import { entryId, readableIds, type DataMetadataDeps } from './metadata-support.ts';
import { avusOf, metadataJson, targetType, type Avu } from '../../clients/metadata.ts';
import { statById, statsByIds } from '../../clients/data-info.ts';
import { dataMetadataFileRoutes } from './metadata-files.ts';
import { metadataTemplateRoutes } from './metadata-templates.ts';
import { gatewayError } from '../../common/errors.ts';

const AvuSchema = Type.Object(
  {
    id: Type.Optional(
      Type.String({ description: 'Present on AVUs read back; send it to change that AVU' }),
    ),
    attr: Type.String(),
    value: Type.String(),
    unit: Type.Optional(Type.String()),
    avus: Type.Optional(Type.Array(Type.Unknown(), { description: 'Nested AVUs, same shape' })),
  },
  { additionalProperties: true },
);
const StoreAvu = Type.Object({ attr: Type.String(), value: Type.String(), unit: Type.String() });
/** The web UI's name for the data store's own AVUs (its "additional metadata" tab): `{id, attr, value, unit}`. */
const IrodsAvu = Type.Object({
  id: Type.String(),
  attr: Type.String(),
  value: Type.String(),
  unit: Type.String(),
});
const DataParams = Type.Object({ dataId: Type.String({ description: 'File or folder UUID' }) });
const MetadataAnswer = Type.Object({
  avus: Type.Array(AvuSchema),
  'store-avus': Type.Array(StoreAvu, {
    description: 'AVUs kept natively by the data store; this data store keeps none',
  }),
  'irods-avus': Type.Array(IrodsAvu, {
    description:
      "The same list under the web UI's name for it (the data store's own AVUs, system ones left out): always empty here, the data store keeping none",
  }),
  path: Type.String(),
});
const WriteBody = Type.Object(
  {
    avus: Type.Optional(
      Type.Array(Type.Unknown(), { description: '[{id?, attr, value, unit, avus?}]' }),
    ),
    'store-avus': Type.Optional(
      Type.Array(Type.Unknown(), {
        description: 'Must be empty: this data store keeps no native AVUs',
      }),
    ),
    'irods-avus': Type.Optional(
      Type.Array(Type.Unknown(), {
        description: "`store-avus` under the web UI's name: must be empty too",
      }),
    ),
  },
  { additionalProperties: true },
);
const WriteAnswer = Type.Object({
  path: Type.String(),
  user: Type.String(),
  avus: Type.Array(AvuSchema),
});
const CopyBody = Type.Object({
  destination_ids: Type.Array(Type.String(), { minItems: 1, maxItems: 1000 }),
});
const CopyAnswer = Type.Object({
  user: Type.String(),
  src: Type.String(),
  paths: Type.Array(Type.String()),
});
const SearchKeys = ['attribute', 'value', 'unit', 'target-id'] as const;
const StringOrList = Type.Union([Type.String(), Type.Array(Type.String())]);
const SearchBody = Type.Object(
  Object.fromEntries(SearchKeys.map((key) => [key, Type.Optional(StringOrList)])),
  { additionalProperties: true },
);
const SearchAnswer = Type.Object({
  avus: Type.Array(
    Type.Intersect([
      AvuSchema,
      Type.Object({ target_id: Type.String(), target_type: Type.String() }),
    ]),
  ),
});

/**
 * `store-avus` and `irods-avus` (the web UI sends back what it read, in a save) may come back
 * empty; anything in them would be silently lost, so it is refused.
 */
function refuseStoreAvus(body: Record<string, unknown>): void {
  for (const field of ['store-avus', 'irods-avus']) {
    const storeAvus = body[field];
    if (Array.isArray(storeAvus) && storeAvus.length > 0) {
      throw gatewayError(
        'ERR_BAD_OR_MISSING_FIELD',
        'this data store keeps no native AVUs: send them in "avus"',
        { field },
      );
    }
  }
}

const dataIdOf = (request: FastifyRequest) =>
  entryId((request.params as { dataId: string }).dataId);

/** Keeps the AVUs whose target the caller can read: AVUs say things about files others may not see. */
async function readableOnly(
  deps: DataMetadataDeps,
  request: FastifyRequest,
  avus: (Avu & { target_id: string })[],
): Promise<{ avus: Avu[] }> {
  const readable = await readableIds(
    deps,
    request,
    avus.map((avu) => avu.target_id),
  );
  return { avus: avus.filter((avu) => readable.has(avu.target_id.toLowerCase())) };
}

/** A search names at least one key: listing every AVU of the store is not a search. */
function requireFilter(filters: Record<string, unknown>): void {
  if (Object.keys(filters).length === 0) {
    throw gatewayError(
      'ERR_MISSING_QUERY_PARAMETER',
      `name at least one of ${SearchKeys.join(', ')}`,
      { fields: SearchKeys },
    );
  }
}

const asList = (value: unknown): string[] | undefined =>
  value === undefined ? undefined : Array.isArray(value) ? value.map(String) : [String(value)];

/** Every aggregate of routes.md §13 about metadata: AVUs here, files in metadata-files.ts, the template update. */
export async function dataMetadataRoutes(
  app: FastifyInstance,
  deps: DataMetadataDeps,
): Promise<void> {
  routeAtBoth(app, 'optional', {
    method: 'GET',
    url: '/filesystem/:dataId/metadata',
    ...documentedNotEnforced,
    schema: {
      tags: ['data'],
      summary: 'Get the metadata of a file or folder',
      description: 'Needs read permission; 404 `ERR_DOES_NOT_EXIST` for an unknown id.',
      params: DataParams,
      response: { 200: MetadataAnswer },
    },
    handler: async (request) => {
      const stat = await statById(deps, request, dataIdOf(request), 'read');
      // The data store keeps no AVUs of its own: an item's info type, the one system property the
      // DE keeps as an AVU, is a field of its stat here, and system AVUs are left out anyway.
      return {
        avus: await avusOf(deps, request, stat),
        'store-avus': [],
        'irods-avus': [],
        path: stat.path,
      };
    },
  });

  for (const [suffix, method, summary, description] of [
    [
      '',
      'PUT',
      'Replace the metadata of a file or folder',
      'The AVUs become exactly `avus` (omitted: none). Needs write permission (`ERR_NOT_WRITEABLE`).',
    ],
    [
      '/add',
      'POST',
      'Add metadata to a file or folder',
      'Adds `avus`; an AVU with an `id` updates that one. Needs write permission (`ERR_NOT_WRITEABLE`).',
    ],
  ] as const) {
    routeAtBoth(app, 'user', {
      method: 'POST',
      url: `/filesystem/:dataId/metadata${suffix}`,
      ...documentedNotEnforced,
      schema: {
        tags: ['data'],
        summary,
        description,
        params: DataParams,
        body: WriteBody,
        response: { 200: WriteAnswer },
      },
      handler: async (request) => {
        const body = (request.body ?? {}) as Record<string, unknown>;
        refuseStoreAvus(body);
        if (method === 'POST' && body.avus === undefined)
          throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'body field "avus" is required', {
            field: 'avus',
          });
        const stat = await statById(deps, request, dataIdOf(request), 'write');
        const { avus } = await metadataJson<{ avus: Avu[] }>(deps, request, {
          method,
          path: `/avus/${targetType(stat)}/${stat.id}`,
          json: body.avus === undefined ? {} : { avus: body.avus },
        });
        return { path: stat.path, user: request.identity!.username, avus };
      },
    });
  }

  routeAtBoth(app, 'user', {
    method: 'POST',
    url: '/filesystem/:dataId/metadata/copy',
    ...documentedNotEnforced,
    schema: {
      tags: ['data'],
      summary: 'Copy metadata to other files or folders',
      description:
        'Adds the AVUs of the source (read permission) to each destination (write permission); AVUs a destination already has are kept once.',
      params: DataParams,
      body: CopyBody,
      response: { 200: CopyAnswer },
    },
    handler: async (request) => {
      const source = await statById(deps, request, dataIdOf(request), 'read');
      const ids = [
        ...new Set(
          (request.body as { destination_ids: string[] }).destination_ids.map((id) =>
            entryId(id, 'destination_ids'),
          ),
        ),
      ];
      const destinations = await statsByIds(deps, request, ids, 'write');
      await metadataJson(deps, request, {
        method: 'POST',
        path: `/avus/${targetType(source)}/${source.id}/copy`,
        json: { targets: destinations.map((stat) => ({ id: stat.id, type: targetType(stat) })) },
      });
      return {
        user: request.identity!.username,
        src: source.path,
        paths: destinations.map((stat) => stat.path),
      };
    },
  });

  routeAtBoth(app, 'optional', {
    method: 'GET',
    url: '/filesystem/metadata',
    ...documentedNotEnforced,
    preValidation: queryNormalizer(SearchKeys),
    schema: {
      tags: ['data'],
      summary: 'Find file and folder metadata',
      description:
        '`attribute`, `value`, `unit`, `target-id` (each repeatable; all given must match). Only AVUs of entries the caller can read.',
      querystring: Type.Object(
        Object.fromEntries(
          SearchKeys.map((key) => [key, Type.Optional(Type.Array(Type.String()))]),
        ),
        { additionalProperties: true },
      ),
      response: { 200: SearchAnswer },
    },
    handler: async (request) => {
      const query = request.query as Record<string, string[] | undefined>;
      const filters = Object.fromEntries(
        SearchKeys.flatMap((key) => (query[key] === undefined ? [] : [[key, query[key]]])),
      );
      requireFilter(filters);
      const { avus } = await metadataJson<{ avus: (Avu & { target_id: string })[] }>(
        deps,
        request,
        {
          method: 'GET',
          path: '/avus',
          query: { ...filters, 'target-type': ['file', 'folder'] },
        },
      );
      return readableOnly(deps, request, avus);
    },
  });

  routeAtBoth(app, 'optional', {
    method: 'POST',
    url: '/filesystem/metadata/search',
    ...documentedNotEnforced,
    schema: {
      tags: ['data'],
      summary: 'Search file and folder metadata',
      description:
        'The keys of GET /filesystem/metadata as lists in the body. Only AVUs of entries the caller can read.',
      body: SearchBody,
      response: { 200: SearchAnswer },
    },
    handler: async (request) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const filters = Object.fromEntries(
        SearchKeys.flatMap((key) => (body[key] === undefined ? [] : [[key, asList(body[key])]])),
      );
      requireFilter(filters);
      const { avus } = await metadataJson<{ avus: (Avu & { target_id: string })[] }>(
        deps,
        request,
        {
          method: 'POST',
          path: '/avus/search',
          json: { ...filters, 'target-type': ['file', 'folder'] },
        },
      );
      return readableOnly(deps, request, avus);
    },
  });

  await dataMetadataFileRoutes(app, deps);
  await metadataTemplateRoutes(app, deps);
}

// Tag filesystem: looking at files and folders (stat, manifest, chunks), tickets, and the index.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { documentedNotEnforced, routeSecurity } from '../../http/openapi.ts';
import { routeAtBoth } from '../../http/secured-alias.ts';
import { queryNormalizer } from '../../common/query-params.ts';
import {
  dataPath,
  idOfPath,
  readSignedOut,
  refuseAnonymousIds,
  wellFormed,
  type FilesystemDeps,
} from './support.ts';
import { dataInfo } from '../../clients/data-info.ts';
import { gatewayError } from '../../common/errors.ts';

const Paths = Type.Array(Type.String(), { description: 'Absolute data-store paths' });
const Json = Type.Object({}, { additionalProperties: true });

/** Numbers clients send as strings (`"8388608"`) are coerced by the schema; other text is refused. */
const Count = (description: string) =>
  Type.Integer({ minimum: 0, description: `${description} (a number or a numeric string)` });

const StatBody = Type.Object({
  paths: Type.Optional(Paths),
  ids: Type.Optional(Type.Array(Type.String(), { description: 'Data-store ids (users only)' })),
});

const CsvBody = Type.Object({
  path: Type.String(),
  separator: Type.Optional(
    Type.String({
      description: 'Column separator, percent-encoded as clients send it (`%2C`, `%09`)',
    }),
  ),
  page: Type.Optional(Count('Page number, from 1')),
  'chunk-size': Count('Bytes per page'),
});

/**
 * read-csv-chunk's separator arrives percent-encoded inside the JSON body (clients.md §3.2), and
 * data-info's `separator` parameter takes it percent-encoded: it is passed on as given, so it is
 * decoded exactly once (by data-info), and a literal `%` (sent as `%25`) stays a `%`.
 */
function encodedSeparator(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!wellFormed(raw))
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'separator must be valid Unicode', {
      field: 'separator',
    });
  return raw;
}

/** Tickets' `public` flag: `1`/`true` or `0`/`false`, absent = false (data-info requires it). */
function publicFlag(raw: string | undefined): 'true' | 'false' {
  if (raw === undefined || raw === '') return 'false';
  const lower = raw.toLowerCase();
  if (lower === '1' || lower === 'true') return 'true';
  if (lower === '0' || lower === 'false') return 'false';
  throw gatewayError(
    'ERR_BAD_QUERY_PARAMETER',
    'query parameter "public" must be 1, true, 0 or false',
    { field: 'public' },
  );
}

interface Summary {
  home: { files: number; folders: number; bytes: number };
  trash: { items: number; bytes: number };
}

const IndexSchema = Type.Object({
  user: Type.String(),
  zone: Type.String(),
  'base-paths': Type.Object({
    user_home_path: Type.String(),
    user_trash_path: Type.String(),
    base_trash_path: Type.String(),
  }),
  roots: Type.Array(
    Type.Object(
      { id: Type.String(), path: Type.String(), label: Type.String(), hasSubDirs: Type.Boolean() },
      { additionalProperties: true },
    ),
  ),
  usage: Type.Object({
    files: Type.Integer({ description: 'Files anywhere under the home folder' }),
    folders: Type.Integer({
      description: 'Folders anywhere under the home folder (not counting the home)',
    }),
    bytes: Type.Number({ description: 'Total size of those files' }),
  }),
  trash: Type.Object({
    items: Type.Integer({ description: 'Top-level items in the trash' }),
    bytes: Type.Number({ description: 'Total size of the files in the trash' }),
  }),
});

export async function filesystemFileRoutes(
  app: FastifyInstance,
  deps: FilesystemDeps,
): Promise<void> {
  const { config } = deps;

  routeAtBoth(app, 'optional', {
    method: 'POST',
    url: '/filesystem/stat',
    ...documentedNotEnforced,
    schema: {
      tags: ['filesystem'],
      summary: 'Describe files and folders by path or id',
      description:
        'Answers `{paths: {<path>: Stat}, ids: {<id>: Stat}}`. Signed out: public data only (the community data folder, files made public), by path only; anything else is 401 `ERR_NOT_AUTHORIZED`.',
      querystring: Type.Object({
        'validation-behavior': Type.Optional(
          Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('own')], {
            description: 'Refuse paths the caller holds less than this on',
          }),
        ),
      }),
      body: StatBody,
      response: {
        200: Type.Object({
          paths: Type.Record(Type.String(), Json),
          ids: Type.Record(Type.String(), Json),
        }),
      },
    },
    handler: async (request: FastifyRequest) => {
      const body = request.body as { paths?: string[]; ids?: string[] };
      refuseAnonymousIds(request, body.ids);
      const paths = (body.paths ?? []).map((path, index) =>
        dataPath(config, path, `paths.${index}`),
      );
      const { 'validation-behavior': validation } = request.query as {
        'validation-behavior'?: 'read' | 'write' | 'own';
      };
      return readSignedOut(config, request, paths, () =>
        dataInfo(deps, request, {
          method: 'POST',
          path: '/stat-gatherer',
          query: { 'validation-behavior': validation },
          json: body,
        }),
      );
    },
  });

  routeAtBoth(app, 'optional', {
    method: 'GET',
    url: '/filesystem/file/manifest',
    ...documentedNotEnforced,
    preValidation: queryNormalizer(),
    schema: {
      tags: ['filesystem'],
      summary: 'How to view a file: its content type, info type and viewer URLs',
      querystring: Type.Object({ path: Type.String() }),
      response: {
        200: Type.Object({
          'content-type': Type.String(),
          infoType: Type.String(),
          urls: Type.Array(Type.Object({ label: Type.String(), url: Type.String() })),
        }),
      },
    },
    handler: async (request: FastifyRequest) => {
      const path = dataPath(config, (request.query as { path: string }).path);
      return readSignedOut(config, request, [path], async () => {
        const id = await idOfPath(deps, request, path);
        return dataInfo(deps, request, {
          method: 'GET',
          path: `/data/${encodeURIComponent(id)}/manifest`,
        });
      });
    },
  });

  routeAtBoth(app, 'optional', {
    method: 'POST',
    url: '/filesystem/read-chunk',
    ...documentedNotEnforced,
    schema: {
      tags: ['filesystem'],
      summary: 'Read a range of bytes of a file as text',
      body: Type.Object({
        path: Type.String(),
        position: Count('Byte offset'),
        'chunk-size': Count('Bytes to read'),
      }),
      response: {
        200: Type.Object({
          path: Type.String(),
          user: Type.String(),
          start: Type.String(),
          'chunk-size': Type.String(),
          'file-size': Type.String(),
          chunk: Type.String(),
        }),
      },
    },
    handler: async (request: FastifyRequest) => {
      const body = request.body as { path: string; position: number; 'chunk-size': number };
      const path = dataPath(config, body.path);
      return readSignedOut(config, request, [path], async () => {
        const id = await idOfPath(deps, request, path);
        return dataInfo(deps, request, {
          method: 'GET',
          path: `/data/${encodeURIComponent(id)}/chunks`,
          query: { position: String(body.position), size: String(body['chunk-size']) },
        });
      });
    },
  });

  routeAtBoth(app, 'optional', {
    method: 'POST',
    url: '/filesystem/read-csv-chunk',
    ...documentedNotEnforced,
    schema: {
      tags: ['filesystem'],
      summary: 'Read a page of rows of a delimited text file',
      body: CsvBody,
      response: {
        200: Type.Object(
          {
            path: Type.String(),
            user: Type.String(),
            page: Type.String(),
            'number-pages': Type.String(),
            'max-cols': Type.String(),
            'chunk-size': Type.String(),
            'file-size': Type.String(),
            csv: Type.Array(Type.Record(Type.String(), Type.String())),
          },
          { description: 'Numbers come as strings, as data-info sends them' },
        ),
      },
    },
    handler: async (request: FastifyRequest) => {
      const body = request.body as {
        path: string;
        separator?: string;
        page?: number;
        'chunk-size': number;
      };
      const separator = encodedSeparator(body.separator);
      const path = dataPath(config, body.path);
      return readSignedOut(config, request, [path], async () => {
        const id = await idOfPath(deps, request, path);
        return dataInfo(deps, request, {
          method: 'GET',
          path: `/data/${encodeURIComponent(id)}/chunks-tabular`,
          query: {
            separator,
            page: body.page === undefined ? undefined : String(body.page),
            size: String(body['chunk-size']),
          },
        });
      });
    },
  });

  app.post('/secured/filesystem/tickets', {
    ...documentedNotEnforced,
    preValidation: queryNormalizer(),
    schema: {
      tags: ['filesystem'],
      summary:
        'Create access tickets: links that download a file (or list a folder) without signing in',
      security: routeSecurity('user'),
      querystring: Type.Object({
        public: Type.Optional(
          Type.String({
            description: '`1`/`true`: the ticket is for the public group; default false',
          }),
        ),
        mode: Type.Optional(
          Type.Union([Type.Literal('read'), Type.Literal('write')], { default: 'read' }),
        ),
        'uses-limit': Type.Optional(Type.Integer({ minimum: 1, description: 'Downloads allowed' })),
        'file-write-limit': Type.Optional(Type.Integer({ minimum: 1 })),
      }),
      body: Type.Object({ paths: Paths }),
      response: {
        200: Type.Object({
          user: Type.String(),
          tickets: Type.Array(
            Type.Object({
              path: Type.String(),
              'ticket-id': Type.String(),
              'download-url': Type.String(),
              'download-page-url': Type.String(),
            }),
          ),
        }),
      },
    },
    handler: async (request) => {
      const query = request.query as {
        public?: string;
        mode?: string;
        'uses-limit'?: number;
        'file-write-limit'?: number;
      };
      return dataInfo(deps, request, {
        method: 'POST',
        path: '/tickets',
        query: {
          public: publicFlag(query.public),
          mode: query.mode ?? 'read',
          'uses-limit': query['uses-limit'] === undefined ? undefined : String(query['uses-limit']),
          'file-write-limit':
            query['file-write-limit'] === undefined ? undefined : String(query['file-write-limit']),
        },
        json: request.body,
      });
    },
  });

  app.get('/secured/filesystem/index', {
    ...documentedNotEnforced,
    schema: {
      tags: ['filesystem'],
      summary: "A summary of the caller's data store",
      description:
        'The spec lists this route without a shape. It answers what a client needs to orient itself in one call: ' +
        '`user`, `zone`, `base-paths` (home, trash, base trash), `roots` (as `/secured/filesystem/root`), ' +
        '`usage` (`files`, `folders` and `bytes` anywhere under the home folder) and `trash` (`items` at its top level and `bytes`).',
      security: routeSecurity('user'),
      response: { 200: IndexSchema },
    },
    handler: async (request) => {
      const [root, summary] = await Promise.all([
        dataInfo<{ roots: object[]; 'base-paths': object }>(deps, request, {
          method: 'GET',
          path: '/navigation/root',
        }),
        dataInfo<Summary>(deps, request, { method: 'GET', path: '/usage-summary' }),
      ]);
      return {
        user: request.identity!.username,
        zone: config.dataStore.zone,
        'base-paths': root['base-paths'],
        roots: root.roots.map((entry) => ({ ...entry, hasSubDirs: true })),
        usage: summary.home,
        trash: summary.trash,
      };
    },
  });
}

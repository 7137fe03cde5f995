// The filesystem area (routes.md §12, §6): tags filesystem and fileio. Pure passthroughs are rows
// here; routes that reshape an answer or take several data-info calls live in listing.ts, files.ts
// and changes.ts, file I/O (downloads, uploads, URL import) in fileio.ts; sharing is the data
// area's.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { PassthroughRoute } from '../../http/passthrough.ts';
import type { Tag } from '../shared/tags.ts';
import { filesystemChangeRoutes } from './changes.ts';
import { fileioRoutes, type FileioDeps } from './fileio.ts';
import { filesystemFileRoutes } from './files.ts';
import { filesystemListingRoutes } from './listing.ts';

/** The file's bytes, whatever their type. */
const binaryFile = Type.Unsafe<string>({
  description: "The file's bytes",
  content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
});

const Paths = Type.Array(Type.String(), { description: 'Absolute data-store paths' });
const PathsBody = Type.Object({ paths: Paths }, { additionalProperties: true });

/** The DE search service's query (routes.md §26); the search service reads and checks it. */
const SearchBody = Type.Object(
  {
    query: Type.Optional(
      Type.Object(
        {},
        { additionalProperties: true, description: '{all, any, none} of clauses {type, args}' },
      ),
    ),
    size: Type.Optional(Type.Integer({ minimum: 0, description: 'Hits per page (default 10)' })),
    from: Type.Optional(Type.Integer({ minimum: 0, description: 'Hits to skip' })),
    track_total_hits: Type.Optional(
      Type.Unknown({
        description:
          'How far total counts: true every hit, a number that many (default: 1,000 or the end of the page and one more); total_relation says eq or gte',
      }),
    ),
    sort: Type.Optional(
      Type.Array(
        Type.Object(
          { field: Type.Optional(Type.String()), order: Type.Optional(Type.String()) },
          { additionalProperties: true },
        ),
        { description: '[{field, order: ascending|descending}]' },
      ),
    ),
  },
  { additionalProperties: true },
);

export const filesystemPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: 'POST',
    path: '/filesystem/search',
    backend: 'search',
    backendPath: '/data/search',
    auth: 'optional',
    securedAlias: true,
    tag: 'filesystem',
    summary: 'Search the data the caller can read (the query language of search-documentation)',
    body: SearchBody,
  },
  {
    method: 'GET',
    path: '/filesystem/search-documentation',
    backend: 'search',
    backendPath: '/data/documentation',
    auth: 'optional',
    securedAlias: true,
    tag: 'filesystem',
    summary: 'Describe the data search query language: clause types, arguments, sort fields',
  },
  {
    method: 'POST',
    path: '/secured/filesystem/exists',
    backend: 'data-info',
    backendPath: '/existence-marker',
    tag: 'filesystem',
    summary: 'Check whether paths exist (and the caller can read them)',
    body: PathsBody,
  },
  {
    method: 'POST',
    path: '/secured/filesystem/list-tickets',
    backend: 'data-info',
    backendPath: '/ticket-lister',
    tag: 'filesystem',
    summary: 'List the tickets of paths',
    body: PathsBody,
  },
  {
    method: 'POST',
    path: '/secured/filesystem/delete-tickets',
    backend: 'data-info',
    backendPath: '/ticket-deleter',
    tag: 'filesystem',
    summary: 'Delete tickets',
    body: Type.Object({ tickets: Type.Array(Type.String(), { description: 'Ticket ids' }) }),
  },
  {
    method: 'POST',
    path: '/filesystem/path-list-creator',
    backend: 'data-info',
    backendPath: '/path-list-creator',
    securedAlias: true,
    tag: 'filesystem',
    summary: 'Create a path-list file',
    query: Type.Object({
      dest: Type.String({ description: 'Path of the file to create' }),
      'path-list-info-type': Type.Optional(Type.String()),
      'name-pattern': Type.Optional(Type.String()),
      'info-type': Type.Optional(Type.Array(Type.String(), { description: 'Repeatable' })),
      'folders-only': Type.Optional(Type.Boolean()),
      recursive: Type.Optional(Type.Boolean()),
    }),
    body: PathsBody,
  },
  {
    method: 'POST',
    path: '/filesystem/directories',
    backend: 'data-info',
    backendPath: '/data/directories',
    securedAlias: true,
    tag: 'filesystem',
    summary: 'Create folders (and missing parents)',
    body: PathsBody,
  },
  {
    method: 'POST',
    path: '/filesystem/move',
    backend: 'data-info',
    backendPath: '/mover',
    securedAlias: true,
    tag: 'filesystem',
    summary: 'Move files and folders into a folder',
    body: Type.Object({ sources: Paths, dest: Type.String({ description: 'Destination folder' }) }),
  },
  {
    method: 'POST',
    path: '/filesystem/delete',
    backend: 'data-info',
    backendPath: '/deleter',
    securedAlias: true,
    tag: 'filesystem',
    summary: 'Move files and folders to the trash (delete them for good when already there)',
    body: PathsBody,
  },
  {
    method: 'POST',
    path: '/filesystem/restore',
    backend: 'data-info',
    backendPath: '/restorer',
    securedAlias: true,
    tag: 'filesystem',
    summary: 'Restore items from the trash to where they were (or the home folder)',
    body: Type.Object(
      { paths: Type.Optional(Paths) },
      {
        additionalProperties: true,
        description: 'Trash paths; none or an empty list restores everything',
      },
    ),
  },
  {
    method: 'POST',
    path: '/filesystem/user-permissions',
    backend: 'data-info',
    backendPath: '/permissions-gatherer',
    securedAlias: true,
    tag: 'filesystem',
    summary: 'List who may access paths, and how',
    body: PathsBody,
  },
  {
    method: 'POST',
    path: '/filesystem/anon-files',
    backend: 'data-info',
    backendPath: '/anonymizer',
    securedAlias: true,
    tag: 'filesystem',
    summary: 'Make files publicly readable and answer their public URLs',
    body: PathsBody,
  },
  // What a ticket's links point at (TICKET_BASE_URL defaults to <this gateway>/tickets): no credentials.
  {
    method: 'GET',
    path: '/tickets/{ticket-id}',
    backend: 'data-info',
    backendPath: '/ticket-downloads/{ticket-id}/info',
    auth: 'none',
    tag: 'filesystem',
    summary: 'What a ticket grants (its download page), without signing in',
  },
  {
    method: 'GET',
    path: '/tickets/d/{ticket-id}/{filename}',
    backend: 'data-info',
    backendPath: '/ticket-downloads/{ticket-id}',
    auth: 'none',
    tag: 'filesystem',
    summary: "Download a ticket's file without signing in (Range requests are relayed)",
    responses: {
      200: binaryFile,
      206: binaryFile,
    },
  },
];

/** Filesystem routes that reshape data-info answers or take several calls (routes.md §12). */
export async function filesystemRoutes(app: FastifyInstance, deps: FileioDeps): Promise<void> {
  await app.register(filesystemListingRoutes, deps);
  await app.register(filesystemFileRoutes, deps);
  await app.register(filesystemChangeRoutes, deps);
  await app.register(fileioRoutes, deps);
}

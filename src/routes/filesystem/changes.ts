// Tag filesystem: changes that take more than one data-info call, or reshape the request:
// create a folder, rename, move or delete a folder's contents, empty the trash, restore all.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { baseName, parentOf } from '../../common/data-path.ts';
import { documentedNotEnforced, takesNoBody } from '../../http/openapi.ts';
import { routeAtBoth } from '../../http/secured-alias.ts';
import { dataPath, idOfPath, type FilesystemDeps } from './support.ts';
import { dataInfo } from '../../clients/data-info.ts';
import { GatewayError, gatewayError } from '../../common/errors.ts';

const Json = Type.Object({}, { additionalProperties: true });
const SourceDest = Type.Object({ source: Type.String(), dest: Type.String() });
const TaskAnswer = (
  fields: Record<string, ReturnType<typeof Type.String> | ReturnType<typeof Type.Array>>,
) =>
  Type.Object(
    { ...fields, 'async-task-id': Type.Optional(Type.String()) },
    { additionalProperties: true },
  );

/**
 * Routes that take a path find its id first and then change the object by id: each such call also
 * sends the path (`path`), so data-info refuses it with ERR_DOES_NOT_EXIST when a concurrent
 * request moved the object away in between, rather than changing it where it went.
 */
const idPath = (id: string) => `/data/${encodeURIComponent(id)}`;

export async function filesystemChangeRoutes(
  app: FastifyInstance,
  deps: FilesystemDeps,
): Promise<void> {
  const { config } = deps;

  routeAtBoth(app, 'user', {
    method: 'POST',
    url: '/filesystem/directory/create',
    ...documentedNotEnforced,
    schema: {
      tags: ['filesystem'],
      summary: 'Create a folder (and any missing parents); answers its Stat',
      description:
        'An existing folder or file at the path is refused with `ERR_EXISTS` naming `path`.',
      body: Type.Object({ path: Type.String() }),
      response: { 200: Json },
    },
    handler: async (request: FastifyRequest) => {
      const path = dataPath(config, (request.body as { path: unknown }).path);
      try {
        await dataInfo(deps, request, {
          method: 'POST',
          path: '/data/directories',
          json: { paths: [path] },
        });
      } catch (error) {
        // Clients read `path` of ERR_EXISTS (clients.md §4): make sure it is there.
        if (
          error instanceof GatewayError &&
          error.errorCode === 'ERR_EXISTS' &&
          error.extra.path === undefined
        ) {
          throw error.withExtra({ ...error.extra, path });
        }
        throw error;
      }
      const stats = await dataInfo<{ paths: Record<string, unknown> }>(deps, request, {
        method: 'POST',
        path: '/stat-gatherer',
        json: { paths: [path] },
      });
      return stats.paths[path] ?? Object.values(stats.paths)[0];
    },
  });

  routeAtBoth(app, 'user', {
    method: 'POST',
    url: '/filesystem/rename',
    ...documentedNotEnforced,
    schema: {
      tags: ['filesystem'],
      summary: 'Rename a file or folder within its folder',
      description:
        '`dest` must be in the same folder as `source`, else `ERR_ILLEGAL_ARGUMENT`; use move to change folders.',
      body: SourceDest,
      response: {
        200: TaskAnswer({ user: Type.String(), source: Type.String(), dest: Type.String() }),
      },
    },
    handler: async (request: FastifyRequest) => {
      const body = request.body as { source: unknown; dest: unknown };
      const source = dataPath(config, body.source, 'source');
      const dest = dataPath(config, body.dest, 'dest');
      if (parentOf(source) !== parentOf(dest)) {
        throw gatewayError(
          'ERR_ILLEGAL_ARGUMENT',
          'A rename keeps the item in its folder; use move to change folders',
          { source, dest },
        );
      }
      const id = await idOfPath(deps, request, source);
      return dataInfo(deps, request, {
        method: 'PUT',
        path: `${idPath(id)}/name`,
        query: { path: source },
        json: { filename: baseName(dest) },
      });
    },
  });

  routeAtBoth(app, 'user', {
    method: 'POST',
    url: '/filesystem/move-contents',
    ...documentedNotEnforced,
    schema: {
      tags: ['filesystem'],
      summary: 'Move everything inside a folder into another folder',
      body: SourceDest,
      response: {
        200: TaskAnswer({
          user: Type.String(),
          sources: Type.Array(Type.String()),
          dest: Type.String(),
        }),
      },
    },
    handler: async (request: FastifyRequest) => {
      const body = request.body as { source: unknown; dest: unknown };
      const source = dataPath(config, body.source, 'source');
      const dest = dataPath(config, body.dest, 'dest');
      const id = await idOfPath(deps, request, source);
      return dataInfo(deps, request, {
        method: 'PUT',
        path: `${idPath(id)}/children/dir`,
        query: { path: source },
        json: { dirname: dest },
      });
    },
  });

  routeAtBoth(app, 'user', {
    method: 'POST',
    url: '/filesystem/delete-contents',
    ...documentedNotEnforced,
    schema: {
      tags: ['filesystem'],
      summary: 'Move everything inside a folder to the trash',
      body: Type.Object({ path: Type.String() }),
      response: { 200: TaskAnswer({ paths: Type.Array(Type.String()) }) },
    },
    handler: async (request: FastifyRequest) => {
      const path = dataPath(config, (request.body as { path: unknown }).path);
      const id = await idOfPath(deps, request, path);
      return dataInfo(deps, request, {
        method: 'DELETE',
        path: `${idPath(id)}/children`,
        query: { path },
      });
    },
  });

  // Routes whose body means nothing: clients send `{}`, nothing, or anything (clients.md §3.1).
  await app.register(async (bodiless) => {
    bodiless.removeAllContentTypeParsers();
    bodiless.addContentTypeParser('*', (_request, payload, done) => {
      payload.resume();
      payload.once('end', () => done(null));
      payload.once('error', (error) => done(error));
    });

    routeAtBoth(bodiless, 'user', {
      method: 'DELETE',
      url: '/filesystem/trash',
      ...documentedNotEnforced,
      schema: {
        tags: ['filesystem'],
        summary: "Empty the caller's trash for good",
        description: 'Any request body is ignored.',
        response: { 200: TaskAnswer({ trash: Type.String(), paths: Type.Array(Type.String()) }) },
      },
      handler: async (request: FastifyRequest) =>
        dataInfo(deps, request, { method: 'DELETE', path: '/trash' }),
    });

    routeAtBoth(bodiless, 'user', {
      method: 'POST',
      url: '/filesystem/restore-all',
      ...documentedNotEnforced,
      schema: {
        tags: ['filesystem'],
        summary: 'Restore everything in the trash to where it was',
        ...takesNoBody,
        description: 'Any request body is ignored. Answers as restore.',
        response: {
          200: Type.Object({
            restored: Type.Record(Type.String(), Json),
            'async-task-id': Type.Optional(Type.String()),
          }),
        },
      },
      handler: async (request: FastifyRequest) =>
        dataInfo(deps, request, { method: 'POST', path: '/restorer', json: { paths: [] } }),
    });
  });
}

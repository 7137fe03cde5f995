import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import {
  asyncTaskId,
  bodyObject,
  newChildPath,
  pathList,
  stringField,
  type DataEvent,
} from './bulk.ts';
import type { DataObject } from './object-index.ts';
import { baseName, parentOf } from '../../common/data-path.ts';
import { moveAll } from './moves.ts';
import { pathListRoutes } from './path-list-routes.ts';
import type { Caller, DataStore } from './store.ts';
import { deletePaths, emptyTrash, restorePaths } from './trash.ts';
import { gatewayError } from '../../common/errors.ts';

const idParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const userQuery = Type.Object(
  {
    user: Type.String({ minLength: 1 }),
    path: Type.Optional(
      Type.String({
        description:
          'Where the caller found the object: refused as ERR_DOES_NOT_EXIST when it is no longer there',
      }),
    ),
  },
  { additionalProperties: true },
);

/**
 * Moves, renames, deletes and restores (backends.md §2.1, §2.4). Each request is all-or-nothing
 * (one transaction) and finishes before the answer, which still carries an `async-task-id` as the
 * reference service's asynchronous tasks do.
 */
export const mutationRoutes: FastifyPluginAsync<{
  data: DataStore;
  announce: (event: DataEvent) => void;
}> = async (app, { data, announce }) => {
  /**
   * The object with the id of the request. A caller that found the id by a path (the gateway's
   * rename, move-contents and delete-contents) sends that path as `path`: when the object is no
   * longer there (a concurrent rename or move took it), the request is about something that no
   * longer exists, and changing the object where it now is would report a change nobody asked for.
   */
  const byId = async (request: { params: { id: string }; query: unknown }): Promise<DataObject> => {
    const { id } = request.params;
    const object = await data.catalog.byId(id);
    if (!object) throw gatewayError('ERR_DOES_NOT_EXIST', `no data item has the id ${id}`, { id });
    const expected = (request.query as { path?: unknown }).path;
    if (expected !== undefined) {
      const path = data.path(expected);
      if (object.path !== path)
        throw gatewayError(
          'ERR_DOES_NOT_EXIST',
          `${path} does not exist (it was moved or renamed meanwhile)`,
          { path },
        );
    }
    return object;
  };
  const folderById = async (request: {
    params: { id: string };
    query: unknown;
  }): Promise<DataObject> => {
    const folder = await byId(request);
    if (folder.type !== 'dir')
      throw gatewayError('ERR_NOT_A_FOLDER', `${folder.path} is not a folder`, {
        path: folder.path,
      });
    return folder;
  };
  const caller = (request: { query: unknown }): Promise<Caller> => data.writerOf(request.query);

  const schema = (extra: Record<string, unknown> = {}) => ({
    schema: { querystring: userQuery, ...extra },
  });

  app.put<{ Params: { id: string } }>(
    '/data/:id/name',
    schema({ params: idParams }),
    async (request) => {
      const who = await caller(request);
      const object = await byId(request);
      const dest = newChildPath(
        parentOf(object.path),
        stringField(request.body, 'filename'),
        'filename',
      );
      announce(await moveAll(data, who, [{ from: object.path, to: dest }], 'rename'));
      return { user: who.name, source: object.path, dest, 'async-task-id': asyncTaskId() };
    },
  );

  app.put<{ Params: { id: string } }>(
    '/data/:id/dir',
    schema({ params: idParams }),
    async (request) => {
      const who = await caller(request);
      const object = await byId(request);
      const dest = data.path(stringField(request.body, 'dirname'), 'dirname');
      announce(
        await moveAll(
          data,
          who,
          [{ from: object.path, to: `${dest}/${baseName(object.path)}` }],
          'move',
        ),
      );
      return { user: who.name, source: object.path, dest, 'async-task-id': asyncTaskId() };
    },
  );

  app.put<{ Params: { id: string } }>(
    '/data/:id/children/dir',
    schema({ params: idParams }),
    async (request) => {
      const who = await caller(request);
      const folder = await folderById(request);
      await data.require(who, folder, 'own');
      const dest = data.path(stringField(request.body, 'dirname'), 'dirname');
      const sources = (await data.catalog.children(folder.path)).map((child) => child.path).sort();
      if (sources.length > 0)
        announce(
          await moveAll(
            data,
            who,
            sources.map((from) => ({ from, to: `${dest}/${baseName(from)}` })),
            'move',
          ),
        );
      return { user: who.name, sources, dest, 'async-task-id': asyncTaskId() };
    },
  );

  app.post('/mover', schema(), async (request) => {
    const who = await caller(request);
    const sources = pathList(data, request.body, 'sources');
    const dest = data.path(stringField(request.body, 'dest'), 'dest');
    announce(
      await moveAll(
        data,
        who,
        sources.map((from) => ({ from, to: `${dest}/${baseName(from)}` })),
        'move',
      ),
    );
    return { user: who.name, sources, dest, 'async-task-id': asyncTaskId() };
  });

  const deleted = async (who: Caller, paths: string[]) => {
    const { events, ...result } = await deletePaths(data, who, paths, app.log);
    events.forEach(announce);
    return { ...result, 'async-task-id': asyncTaskId() };
  };

  app.post('/deleter', schema(), async (request) => {
    const who = await caller(request);
    return deleted(who, pathList(data, request.body, 'paths'));
  });

  app.delete<{ Params: { id: string } }>(
    '/data/:id',
    schema({ params: idParams }),
    async (request) => {
      const who = await caller(request);
      return deleted(who, [(await byId(request)).path]);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/data/:id/children',
    schema({ params: idParams }),
    async (request) => {
      const who = await caller(request);
      const folder = await folderById(request);
      await data.require(who, folder, 'own'); // and each child is checked too; no names leak to others
      const children = (await data.catalog.children(folder.path)).map((child) => child.path).sort();
      if (children.length === 0)
        return { paths: [], 'trash-paths': {}, 'async-task-id': asyncTaskId() };
      return deleted(who, children);
    },
  );

  app.delete('/trash', schema(), async (request) => {
    const who = await caller(request);
    const { trash, paths, event } = await emptyTrash(data, who, app.log);
    announce(event);
    return { trash, paths, 'async-task-id': asyncTaskId() };
  });

  app.post('/restorer', schema(), async (request) => {
    const who = await caller(request);
    const { restored, event } = await restorePaths(data, who, restoreRequest(data, request.body));
    announce(event);
    return { restored, 'async-task-id': asyncTaskId() };
  });

  await app.register(pathListRoutes, { data });
};

/** `{}`, `[]`, no body or `{paths: []}` all mean the whole trash. */
function restoreRequest(data: DataStore, body: unknown): string[] {
  if (body === undefined || body === null || (Array.isArray(body) && body.length === 0)) return [];
  const object = bodyObject(body);
  if (object.paths === undefined || object.paths === null) return [];
  return pathList(data, object, 'paths', true);
}

// Tag data: a file's info type (routes.md §13), what kind of data it holds, for apps' input
// selection. data-info keeps it per file and changes it by id (`PUT /data/{uuid}/type`), so these
// routes find the file's id from its path first; data-info refuses folders, unknown types and
// callers without write permission. The list of types is a passthrough row (index.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { documentedNotEnforced } from '../../http/openapi.ts';
import { routeAtBoth } from '../../http/secured-alias.ts';
import { dataInfo, dataInfoCall, statsByPath, uuidOf } from '../../clients/data-info.ts';
import { gatewayError } from '../../common/errors.ts';
import type { DataDeps } from './sharing.ts';

const FilePath = Type.String({ minLength: 1, description: 'The file’s path' });
const TypeAnswer = Type.Object({
  type: Type.String({ description: 'The info type; empty when the file has none' }),
  path: Type.String(),
  user: Type.String(),
});
const SetBody = Type.Object({
  path: FilePath,
  type: Type.String({ description: 'An info type of `GET /filetypes/type-list`; `""` clears' }),
});
const PathQuery = Type.Object({ path: FilePath });

type TypeAnswer = { type: string; path: string; user: string };

/** Sets (or, with `""`, clears) the info type of the file at `path`. */
async function setInfoType(
  deps: DataDeps,
  request: FastifyRequest,
  path: string,
  type: string,
): Promise<TypeAnswer> {
  const id = await uuidOf(dataInfoCall(deps, request), path);
  return dataInfo<TypeAnswer>(deps, request, {
    method: 'PUT',
    path: `/data/${encodeURIComponent(id)}/type`,
    json: { type },
  });
}

export async function fileTypeRoutes(app: FastifyInstance, deps: DataDeps): Promise<void> {
  const schema = { tags: ['data'], response: { 200: TypeAnswer } };

  routeAtBoth(app, 'user', {
    method: 'GET',
    url: '/filetypes/type',
    ...documentedNotEnforced,
    schema: {
      ...schema,
      summary: "Get a file's info type",
      description: 'Needs read permission on the file; a folder is ERR_NOT_A_FILE.',
      querystring: PathQuery,
    },
    handler: async (request) => {
      const { path } = request.query as { path: string };
      // One path asked, so the one stat answered is its own, whatever spelling data-info keys it by.
      const entry = Object.values(await statsByPath(deps, request, [path], 'read'))[0];
      if (!entry) throw gatewayError('ERR_DOES_NOT_EXIST', `${path} does not exist`, { path });
      if (entry.type !== 'file')
        throw gatewayError('ERR_NOT_A_FILE', `${entry.path} is a folder`, { path: entry.path });
      return {
        type: typeof entry.infoType === 'string' ? entry.infoType : '',
        path: entry.path,
        user: request.identity!.username,
      };
    },
  });

  routeAtBoth(app, 'user', {
    method: 'POST',
    url: '/filetypes/type',
    ...documentedNotEnforced,
    schema: {
      ...schema,
      summary: "Set a file's info type",
      description:
        'Needs write permission on the file. An empty `type` clears it; a type not in the list is ERR_BAD_OR_MISSING_FIELD, a folder ERR_NOT_A_FILE.',
      body: SetBody,
    },
    handler: async (request) => {
      const { path, type } = request.body as { path: string; type: string };
      return setInfoType(deps, request, path, type);
    },
  });

  routeAtBoth(app, 'user', {
    method: 'DELETE',
    url: '/filetypes/type',
    ...documentedNotEnforced,
    schema: {
      ...schema,
      summary: "Clear a file's info type",
      description: 'Needs write permission on the file; answers the file with an empty `type`.',
      querystring: PathQuery,
    },
    handler: async (request) => {
      const { path } = request.query as { path: string };
      return setInfoType(deps, request, path, '');
    },
  });
}

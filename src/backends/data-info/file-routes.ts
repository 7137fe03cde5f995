import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { contentDisposition } from '../../common/content-disposition.ts';
import { toGatewayError } from '../../common/error-replies.ts';
import { parseRange } from './blob-store.ts';
import { MAX_BULK_PATHS } from './bulk.ts';
import type { DataObject } from './object-index.ts';
import { chunkRoutes } from './chunk-routes.ts';
import { infoTypes, isInfoType } from './content-types.ts';
import { baseName, defaultBadChars } from '../../common/data-path.ts';
import { idFromParams, objectById, requireFile } from './ids.ts';
import { entityTypes, Lister, sortDirs, sortFields, type ListingOptions } from './listing.ts';
import { wildcardPath } from './navigation-routes.ts';
import {
  booleanParam,
  choiceParam,
  integerParam,
  missingParameter,
  single,
  valuesOf,
} from './query.ts';
import type { DataStore } from './store.ts';
import { uploadRoutes } from './upload-routes.ts';
import { createFolders } from './writes.ts';
import { visibilityOf, type Access } from './visibility.ts';
import { errorAs, errorTable, gatewayError } from '../../common/errors.ts';

/** Largest page a folder listing serves. */
const MAX_PAGE = 100_000;

function listingOptions(query: unknown): ListingOptions {
  const limit = integerParam(query, 'limit', 0, MAX_PAGE);
  if (limit === undefined) throw missingParameter('limit');
  const badChars = single(query, 'bad-chars');
  return {
    limit,
    offset: integerParam(query, 'offset', 0, Number.MAX_SAFE_INTEGER) ?? 0,
    sortField: choiceParam(query, ['sort-field', 'sort-col'], sortFields, 'name'),
    sortDir: choiceParam(query, 'sort-dir', sortDirs, 'ASC'),
    entityType: choiceParam(query, 'entity-type', entityTypes, 'any'),
    infoTypes: valuesOf(query, 'info-type').filter((type) => type !== ''),
    badChars: badChars ?? defaultBadChars,
    badNames: valuesOf(query, 'bad-name'),
    badPaths: valuesOf(query, 'bad-path'),
  };
}

/**
 * A file's bytes (backends.md §2.1, §2.7): the stored media type, inline or attachment with the
 * RFC 6266 name, one byte range on request. Headers that keep a browser from running uploaded
 * HTML or from guessing another type are always sent.
 */
async function sendFile(
  data: DataStore,
  object: DataObject,
  query: unknown,
  rangeHeader: string | undefined,
  reply: FastifyReply,
) {
  const attachment = booleanParam(query, 'attachment');
  const blob = await data.content(object);
  // An empty file is an empty 200 whatever the Range (clients ask `bytes=0-` of everything).
  const range = blob.size === 0 ? undefined : parseRange(rangeHeader, blob.size);
  if (range === 'unsatisfiable') {
    await blob.close();
    const reason = `the range ${rangeHeader} lies outside the ${blob.size} bytes of ${object.path}`;
    throw gatewayError(
      'ERR_RANGE_NOT_SATISFIABLE',
      reason,
      { path: object.path, size: blob.size },
      { 'content-range': `bytes */${blob.size}` },
    );
  }
  reply
    .header('content-type', object.content_type ?? 'application/octet-stream')
    .header(
      'content-disposition',
      contentDisposition(attachment ? 'attachment' : 'inline', baseName(object.path)),
    )
    .header('accept-ranges', 'bytes')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', 'sandbox')
    .header('last-modified', new Date(Number(object.modified_at)).toUTCString());
  if (blob.size === 0) {
    await blob.close();
    return reply.code(200).header('content-length', '0').send('');
  }
  if (range) {
    return reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${blob.size}`)
      .header('content-length', String(range.end - range.start + 1))
      .send(blob.stream(range));
  }
  return reply.code(200).header('content-length', String(blob.size)).send(blob.stream());
}

/** Folders to create for `path` (mkdir -p), top first, after checking the nearest existing ancestor. */
const pathsBody = Type.Object({ paths: Type.Array(Type.String()) });
const typeBody = Type.Object({ type: Type.String() });

/**
 * Files and folders by path and id (backends.md §2.1): listings and downloads, ids, folder
 * creation, info types; uploads and chunks are registered from here too.
 */
export const filesRoutes: FastifyPluginAsync<{ data: DataStore }> = async (app, { data }) => {
  const visibility = visibilityOf(data);
  const lister = new Lister(data);

  app.get('/data/path/*', async (request, reply) => {
    const caller = await data.callerOf(request.query);
    const object = await data.existing(wildcardPath(data, request.params));
    const access: Access = await visibility.requireRead(caller, object);
    if (object.type === 'file')
      return sendFile(data, object, request.query, request.headers.range, reply);
    return lister.list(caller, object, access, listingOptions(request.query));
  });

  app.get('/data/uuid', { exposeHeadRoute: false }, async (request) => {
    const caller = await data.callerOf(request.query);
    const raw = single(request.query, 'path');
    if (raw === undefined) throw missingParameter('path');
    const object = await data.existing(data.path(raw, 'path'));
    await visibility.requireRead(caller, object);
    return { id: object.id };
  });

  // HEAD answers with the status alone: 200 readable, 403 not, 404 no such id, 422 no such user.
  app.head('/data/:id', async (request, reply) => {
    try {
      const caller = await data.callerOf(request.query);
      const object = await objectById(data, idFromParams(request.params));
      await visibility.requireRead(caller, object);
      return reply.code(200).send();
    } catch (error) {
      const failure = toGatewayError(error as Error);
      const status =
        failure.errorCode === 'ERR_NOT_A_USER'
          ? errorTable.ERR_NOT_A_USER.variants.headOfData.status
          : failure.errorCode === 'ERR_NOT_READABLE'
            ? errorTable.ERR_NOT_READABLE.status
            : failure.statusCode;
      return reply.code(status).send();
    }
  });

  app.post('/data/directories', { schema: { body: pathsBody } }, async (request) => {
    const caller = await data.writerOf(request.query);
    const { paths: raw } = request.body as { paths: string[] };
    if (raw.length > MAX_BULK_PATHS) {
      throw gatewayError('ERR_TOO_MANY_RESULTS', `at most ${MAX_BULK_PATHS} paths are accepted`, {
        count: raw.length,
        limit: MAX_BULK_PATHS,
      });
    }
    if (raw.length === 0)
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'body field "paths" must not be empty', {
        field: 'paths',
      });
    const paths = [...new Set(raw.map((path) => data.path(path, 'paths')))].sort();
    const created = await createFolders(data, caller, paths);
    if (created.length === 0)
      throw errorAs('ERR_EXISTS', 'conflict', `${paths[0]} already exists`, {
        path: paths[0],
        paths,
      });
    return { paths: created.sort() };
  });

  app.put('/data/:id/type', { schema: { body: typeBody } }, async (request) => {
    const caller = await data.writerOf(request.query);
    const { type } = request.body as { type: string };
    if (type !== '' && !isInfoType(type)) {
      throw gatewayError(
        'ERR_BAD_OR_MISSING_FIELD',
        `"${type}" is not an info type (see GET /file-types)`,
        { field: 'type', type },
      );
    }
    const object = await objectById(data, idFromParams(request.params));
    requireFile(object);
    await visibility.requireLevel(caller, object, 'write');
    await data.db
      .updateTable('data_objects')
      .set({ info_type: type })
      .where('id', '=', object.id)
      .execute();
    return { type, user: caller.name, path: object.path };
  });

  app.get('/file-types', async () => ({ types: [...infoTypes] }));

  app.get('/data/:id/manifest', async (request) => {
    const caller = await data.callerOf(request.query);
    const object = await objectById(data, idFromParams(request.params));
    requireFile(object);
    await visibility.requireRead(caller, object);
    return {
      'content-type': object.content_type ?? 'application/octet-stream',
      infoType: object.info_type,
      urls: [],
    };
  });

  await app.register(chunkRoutes, { data });
  await app.register(uploadRoutes, { data });
};

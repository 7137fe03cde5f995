// Tags fileio and filesystem: download, display-download, upload, overwrite, URL import, save and
// save-as (spec "File I/O", routes.md §6), on data-info. Bodies are streamed both ways: uploads go to
// the store as the client sends them (the multipart body is not parsed here), downloads come back
// as the store reads them. Errors follow the spec: 500 with `{error_code, ...context}`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { baseName, normalizeDataPath, parentOf } from '../../common/data-path.ts';
import type { GatewayConfig } from '../../config/index.ts';
import { backendError, jsonAnswer } from '../../http/backend-answer.ts';
import { contentDisposition } from '../../common/content-disposition.ts';
import { documentedNotEnforced } from '../../http/openapi.ts';
import type { Forwarder } from '../../http/proxy.ts';
import { routeAtBoth } from '../../http/secured-alias.ts';
import {
  answeredListing,
  dataInfoCall,
  dataInfoJson,
  encodedPath,
  fileContent,
  uuidOf,
  type DataInfoCall,
} from '../../clients/data-info.ts';
import {
  FileioErrorSchema,
  fileResult,
  FileResultSchema,
  optionalJsonBody,
  registerFileioErrors,
  type FileStat,
} from './fileio-support.ts';
import { prepareImport, submitImport, type UrlImportDeps } from './url-import.ts';
import { GatewayError, gatewayError, relayedError, errorAs } from '../../common/errors.ts';

export interface FileioDeps {
  forwarder: Forwarder;
  config: GatewayConfig;
}

const errorResponses = { 500: FileioErrorSchema };

const fileBytes = (description: string, type = 'application/octet-stream') => ({
  description,
  content: { [type]: { schema: { type: 'string', format: 'binary' } } },
});

/**
 * A body the gateway documents but does not parse (multipart, or a JSON body that may be absent):
 * `nullable`, so the absent body (null to the validator) passes, and `required` only documents.
 */
const documentedBody = (
  schema: TSchema & { properties?: unknown; required?: unknown },
  description: string,
) =>
  Type.Unsafe({
    type: 'object',
    nullable: true,
    description,
    properties: schema.properties,
    ...(schema.required ? { required: schema.required } : {}),
  });

const MultipartFile = documentedBody(
  Type.Object({
    file: Type.String({
      format: 'binary',
      description: 'The file; its multipart filename (UTF-8) names it',
    }),
  }),
  'multipart/form-data with one part named `file`, streamed to the data store unparsed',
);

/** upload and overwrite: a multipart body with the file, written to `dest`. */
const multipartSchema = (summary: string, dest: string) => ({
  tags: ['fileio'],
  summary,
  querystring: Type.Object({ dest: Type.String({ description: dest }) }),
  consumes: ['multipart/form-data'],
  body: MultipartFile,
  response: { 200: FileResultSchema, ...errorResponses },
});

function missingQuery(name: string): GatewayError {
  return gatewayError('ERR_MISSING_QUERY_PARAMETER', `missing query parameter "${name}"`, {
    field: name,
  });
}

function requiredQuery(request: FastifyRequest, name: string): string {
  const value = (request.query as Record<string, unknown>)[name];
  if (value === undefined || value === '') throw missingQuery(name);
  if (typeof value !== 'string')
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `query parameter "${name}" must be given once`, {
      field: name,
    });
  return value;
}

/** Relays a file from data-info: status, ranges and length as the store answered, our own type and disposition. */
async function relayFile(
  deps: FileioDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  display: boolean,
): Promise<FastifyReply> {
  const body = await optionalJsonBody(request);
  const query = request.query as { path?: unknown; attachment?: unknown };
  const given = query.path ?? body?.path;
  if (given === undefined || given === '') throw missingQuery('path');
  const path = normalizeDataPath(given, deps.config.dataStore.zone, 'path');
  const attachment =
    !display || !['0', 'false'].includes(String(query.attachment ?? '1').toLowerCase());

  const response = await deps.forwarder.exchange(request, reply, 'data-info', {
    method: request.method === 'HEAD' ? 'HEAD' : 'GET',
    path: `/data/path${encodedPath(path)}`,
    // `limit` matters only for a folder, which then answers a (short) listing instead of a complaint.
    rawQuery: `attachment=${attachment}&limit=1`,
    identity: request.identity,
    identityStyle: 'data-user',
    bodyLimitBytes: 0,
  });
  if (response.statusCode === 416) {
    const range = response.headers['content-range'];
    const error = await backendError('data-info', response);
    throw gatewayError(
      'ERR_RANGE_NOT_SATISFIABLE',
      error.reason,
      { path },
      typeof range === 'string' ? { 'content-range': range } : {},
    );
  }
  if (response.statusCode === 304) {
    // A conditional request the store answered "unchanged": nothing to reshape.
    await response.body.dump();
    for (const name of ['etag', 'last-modified'])
      if (response.headers[name] !== undefined) reply.header(name, response.headers[name]);
    return reply.code(304).send();
  }
  if (response.statusCode < 200 || response.statusCode >= 300)
    throw await backendError('data-info', response);
  if (answeredListing(response)) {
    // A folder: data-info answered a listing, not bytes.
    await response.body.dump();
    throw errorAs('ERR_NOT_A_FILE', 'fileio', `${path} is a folder, not a file`, { path });
  }

  reply.code(response.statusCode);
  for (const name of [
    'content-length',
    'content-range',
    'accept-ranges',
    'etag',
    'last-modified',
  ]) {
    const value = response.headers[name];
    if (value !== undefined) reply.header(name, value);
  }
  const storedType = response.headers['content-type'];
  reply.header(
    'content-type',
    display && typeof storedType === 'string' ? storedType : 'application/octet-stream',
  );
  reply.header(
    'content-disposition',
    contentDisposition(attachment ? 'attachment' : 'inline', baseName(path)),
  );
  // Shown inline on the gateway's origin: never let a stored HTML file run as a page of it.
  reply.header('x-content-type-options', 'nosniff');
  if (!attachment) reply.header('content-security-policy', 'sandbox');
  return reply.send(response.body);
}

/** Where an upload goes in data-info: a new file in a folder, or new content for a file. */
interface UploadTarget {
  method: 'POST' | 'PUT';
  path: string;
  rawQuery: string;
}

/** The caller's multipart body, streamed to data-info; answers the file result. */
async function streamUpload(
  deps: FileioDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  target: UploadTarget,
): Promise<ReturnType<typeof fileResult>> {
  const response = await deps.forwarder.exchange(request, reply, 'data-info', {
    ...target,
    identity: request.identity,
    identityStyle: 'data-user',
    bodyLimitBytes: uploadBodyLimit(deps),
  });
  const { file } = await jsonAnswer<{ file: FileStat }>('data-info', response);
  return fileResult(file);
}

/** Room for multipart boundaries and part headers: the file itself is held to MAX_UPLOAD_BYTES by the store. */
const MULTIPART_OVERHEAD = 1024 * 1024;

const uploadBodyLimit = (deps: FileioDeps) =>
  deps.config.dataStore.maxUploadBytes + MULTIPART_OVERHEAD;

/** Checks before any backend call that the body is a multipart form of allowed size. */
function checkUploadBody(deps: FileioDeps, request: FastifyRequest): void {
  const type = request.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;.*boundary=/i.test(type)) {
    throw gatewayError(
      'ERR_MISSING_FORM_FIELD',
      'The body must be multipart/form-data with a part named "file"',
      { field: 'file' },
    );
  }
  const max = deps.config.dataStore.maxUploadBytes;
  if (Number(request.headers['content-length'] ?? 0) > uploadBodyLimit(deps)) {
    throw gatewayError(
      'ERR_REQUEST_BODY_TOO_LARGE',
      `The file is larger than the upload limit of ${max} bytes`,
      { limit: max },
    );
  }
}

/**
 * The id of a file about to be written. Levels are ordered (read < write < own), so a caller who
 * cannot even read it cannot write it: that is reported as the write failure it is.
 */
async function writableFileId(call: DataInfoCall, path: string): Promise<string> {
  try {
    return await uuidOf(call, path);
  } catch (error) {
    if (error instanceof GatewayError && error.errorCode === 'ERR_NOT_READABLE') {
      // The status stays data-info's (backendError relays it); file I/O's handler then answers 500.
      throw relayedError(
        error.statusCode,
        'ERR_NOT_WRITEABLE',
        error.reason.replace(/cannot read/, 'cannot write'),
        error.extra,
      );
    }
    throw error;
  }
}

/** save and save-as content: a string of at most FILEIO_MAX_EDIT_BYTES UTF-8 bytes. */
function editContent(deps: FileioDeps, content: string): string {
  const size = Buffer.byteLength(content, 'utf8');
  const limit = deps.config.dataStore.maxEditBytes;
  if (size > limit)
    throw errorAs(
      'ERR_FILE_SIZE_TOO_LARGE',
      'fileio',
      `The content (${size} bytes) is larger than the maximum edit size of ${limit} bytes`,
      { size, limit },
    );
  return content;
}

const EditBody = Type.Object({
  dest: Type.String({ description: 'File path' }),
  content: Type.String({ description: 'The whole new content (UTF-8)' }),
});

export async function fileioRoutes(app: FastifyInstance, deps: FileioDeps): Promise<void> {
  registerFileioErrors(app);
  const zone = deps.config.dataStore.zone;
  // JSON bodies of save/save-as may hold FILEIO_MAX_EDIT_BYTES of content, escaped (up to 6 bytes a character).
  const editBodyLimit = Math.max(
    deps.config.bodyLimitBytes,
    deps.config.dataStore.maxEditBytes * 6 + 64 * 1024,
  );

  const pathQuery = Type.Object({ path: Type.Optional(Type.String({ description: 'File path' })) });

  routeAtBoth(app, 'optional', {
    method: 'GET',
    url: '/fileio/download',
    ...documentedNotEnforced,
    schema: {
      tags: ['fileio'],
      summary: 'Download a file',
      description:
        'Always an attachment of type application/octet-stream; `Range` requests are answered with 206.',
      querystring: pathQuery,
      response: {
        200: fileBytes('The file'),
        206: fileBytes('The requested range'),
        ...errorResponses,
      },
    },
    handler: (request, reply) => relayFile(deps, request, reply, false),
  });

  routeAtBoth(app, 'optional', {
    method: 'GET',
    url: '/filesystem/display-download',
    ...documentedNotEnforced,
    schema: {
      tags: ['filesystem'],
      summary: 'Download a file, as an attachment or for display',
      description:
        '`attachment=1` (default) answers an attachment, `attachment=0` an inline file; both with the detected content type.',
      querystring: Type.Object({
        path: Type.Optional(Type.String({ description: 'File path' })),
        attachment: Type.Optional(Type.String({ enum: ['0', '1', 'true', 'false'], default: '1' })),
      }),
      response: {
        200: fileBytes('The file, of its detected type', '*/*'),
        206: fileBytes('The requested range', '*/*'),
        ...errorResponses,
      },
    },
    handler: (request, reply) => relayFile(deps, request, reply, true),
  });

  // Streamed bodies: no parser reads them, and the gateway's body limit does not apply (MAX_UPLOAD_BYTES does).
  await app.register(async (streamed) => {
    streamed.removeAllContentTypeParsers();
    streamed.addContentTypeParser('*', (_request, _payload, done) => done(null));

    /** A multipart upload to a checked `dest`, streamed to the data-info call `target` names. */
    const uploadRoute = (
      url: string,
      schema: ReturnType<typeof multipartSchema>,
      target: (request: FastifyRequest, dest: string) => Promise<UploadTarget>,
    ) =>
      routeAtBoth(streamed, 'user', {
        method: 'POST',
        url,
        ...documentedNotEnforced,
        schema,
        handler: async (request, reply) => {
          const dest = normalizeDataPath(requiredQuery(request, 'dest'), zone, 'dest');
          checkUploadBody(deps, request);
          return streamUpload(deps, request, reply, await target(request, dest));
        },
      });

    uploadRoute(
      '/fileio/upload',
      multipartSchema('Upload a file into a folder', 'Destination folder'),
      async (_request, dest) => ({
        method: 'POST',
        path: '/data',
        rawQuery: `dest=${encodeURIComponent(dest)}`,
      }),
    );
    uploadRoute(
      '/fileio/overwrite',
      multipartSchema('Replace the content of an existing file', 'The existing file'),
      async (request, dest) => ({
        method: 'PUT',
        path: `/data/${encodeURIComponent(await writableFileId(dataInfoCall(deps, request), dest))}`,
        rawQuery: '',
      }),
    );
  });

  /** save and save-as: a JSON body `{dest, content}` that `write` stores; answered with the file result. */
  const editRoute = (
    url: string,
    summary: string,
    write: (call: DataInfoCall, path: string, content: string) => Promise<{ file: FileStat }>,
  ) =>
    routeAtBoth(app, 'user', {
      method: 'POST',
      url,
      ...documentedNotEnforced,
      bodyLimit: editBodyLimit,
      schema: {
        tags: ['fileio'],
        summary,
        body: EditBody,
        response: { 200: FileResultSchema, ...errorResponses },
      },
      handler: async (request) => {
        const { dest, content } = request.body as { dest: string; content: string };
        const path = normalizeDataPath(dest, zone, 'dest');
        editContent(deps, content);
        const { file } = await write(dataInfoCall(deps, request), path, content);
        return fileResult(file);
      },
    });

  editRoute(
    '/fileio/save',
    'Overwrite an existing file with new content',
    async (call, path, content) => {
      const id = await writableFileId(call, path);
      return dataInfoJson(call, {
        method: 'PUT',
        path: `/data/${encodeURIComponent(id)}`,
        raw: fileContent(content),
      });
    },
  );

  editRoute('/fileio/saveas', 'Save content as a new file', (call, path, content) =>
    dataInfoJson(call, {
      method: 'POST',
      path: '/data',
      query: { dest: parentOf(path), filename: baseName(path) },
      raw: fileContent(content),
    }),
  );

  const importDeps: UrlImportDeps = { forwarder: deps.forwarder, config: deps.config };
  routeAtBoth(app, 'user', {
    method: 'POST',
    url: '/fileio/urlupload',
    ...documentedNotEnforced,
    schema: {
      tags: ['fileio'],
      summary: 'Import a file from a URL into a folder',
      description:
        'Answers at once; the file is fetched in the background (an analysis of the URL import app) and a `data` notification reports the outcome. ' +
        '`dest` and `address` may also be given as query parameters when there is no JSON body.',
      querystring: Type.Object({
        dest: Type.Optional(Type.String()),
        address: Type.Optional(Type.String()),
      }),
      body: documentedBody(
        // Both are needed, from the body or the query; `{}` (the web UI's "no body") is no body.
        Type.Object({
          dest: Type.Optional(Type.String({ description: 'Destination folder' })),
          address: Type.Optional(Type.String({ description: 'http(s) URL of the file' })),
        }),
        'The destination folder and the source URL (both required, here or in the query)',
      ),
      response: {
        200: Type.Object(
          { msg: Type.String(), url: Type.String(), label: Type.String(), dest: Type.String() },
          { description: 'URL upload result' },
        ),
        ...errorResponses,
      },
    },
    handler: async (request) => {
      const body = request.body as Record<string, unknown> | undefined | null;
      const query = request.query as Record<string, unknown>;
      const hasBody =
        body !== undefined &&
        body !== null &&
        !(typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0);
      if (hasBody && (typeof body !== 'object' || Array.isArray(body))) {
        throw gatewayError(
          'ERR_BAD_OR_MISSING_FIELD',
          'The body must be a JSON object with "dest" and "address"',
        );
      }
      const field = (name: 'dest' | 'address'): string => {
        const value = (hasBody ? body[name] : undefined) ?? query[name];
        if (typeof value === 'string' && value !== '') return value;
        if (value === undefined || value === '') {
          if (!hasBody) throw missingQuery(name);
          throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `missing body field "${name}"`, {
            field: name,
          });
        }
        throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `body field "${name}" must be a string`, {
          field: name,
        });
      };
      const requested = { dest: field('dest'), address: field('address') };
      const call = dataInfoCall(deps, request);
      const job = await prepareImport(call, importDeps, requested);
      await submitImport(call, importDeps, requested, job);
      return { msg: 'Upload scheduled.', url: requested.address, label: job.label, dest: job.dest };
    },
  });
}

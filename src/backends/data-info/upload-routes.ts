import { pipeline, Readable, Transform } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { BlobTooLarge } from './blob-store.ts';
import type { DataObject } from './object-index.ts';
import { SNIFF_BYTES } from './content-types.ts';
import { joinDataPath } from '../../common/data-path.ts';
import { idFromParams, objectById, requireFile, requireFolder } from './ids.ts';
import { missingParameter, single } from './query.ts';
import type { Caller, DataStore } from './store.ts';
import { visibilityOf } from './visibility.ts';
import { addFile, replaceContent, type WrittenContent } from './writes.ts';
import { GatewayError, gatewayError } from '../../common/errors.ts';

/**
 * Uploads (backends.md §2.1, §2.7): `POST /data?dest=<folder>` makes a new file, `PUT /data/{id}`
 * replaces a file's content. The body is either multipart with a part named `file` (its filename
 * names a new file) or the raw bytes in any other content type, with `filename` in the query for
 * POST. Bytes are streamed to the blob store, never held in memory; a failed upload leaves no
 * blob, temporary file or catalog row behind.
 */

/** Room for multipart boundaries and headers when judging a multipart Content-Length up front. */
const MULTIPART_OVERHEAD = 1024 * 1024;

interface Source {
  stream: Readable;
  /** The multipart part's file name (undefined for raw bodies). */
  filename?: string;
}

function tooLarge(limit: number): GatewayError {
  return gatewayError(
    'ERR_REQUEST_BODY_TOO_LARGE',
    `the file is larger than the upload limit of ${limit} bytes`,
    { limit },
  );
}

/** Refuses a body whose declared length is already over the limit, before reading any of it. */
function checkDeclaredLength(request: FastifyRequest, limit: number): void {
  const declared = Number(request.headers['content-length']);
  if (!Number.isFinite(declared)) return;
  const allowed = request.isMultipart() ? limit + MULTIPART_OVERHEAD : limit;
  if (declared > allowed) throw tooLarge(limit);
}

/** Maps @fastify/multipart and busboy failures onto data-info errors. */
function multipartFailure(error: unknown, limit: number): GatewayError {
  if (error instanceof GatewayError) return error;
  const code = (error as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge(limit);
  const message = (error as Error).message ?? String(error);
  return gatewayError(
    'ERR_BAD_OR_MISSING_FIELD',
    `the multipart body could not be read: ${message}`,
    { field: 'file' },
  );
}

/** The part named `file` of a multipart body; other parts are skipped (file parts drained). */
async function filePart(request: FastifyRequest, limit: number): Promise<Source> {
  try {
    for await (const part of request.parts()) {
      if (part.type !== 'file') continue;
      if (part.fieldname === 'file') return { stream: part.file, filename: part.filename };
      part.file.resume();
    }
  } catch (error) {
    throw multipartFailure(error, limit);
  }
  throw gatewayError('ERR_MISSING_FORM_FIELD', 'the multipart body has no part named "file"', {
    field: 'file',
  });
}

/** The uploaded bytes: the multipart `file` part, or the whole raw body. */
async function sourceOf(request: FastifyRequest, limit: number): Promise<Source> {
  if (request.isMultipart()) return filePart(request, limit);
  const body = request.body;
  return { stream: body instanceof Readable ? body : Readable.from([]) };
}

/** An AbortSignal that fires when the client goes away before its body has arrived. */
function clientGone(request: FastifyRequest): AbortSignal {
  const controller = new AbortController();
  request.raw.once('close', () => {
    if (!request.raw.complete)
      controller.abort(new Error('the client closed the connection during the upload'));
  });
  return controller.signal;
}

/**
 * Streams `source` into the blob `id` (at most `limit` bytes), remembering the first bytes.
 * Any failure leaves nothing behind (BlobStore.write) and becomes 413 when the limit was passed.
 */
async function writeBlob(
  data: DataStore,
  id: string,
  source: Source,
  limit: number,
  signal: AbortSignal,
): Promise<Required<WrittenContent>> {
  const head: Buffer[] = [];
  let headBytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (headBytes < SNIFF_BYTES) {
        head.push(chunk.subarray(0, SNIFF_BYTES - headBytes));
        headBytes += Math.min(chunk.length, SNIFF_BYTES - headBytes);
      }
      callback(null, chunk);
    },
  });
  // pipeline passes a source failure (abort, truncated multipart) on to the tap, which the blob store reads.
  pipeline(source.stream, tap, () => {});
  try {
    const written = await data.blobs.write(id, tap, { maxBytes: limit, signal });
    if ((source.stream as { truncated?: boolean }).truncated) {
      // busboy stopped at its own limit; never keep a cut-off file.
      await data.blobs.remove(id);
      throw tooLarge(limit);
    }
    return { ...written, head: Buffer.concat(head) };
  } catch (error) {
    if (error instanceof BlobTooLarge) throw tooLarge(limit);
    throw error;
  }
}

/** The caller's stat of an object they just wrote. */
async function statOf(data: DataStore, caller: Caller, object: DataObject) {
  const level = (await visibilityOf(data).level(caller, object.path)) ?? 'write';
  return data.stat(caller, object, level);
}

export const uploadRoutes: FastifyPluginAsync<{ data: DataStore }> = async (app, { data }) => {
  const limit = data.options.maxUploadBytes;
  const visibility = visibilityOf(data);

  // In this scope every body is an upload: multipart is parsed lazily as a stream, and anything
  // else (JSON and text included) is handed over unread as the file's bytes.
  app.removeAllContentTypeParsers();
  await app.register(multipart, {
    // One byte over the limit reaches the blob store, which then refuses the upload as too large.
    limits: {
      fileSize: limit + 1,
      fieldSize: 64 * 1024,
      fields: 100,
      parts: 1000,
      headerPairs: 200,
    },
  });
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.post('/data', async (request) => {
    const caller = await data.writerOf(request.query);
    checkDeclaredLength(request, limit);
    const rawDest = single(request.query, 'dest');
    if (rawDest === undefined) throw missingParameter('dest');
    const destPath = data.path(rawDest, 'dest');
    const dest = await data.catalog.byPath(destPath);
    if (!dest)
      throw gatewayError(
        'ERR_DOES_NOT_EXIST',
        `the destination folder ${destPath} does not exist`,
        { path: destPath, field: 'dest' },
      );
    requireFolder(dest, 'dest');
    await visibility.requireLevel(caller, dest, 'write');

    const multipartBody = request.isMultipart();
    const queryName = single(request.query, 'filename');
    if (!multipartBody && queryName === undefined) throw missingParameter('filename');
    const source = await sourceOf(request, limit);
    const name = multipartBody ? source.filename : queryName;
    const path = joinDataPath(dest.path, name ?? '', 'filename');
    const signal = clientGone(request);
    const object = await addFile(data, caller, path, (id) =>
      writeBlob(data, id, source, limit, signal),
    );
    return { file: await statOf(data, caller, object) };
  });

  app.put('/data/:id', async (request) => {
    const caller = await data.writerOf(request.query);
    checkDeclaredLength(request, limit);
    const object = await objectById(data, idFromParams(request.params));
    requireFile(object);
    await visibility.requireLevel(caller, object, 'write');
    const source = await sourceOf(request, limit);
    const signal = clientGone(request);

    const updated = await replaceContent(data, object, (id) =>
      writeBlob(data, id, source, limit, signal),
    );
    return { file: await statOf(data, caller, updated) };
  });
};

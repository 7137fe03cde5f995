// Calls to data-info as the caller, shared by the filesystem, sharing and file I/O routes. A
// refusal reaches the client as data-info sent it, context keys included (see backendError).
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { Identity } from '../common/identity.ts';
import { gatewayError } from '../common/errors.ts';
import { backendError, jsonAnswer, type BackendResponse } from '../http/backend-answer.ts';
import { backendFailure } from '../http/backend-failure.ts';
import type { BackendCall, Forwarder } from '../http/proxy.ts';

/**
 * Who calls and for which request. Not the request itself: a URL import goes on calling data-info
 * after its request has been answered.
 */
export interface DataInfoCall {
  forwarder: Forwarder;
  identity: Identity | undefined;
  requestId: string;
}

export function dataInfoCall(
  deps: { forwarder: Forwarder },
  request: FastifyRequest,
): DataInfoCall {
  return { forwarder: deps.forwarder, identity: request.identity, requestId: request.id };
}

export type DataInfoRequest = Pick<
  BackendCall,
  'method' | 'path' | 'query' | 'json' | 'raw' | 'signal'
>;

/** A data-info JSON answer, the call made as the caller (`user` parameter). */
export async function dataInfoJson<T>(call: DataInfoCall, request: DataInfoRequest): Promise<T> {
  const response = await call.forwarder.call(
    'data-info',
    { ...request, identity: call.identity, identityStyle: 'data-user' },
    call.requestId,
  );
  return jsonAnswer<T>('data-info', response);
}

/** data-info's `/path-info` takes at most this many ids per call (backends.md §2 bulk limit). */
const PATH_INFO_BATCH = 1000;

/**
 * The stats of the entries among `ids` that exist and the caller can read, by id (missing and
 * unreadable ones left out): `/path-info` in batches of PATH_INFO_BATCH, sent together.
 * `filterInclude` names the stat keys wanted (all of them when absent).
 */
export async function readableStats<T>(
  call: DataInfoCall,
  ids: readonly string[],
  filterInclude?: string,
): Promise<Map<string, T>> {
  const unique = [...new Set(ids)];
  const batches: string[][] = [];
  for (let start = 0; start < unique.length; start += PATH_INFO_BATCH)
    batches.push(unique.slice(start, start + PATH_INFO_BATCH));
  const answers = await Promise.all(
    batches.map((batch) =>
      dataInfoJson<{ ids?: Record<string, T> }>(call, {
        method: 'POST',
        path: '/path-info',
        query: {
          'ignore-missing': 'true',
          'ignore-inaccessible': 'true',
          'filter-include': filterInclude,
        },
        json: { ids: batch },
      }),
    ),
  );
  return new Map(answers.flatMap((answer) => Object.entries(answer?.ids ?? {})));
}

/** A file's content as data-info takes it raw: no multipart, nothing parsed. */
export const fileContent = (content: string | Readable) => ({
  content,
  contentType: 'application/octet-stream',
});

/** The id of a canonical path (`GET /data/uuid`). */
export async function uuidOf(call: DataInfoCall, path: string): Promise<string> {
  const { id } = await dataInfoJson<{ id: string }>(call, {
    method: 'GET',
    path: '/data/uuid',
    query: { path },
  });
  return id;
}

/**
 * Whether data-info answered `GET /data/path/<path>` with a folder's listing (JSON, no
 * Content-Disposition) where the route wanted a file's bytes.
 */
export function answeredListing(response: BackendResponse): boolean {
  return (
    response.headers['content-disposition'] === undefined &&
    String(response.headers['content-type'] ?? '').includes('json')
  );
}

/** A canonical path as the tail of a backend URL path (`/data/path<here>`): every segment encoded on its own. */
export function encodedPath(canonical: string): string {
  return canonical
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}

/** A data-info JSON answer for a filesystem route, called as its caller. */
export function dataInfo<T>(
  deps: { forwarder: Forwarder },
  request: FastifyRequest,
  call: DataInfoRequest,
): Promise<T> {
  return dataInfoJson<T>(dataInfoCall(deps, request), call);
}

/** The stat keys these routes read (backends.md §2.2). */
export interface EntryStat {
  id: string;
  path: string;
  type: 'file' | 'dir';
  permission: 'read' | 'write' | 'own';
  [key: string]: unknown;
}

export type Level = 'read' | 'write' | 'own';

/**
 * The caller's stats of entries by id, each needing `level`: one data-info call. Missing →
 * ERR_DOES_NOT_EXIST (404), lacking the level → ERR_NOT_READABLE / ERR_NOT_WRITEABLE (403).
 */
export async function statsByIds(
  deps: { forwarder: Forwarder },
  request: FastifyRequest,
  ids: string[],
  level: Level,
): Promise<EntryStat[]> {
  if (ids.length === 0) return [];
  const answer = await dataInfoJson<{ ids: Record<string, EntryStat> }>(
    dataInfoCall(deps, request),
    {
      method: 'POST',
      path: '/stat-gatherer',
      query: { 'validation-behavior': level },
      json: { ids },
    },
  );
  return ids.map((id) => answer.ids[id]!);
}

export async function statById(
  deps: { forwarder: Forwarder },
  request: FastifyRequest,
  id: string,
  level: Level,
): Promise<EntryStat> {
  return (await statsByIds(deps, request, [id], level))[0]!;
}

/** The caller's stats of paths, each needing `level` (one call). */
export async function statsByPath(
  deps: { forwarder: Forwarder },
  request: FastifyRequest,
  paths: string[],
  level: Level,
): Promise<Record<string, EntryStat>> {
  if (paths.length === 0) return {};
  const answer = await dataInfoJson<{ paths: Record<string, EntryStat> }>(
    dataInfoCall(deps, request),
    {
      method: 'POST',
      path: '/stat-gatherer',
      query: { 'validation-behavior': level },
      json: { paths },
    },
  );
  return answer.paths;
}

/** A stored file's bytes, at most `maxBytes` of them (ERR_FILE_SIZE_TOO_LARGE beyond). */
export async function readStoredFile(
  deps: { forwarder: Forwarder },
  request: FastifyRequest,
  path: string,
  maxBytes: number,
): Promise<Buffer> {
  const response = await deps.forwarder.call(
    'data-info',
    {
      method: 'GET',
      path: `/data/path${encodedPath(path)}`,
      query: { limit: '1' },
      identity: request.identity,
      identityStyle: 'data-user',
    },
    request.id,
  );
  if (response.statusCode < 200 || response.statusCode >= 300)
    throw await backendError('data-info', response);
  if (answeredListing(response)) {
    await response.body.dump();
    throw gatewayError('ERR_NOT_A_FILE', `${path} is a folder, not a file`, { path });
  }
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        response.body.destroy();
        throw gatewayError(
          'ERR_FILE_SIZE_TOO_LARGE',
          `${path} is larger than the ${maxBytes} bytes this operation reads`,
          { path, limit: maxBytes },
        );
      }
      parts.push(chunk);
    }
  } catch (error) {
    // data-info dying, stalling or closing mid-body: 502 or 504, as a passthrough answers it.
    throw backendFailure('data-info', response.timeoutMs ?? 0, error);
  }
  return Buffer.concat(parts);
}

/** Writes a new file `<folder>/<name>` (ERR_EXISTS when it is there already); answers its stat. */
export async function createStoredFile(
  deps: { forwarder: Forwarder },
  request: FastifyRequest,
  folder: string,
  name: string,
  content: string,
): Promise<EntryStat> {
  const { file } = await dataInfoJson<{ file: EntryStat }>(dataInfoCall(deps, request), {
    method: 'POST',
    path: '/data',
    query: { dest: folder, filename: name },
    raw: fileContent(content),
  });
  return file;
}

/** Overwrites the file with this id; answers its stat. */
export async function overwriteStoredFile(
  deps: { forwarder: Forwarder },
  request: FastifyRequest,
  id: string,
  content: string,
): Promise<EntryStat> {
  const { file } = await dataInfoJson<{ file: EntryStat }>(dataInfoCall(deps, request), {
    method: 'PUT',
    path: `/data/${id}`,
    raw: fileContent(content),
  });
  return file;
}

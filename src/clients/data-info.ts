// Calls to data-info as the caller, shared by the filesystem, sharing and file I/O routes. A
// refusal reaches the client as data-info sent it, context keys included (see backendError).
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { Identity } from '../common/identity.js';
import { jsonAnswer } from '../http/backend-answer.js';
import type { BackendCall, Forwarder } from '../http/proxy.js';
import type { BackendResponse } from '../http/backend-answer.js';

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
    { ...request, identity: call.identity, identityStyle: 'user' },
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

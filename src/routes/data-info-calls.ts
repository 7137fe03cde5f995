// Calls to data-info as the caller, shared by the filesystem, sharing and file I/O routes. A
// refusal reaches the client as data-info sent it, context keys included (see backendError).
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { Identity } from '../http/auth.js';
import { jsonAnswer } from '../http/backend-answer.js';
import type { BackendCall, Forwarder } from '../http/proxy.js';

/**
 * Who calls and for which request. Not the request itself: a URL import goes on calling data-info
 * after its request has been answered.
 */
export interface DataInfoCall {
  forwarder: Forwarder;
  identity: Identity | undefined;
  requestId: string;
}

export function dataInfoCall(deps: { forwarder: Forwarder }, request: FastifyRequest): DataInfoCall {
  return { forwarder: deps.forwarder, identity: request.identity, requestId: request.id };
}

export type DataInfoRequest = Pick<BackendCall, 'method' | 'path' | 'query' | 'json' | 'raw' | 'signal'>;

/** A data-info JSON answer, the call made as the caller (`user` parameter). */
export async function dataInfoJson<T>(call: DataInfoCall, request: DataInfoRequest): Promise<T> {
  const response = await call.forwarder.call('data-info', { ...request, identity: call.identity, identityStyle: 'user' }, call.requestId);
  return jsonAnswer<T>('data-info', response);
}

/** A file's content as data-info takes it raw: no multipart, nothing parsed. */
export const fileContent = (content: string | Readable) => ({ content, contentType: 'application/octet-stream' });

/** The id of a canonical path (`GET /data/uuid`). */
export async function uuidOf(call: DataInfoCall, path: string): Promise<string> {
  const { id } = await dataInfoJson<{ id: string }>(call, { method: 'GET', path: '/data/uuid', query: { path } });
  return id;
}

/** A canonical path as the tail of a backend URL path (`/data/path<here>`): every segment encoded on its own. */
export function encodedPath(canonical: string): string {
  return canonical
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}

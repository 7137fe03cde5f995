// Tag fileio: what the file I/O routes share: data-info calls that keep error context, the file
// result, the spec's 500 error bodies, and attachment headers.
import type { Readable } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Identity } from '../http/auth.js';
import { GatewayError, sendError, toGatewayError } from '../http/errors.js';
import { identityParams, type BackendResponse, type Forwarder } from '../http/proxy.js';

/** backends.md §2.2, the part of a data-info stat object the file result is made from. */
export interface FileStat {
  id: string;
  path: string;
  label?: string;
  'date-created': number;
  'date-modified': number;
  'file-size'?: number;
}

/** Spec "File results": `id` and `path` are the path, times are seconds (data-info gives ms). */
export function fileResult(stat: FileStat) {
  const label = stat.path.slice(stat.path.lastIndexOf('/') + 1);
  return {
    file: {
      id: stat.path,
      path: stat.path,
      label,
      permission: 'own' as const,
      'date-created': Math.floor(Number(stat['date-created']) / 1000),
      'date-modified': Math.floor(Number(stat['date-modified']) / 1000),
      'file-size': Number(stat['file-size'] ?? 0),
    },
  };
}

export const FileResultSchema = Type.Object(
  {
    file: Type.Object({
      id: Type.String({ description: 'The file path' }),
      path: Type.String(),
      label: Type.String({ description: 'The base name' }),
      permission: Type.Literal('own'),
      'date-created': Type.Integer({ description: 'Seconds since the epoch' }),
      'date-modified': Type.Integer({ description: 'Seconds since the epoch' }),
      'file-size': Type.Integer({ description: 'Bytes' }),
    }),
  },
  { description: 'File result' },
);

export const FileioErrorSchema = Type.Object(
  { error_code: Type.String(), reason: Type.Optional(Type.String()) },
  { additionalProperties: true, description: 'File I/O error: `error_code` plus context fields (`path`, `url`, `msg`, …)' },
);

/** `/data/path/<zone>/<rest>` for a canonical path, each segment encoded. */
export function dataPathUrl(path: string): string {
  return `/data/path/${path.slice(1).split('/').map(encodeURIComponent).join('/')}`;
}

/** A data-info error answer as a GatewayError that keeps the backend's code and context fields. */
export async function backendError(response: BackendResponse): Promise<GatewayError> {
  const text = await response.body.text().catch(() => '');
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  const { error_code, reason, message, success: _success, ...context } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const code = typeof error_code === 'string' ? error_code : response.statusCode >= 500 ? 'ERR_BAD_GATEWAY' : 'ERR_REQUEST_FAILED';
  const why = [reason, message].find((value) => typeof value === 'string') as string | undefined;
  return new GatewayError(response.statusCode, code, why ?? (text.trim().slice(0, 200) || `The data-info service answered ${response.statusCode}.`), context);
}

/** Reads a data-info JSON answer, or throws its error. */
export async function jsonAnswer<T>(response: BackendResponse): Promise<T> {
  if (response.statusCode < 200 || response.statusCode >= 300) throw await backendError(response);
  const text = await response.body.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new GatewayError(502, 'ERR_BAD_GATEWAY', 'The data-info service answered with something other than JSON.', { backend: 'data-info' });
  }
}

export interface DataInfoCall {
  forwarder: Forwarder;
  identity: Identity | undefined;
  requestId: string;
}

/** A JSON call to data-info as the caller. */
export async function dataInfoJson<T>(
  call: DataInfoCall,
  method: string,
  path: string,
  query: Record<string, string> = {},
  json?: unknown,
): Promise<T> {
  const response = await call.forwarder.call('data-info', { method, path, identity: call.identity, identityStyle: 'user', query, json }, call.requestId);
  return jsonAnswer<T>(response);
}

/** Sends raw bytes (a string or a stream) to data-info as a file body: no multipart, nothing parsed. */
export async function dataInfoRaw<T>(
  call: DataInfoCall,
  method: string,
  path: string,
  query: Record<string, string>,
  body: string | Readable,
  signal?: AbortSignal,
): Promise<T> {
  const pairs = [...identityParams('user', call.identity, ''), ...Object.entries(query)];
  const search = pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');
  const headers: Record<string, string> = { 'content-type': 'application/octet-stream', accept: 'application/json', 'x-request-id': call.requestId };
  if (typeof body === 'string') headers['content-length'] = String(Buffer.byteLength(body));
  const response = await call.forwarder.request('data-info', method, `${path}?${search}`, headers, body, signal);
  return jsonAnswer<T>(response);
}

/** The canonical file's UUID (data-info GET /data/uuid). */
export async function uuidOf(call: DataInfoCall, path: string): Promise<string> {
  const { id } = await dataInfoJson<{ id: string }>(call, 'GET', '/data/uuid', { path });
  return id;
}

/**
 * RFC 6266 `Content-Disposition`: an ASCII `filename` for old clients and the exact name as
 * RFC 5987 `filename*` (attr-char leaves out `'()*`, which encodeURIComponent keeps).
 */
export function contentDisposition(kind: 'attachment' | 'inline', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * Codes that keep their own status on the file I/O routes: authentication, rate limits, body
 * limits, ranges and an unavailable backend are not file I/O errors, and clients act on their
 * statuses (sign-in prompt, back-off, maintenance). Everything else gets the spec's 500.
 */
const ownStatus = new Set([
  'ERR_NOT_AUTHORIZED',
  'ERR_FORBIDDEN',
  'ERR_TOO_MANY_REQUESTS',
  'ERR_REQUEST_BODY_TOO_LARGE',
  'ERR_RANGE_NOT_SATISFIABLE',
  'ERR_UNAVAILABLE',
  'ERR_BAD_GATEWAY',
  'ERR_NOT_IMPLEMENTED',
  'ERR_CLIENT_CLOSED_REQUEST',
]);

/** Spec Errors item 2: every file I/O error code is answered with 500 and `{error_code, ...context}`. */
export function fileioError(error: GatewayError): GatewayError {
  if (ownStatus.has(error.errorCode) || error.statusCode === 500) return error;
  if (error.errorCode === 'ERR_UNSUPPORTED_MEDIA_TYPE') return new GatewayError(500, 'ERR_INVALID_JSON', 'The body must be JSON (application/json).');
  return new GatewayError(500, error.errorCode, error.reason, error.extra, error.headers);
}

/** The encapsulated error handler of the file I/O routes. */
export function registerFileioErrors(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply) => {
    const original = toGatewayError(error);
    if (original.statusCode >= 500 && !(error instanceof GatewayError)) request.log.error({ err: error }, 'file I/O request failed');
    if (reply.sent || reply.raw.headersSent) {
      reply.raw.destroy();
      return reply;
    }
    // save and save-as: a body over the limit can only be content over the maximum edit size.
    const url = request.routeOptions.url ?? '';
    if (original.errorCode === 'ERR_REQUEST_BODY_TOO_LARGE' && /\/fileio\/save(as)?$/.test(url)) {
      return sendError(reply, new GatewayError(500, 'ERR_FILE_SIZE_TOO_LARGE', 'The content is larger than the maximum edit size'));
    }
    return sendError(reply, fileioError(original));
  });
}

/**
 * GET routes may still carry a body: the web UI's proxy sends `{}` with every call. A JSON body
 * is read (small ones only) so that a malformed one is the spec's ERR_INVALID_JSON, not ignored.
 */
export async function optionalJsonBody(request: FastifyRequest, maxBytes = 64 * 1024): Promise<Record<string, unknown> | undefined> {
  const type = request.headers['content-type'] ?? '';
  const length = request.headers['content-length'];
  const hasBody = request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  if (!hasBody) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new GatewayError(413, 'ERR_REQUEST_BODY_TOO_LARGE', `Request body is larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  if (!/\bjson\b/i.test(type)) return undefined;
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new GatewayError(400, 'ERR_INVALID_JSON', `Malformed JSON body: ${(error as Error).message}`);
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

// Tag fileio: what the file I/O routes share: the file result, the spec's 500 error bodies, and
// GET bodies that must still be read.
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ErrorAnswer, sendError, toGatewayError } from '../../common/error-replies.ts';
import { requestBody } from '../../http/connection-limits.ts';
import { bodyTooLarge, hasBody, parseJsonText } from '../../common/request-body.ts';
import { GatewayError, relayedError, errorAs } from '../../common/errors.ts';

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

export const FileioErrorSchema = Type.Object(ErrorAnswer.properties, {
  additionalProperties: true,
  description: 'File I/O error: `error_code` plus context fields (`path`, `url`, `msg`, …)',
});

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
  'ERR_REQUEST_TIMEOUT',
  'ERR_RANGE_NOT_SATISFIABLE',
  'ERR_UNAVAILABLE',
  'ERR_BAD_GATEWAY',
  'ERR_NOT_IMPLEMENTED',
  'ERR_CLIENT_CLOSED_REQUEST',
]);

/** Spec Errors item 2: every file I/O error code is answered with 500 and `{error_code, ...context}`. */
export function fileioError(error: GatewayError): GatewayError {
  if (ownStatus.has(error.errorCode) || error.statusCode === 500) return error;
  if (error.errorCode === 'ERR_UNSUPPORTED_MEDIA_TYPE')
    return errorAs('ERR_INVALID_JSON', 'fileio', 'The body must be JSON (application/json).');
  // Whatever the code (the data store's, another service's), file I/O answers it 500.
  return relayedError(500, error.errorCode, error.reason, error.extra, error.headers);
}

/** The encapsulated error handler of the file I/O routes. */
export function registerFileioErrors(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply) => {
    const original = toGatewayError(error);
    if (original.statusCode >= 500 && !(error instanceof GatewayError))
      request.log.error({ err: error }, 'file I/O request failed');
    if (reply.sent || reply.raw.headersSent) {
      reply.raw.destroy();
      return reply;
    }
    // save and save-as: a body over the limit can only be content over the maximum edit size.
    const url = request.routeOptions.url ?? '';
    if (original.errorCode === 'ERR_REQUEST_BODY_TOO_LARGE' && /\/fileio\/save(as)?$/.test(url)) {
      return sendError(
        reply,
        errorAs(
          'ERR_FILE_SIZE_TOO_LARGE',
          'fileio',
          'The content is larger than the maximum edit size',
        ),
      );
    }
    return sendError(reply, fileioError(original));
  });
}

/**
 * GET routes may still carry a body: the web UI's proxy sends `{}` with every call. A JSON body
 * is read (small ones only) so that a malformed one is the spec's ERR_INVALID_JSON, not ignored.
 */
export async function optionalJsonBody(
  request: FastifyRequest,
  maxBytes = 64 * 1024,
): Promise<Record<string, unknown> | undefined> {
  const type = request.headers['content-type'] ?? '';
  if (!hasBody(request)) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of requestBody(request) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw bodyTooLarge(maxBytes);
    chunks.push(chunk);
  }
  if (!/\bjson\b/i.test(type)) return undefined;
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return undefined;
  const value = parseJsonText(text);
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

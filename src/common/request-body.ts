// Request-body checks shared by the forwarder, the routes and the embedded backends that read or pass on bodies themselves.
import { Transform } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { type GatewayError, gatewayError } from './errors.ts';
import { assertJsonDepth, jsonDepthCeiling } from './json-depth.ts';

/** Whether a request announces a body: chunked, or a length other than 0. */
export function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (
    request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
  );
}

/**
 * Passes bytes through and fails with `tooLarge()` once more than `max` have passed: a declared
 * length can be absent (chunked) or wrong, so streamed bodies are counted.
 */
export function byteLimit(max: number, tooLarge: () => Error): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > max) callback(tooLarge());
      else callback(null, chunk);
    },
  });
}

/** The 413 of a request body over `limit` bytes. */
export function bodyTooLarge(limit: number): GatewayError {
  return gatewayError('ERR_REQUEST_BODY_TOO_LARGE', `Request body is larger than ${limit} bytes`);
}

/** A request body read as text, parsed as JSON: malformed or too deeply nested text is 400 ERR_INVALID_JSON. */
export function parseJsonText(text: string, maxDepth = jsonDepthCeiling): unknown {
  assertJsonDepth(text, maxDepth);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw gatewayError('ERR_INVALID_JSON', `Malformed JSON body: ${(error as Error).message}`);
  }
}

/** A JSON object: not null, not a list. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

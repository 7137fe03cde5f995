// Request-body checks shared by the forwarder and the routes that read or pass on bodies themselves.
import { Transform } from 'node:stream';
import type { FastifyRequest } from 'fastify';

/** Whether a request announces a body: chunked, or a length other than 0. */
export function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
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

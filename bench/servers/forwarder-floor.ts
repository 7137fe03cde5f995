// The bare forwarder (forwarder.ts) plus the gateway's per-request work written as cheaply as it
// can be (per-request-work.ts), and the passthrough's own: the caller named from its bearer token
// (a cache keyed by the token, as the gateway's verifier keeps; read once per token here, not
// verified, which the steady state never does again either), the rate limit taken per user, the
// user sent to the backend as the identity parameter, the request id passed on. The floor for a
// Node forwarder that does the gateway passthrough's work.
import { createServer } from 'node:http';
import { Pool } from 'undici';
import { keepTickShape } from '../../src/tick-shape.ts';
import { PerRequestWork } from './per-request-work.ts';
import { relay } from './relay.ts';

// Like the gateway, kept from slowing down after idling while other rows run (src/tick-shape.ts).
keepTickShape();

const work = new PerRequestWork();
const users = new Map<string, string>();

/** The `sub`-like user of a bearer token, from the cache after its first sight. */
function userOf(authorization: string | undefined): string | undefined {
  if (authorization === undefined || !authorization.startsWith('Bearer ')) return undefined;
  const token = authorization.slice(7);
  let user = users.get(token);
  if (user === undefined) {
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString());
    user = String(claims.preferred_username ?? claims.sub);
    users.set(token, user);
  }
  return user;
}

const backend = new Pool(String(process.env.BACKEND_URL), { connections: 64 });
createServer((request, response) => {
  const receivedAt = performance.now();
  const requestId = work.requestId();
  const user = userOf(request.headers.authorization);
  if (user === undefined) {
    response
      .writeHead(401, { 'content-type': 'application/json' })
      .end('{"error_code":"ERR_NOT_AUTHORIZED"}');
    return;
  }
  const [limit, remaining, reset] = work.take(user);
  const url = request.url ?? '/';
  relay(
    backend,
    request,
    response,
    url + (url.includes('?') ? '&' : '?') + 'user=' + encodeURIComponent(user),
    {
      requestHeaders: { 'x-request-id': requestId },
      answerHeaders: {
        'x-request-id': requestId,
        'ratelimit-limit': limit,
        'ratelimit-remaining': remaining,
        'ratelimit-reset': reset,
      },
    },
  );
  response.on('finish', () =>
    work.finish(
      requestId,
      request.method ?? 'GET',
      '/apps/{system-id}/{app-id}',
      url,
      response.statusCode,
      performance.now() - receivedAt,
      user,
    ),
  );
}).listen(Number(process.env.PORT), '127.0.0.1');

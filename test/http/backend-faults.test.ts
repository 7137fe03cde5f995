// A remote backend failing every way an operator meets, and coming back, under one gateway: the
// notification agent (NOTIFICATION_AGENT_URL) is the test's own server behind a TCP proxy of the
// test's own. Killed (connections refused), hung (connections accepted, never a byte back),
// answering garbage (bytes that are not HTTP, or a 200 that is not JSON where the gateway reads it)
// and closing mid-body: a passthrough route and an aggregating one answer 502, 503 or 504 with
// ERR_UNAVAILABLE (or ERR_BAD_GATEWAY) naming the backend, each within about the backend's timeout,
// and the same gateway serves again as soon as the backend does, without a restart.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { startBackend, type TestBackend } from '../support/backend.ts';
import { noRateLimits, startGateway, type RunningGateway } from '../support/gateway.ts';
import { tally, testFile, type Tally } from '../support/reliability.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import {
  bearer,
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
  type JwksServer,
} from '../support/tokens.ts';

/** The backend's timeout (NOTIFICATION_AGENT_TIMEOUT_MS): small, so a hang costs a fraction of a second. */
const timeoutMs = 300;
/** What an answer may take beyond that on a loaded test machine (undici checks timeouts on a coarse tick). */
const slackMs = 1_500;

/** A route the gateway relays unread (passthrough), and one whose answer it reads and adds to. */
const routes = {
  passthrough: '/secured/notifications/system/messages',
  aggregating: '/secured/notifications/messages',
} as const;

let jwks: JwksServer;
let backend: TestBackend;
let proxy: TcpProxy;
let running: RunningGateway;
let token: string;

/** How the healthy agent answers the two calls the routes make. */
function healthy(request: { path: string }, response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify(
      request.path === '/system/messages'
        ? { 'system-messages': [] }
        : { messages: [], total: 0, unseen_total: 0 },
    ),
  );
}

before(async () => {
  const key = await createSigningKey('ES256', 'backend-faults');
  jwks = await startJwksServer([key]);
  token = await signToken(key, userClaims('fay'));
  backend = await startBackend(healthy);
  proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(backend.url).port) });
  running = await startGateway({
    ...noRateLimits,
    AUTH_JWKS_URL: jwks.url,
    NOTIFICATION_AGENT_URL: `http://${proxy.host}:${proxy.port}`,
    NOTIFICATION_AGENT_TIMEOUT_MS: String(timeoutMs),
  });
});

after(async () => {
  await running?.close();
  await proxy?.close();
  await backend?.close();
  await jwks?.close();
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
  text: string;
  ms: number;
}

async function call(route: string): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${running.url}${route}`, {
    headers: bearer(token),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Not JSON: the assertions on `text` say so.
  }
  return { status: response.status, body, text, ms: performance.now() - started };
}

/**
 * Both routes answer `status` with `code`, naming the agent, within the timeout and its slack (and
 * no sooner than `atLeastMs` when given); each answer counted in `cases` once it has passed.
 */
async function bothFail(
  status: number,
  code: string,
  what: string,
  cases: Tally,
  atLeastMs?: number,
): Promise<number[]> {
  const times: number[] = [];
  for (const [kind, route] of Object.entries(routes)) {
    cases.tried += 1;
    const answer = await call(route);
    const label = `${what}, ${kind} route: ${answer.status} ${answer.text}`;
    assert.equal(answer.status, status, label);
    assert.equal(answer.body.error_code, code, label);
    assert.equal(answer.body.backend, 'notification-agent', label);
    assert.equal(typeof answer.body.reason, 'string', label);
    assert.doesNotMatch(answer.text, /\n\s+at /, `${label}: no stack trace`);
    assert.ok(answer.ms < timeoutMs + slackMs, `${label}: took ${Math.round(answer.ms)} ms`);
    const ms = Math.round(answer.ms);
    if (atLeastMs !== undefined)
      assert.ok(ms >= atLeastMs, `answered before the timeout: ${ms} ms`);
    cases.held += 1;
    times.push(ms);
  }
  return times;
}

/** Both routes answer 200 again: the same gateway, no restart. Counted in `cases` after a fault. */
async function bothServe(what: string, cases?: Tally): Promise<void> {
  for (const [kind, route] of Object.entries(routes)) {
    if (cases) cases.tried += 1;
    const answer = await call(route);
    assert.equal(answer.status, 200, `${what}, ${kind} route: ${answer.text}`);
    if (cases) cases.held += 1;
  }
}

/** The report's row of a test (docs/reliability.md): the requests sent during the fault and after it. */
const faultCases = (t: { after(fn: () => void): void }, fault: string, answer: string) =>
  tally(t, {
    area: 'faults',
    what: `a remote backend (the notification agent) ${fault}: ${answer}; the same gateway serves again (200) once it is back`,
    file: testFile(import.meta.url),
  });

test('killed (connections refused): 503 at once; served again once it is back', async (t) => {
  const cases = faultCases(
    t,
    'refusing connections',
    'a passthrough and an aggregating route answer 503 ERR_UNAVAILABLE naming it, at once',
  );
  await bothServe('before');
  await proxy.refuse();
  const times = await bothFail(503, 'ERR_UNAVAILABLE', 'refused', cases);
  await proxy.restore();
  await bothServe('after the restart', cases);
  t.diagnostic(`refused: answered in ${times.join(' and ')} ms`);
});

test('hung (connections accepted, no answer): 504 within about the timeout; served again after', async (t) => {
  const cases = faultCases(
    t,
    'accepting connections and never answering',
    `a passthrough and an aggregating route answer 504 ERR_UNAVAILABLE naming it after its timeout (${timeoutMs} ms), not before`,
  );
  proxy.blackhole();
  const times = await bothFail(504, 'ERR_UNAVAILABLE', 'blackholed', cases, timeoutMs * 0.9);
  await proxy.restore();
  await bothServe('after the hang', cases);
  t.diagnostic(`blackholed: answered in ${times.join(' and ')} ms (timeout ${timeoutMs} ms)`);
});

test('answering bytes that are not HTTP: 502', async (t) => {
  const cases = faultCases(
    t,
    'answering bytes that are not HTTP',
    'a passthrough and an aggregating route answer 502 ERR_UNAVAILABLE naming it',
  );
  backend.handle((_request, response) => {
    response.socket?.end('SSH-2.0-OpenSSH_9.6\r\n\r\n');
  });
  await bothFail(502, 'ERR_UNAVAILABLE', 'garbage', cases);
  backend.handle(healthy);
  await bothServe('after the garbage', cases);
});

test('answering a 200 that is not JSON: the aggregating route 502 ERR_BAD_GATEWAY, the passthrough relays it', async (t) => {
  const cases = faultCases(
    t,
    'answering a 200 that is not JSON',
    'the aggregating route answers 502 ERR_BAD_GATEWAY, the passthrough relays the page as it came',
  );
  backend.handle((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<html><body>502 Bad Gateway (nginx)</body></html>');
  });
  cases.tried += 1;
  const read = await call(routes.aggregating);
  assert.equal(read.status, 502, read.text);
  assert.equal(read.body.error_code, 'ERR_BAD_GATEWAY');
  assert.equal(read.body.backend, 'notification-agent');
  cases.held += 1;
  // A passthrough relays the backend's answer unread, as it came (docs/architecture.md).
  cases.tried += 1;
  const relayed = await call(routes.passthrough);
  assert.equal(relayed.status, 200);
  assert.match(relayed.text, /^<html>/);
  cases.held += 1;
  backend.handle(healthy);
  await bothServe('after the HTML', cases);
});

test('closing the connection mid-body: 502; served again after', async (t) => {
  const cases = faultCases(
    t,
    'closing the connection mid-body',
    'a passthrough and an aggregating route answer 502 ERR_UNAVAILABLE naming it',
  );
  backend.handle((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
    response.write('{"messages":[');
    setImmediate(() => response.socket?.destroy());
  });
  await bothFail(502, 'ERR_UNAVAILABLE', 'cut mid-body', cases);
  backend.handle(healthy);
  await bothServe('after the cut', cases);
});

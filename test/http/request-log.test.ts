// The request log: one line per request with method, route, URL, status, duration, user and request
// id, joined by the gateway itself into the line pino would write for those fields; 5xx errors keep
// their own error line; credentials — a `?token=` query parameter, the Authorization and
// X-Vendor-De-Jwt headers, cookies — never reach the log. Written to standard
// output (the default destination), every line arrives whole and in order, those still waiting at
// exit included; a cluster worker's writes, which share one pipe with the other workers', each hold
// whole lines and at most PIPE_BUF (4 KiB) unless one line is longer, so that no write is split.
// Each request's logger, made directly rather than through pino's options path, writes the lines
// pino's own child would.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { pino, symbols } from 'pino';
import { buildGateway } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import {
  gatewayLoggerOptions,
  logAbortedRequest,
  loggerSettings,
  logRequest,
  redactUrl,
  registerRequestLog,
} from '../../src/http/request-log.ts';
import { startBackend } from '../support/backend.ts';
import { startSecuredFixture, type SecuredFixture } from '../support/fixture.ts';
import { noRateLimits, startGateway } from '../support/gateway.ts';
import {
  bearer,
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
} from '../support/tokens.ts';

const appPath = '/apps/de/00000000-0000-0000-0000-000000000003';

describe('one request, one log line', () => {
  let fixture: SecuredFixture;
  let token: string;
  const logLines: Array<Record<string, unknown>> = [];
  const linesOf = (requestId: string) => logLines.filter((line) => line.reqId === requestId);

  before(async () => {
    fixture = await startSecuredFixture((url) => ({ APPS_URL: url, LOG_LEVEL: 'info' }), {
      gateway: { logStream: { write: (line: string) => void logLines.push(JSON.parse(line)) } },
    });
    token = await fixture.tokenFor('logan');
  });
  after(() => fixture.close());

  test('a forwarded request: one line with method, route, url, status, duration and user', async () => {
    const response = await fetch(`${fixture.running.url}${appPath}?x=1`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'one-line-1' },
    });
    assert.equal(response.status, 200);
    await response.arrayBuffer();
    const lines = linesOf('one-line-1');
    assert.equal(lines.length, 1, JSON.stringify(lines));
    const [line] = lines as [Record<string, unknown>];
    assert.equal(line.msg, 'request completed');
    assert.equal(line.method, 'GET');
    assert.equal(line.route, '/apps/:systemId/:appId');
    assert.equal(line.url, `${appPath}?x=1`);
    assert.equal(line.status, 200);
    assert.equal(line.user, 'logan');
    assert.equal(typeof line.durationMs, 'number');
    assert.ok((line.durationMs as number) >= 0);
  });

  test('refused and unmatched requests get their one line too, without a user', async () => {
    await fetch(`${fixture.running.url}${appPath}`, {
      headers: { 'x-request-id': 'one-line-401' },
    });
    await fetch(`${fixture.running.url}/no/such/path`, {
      method: 'POST',
      headers: { 'x-request-id': 'one-line-404' },
    });
    const [refused] = linesOf('one-line-401');
    assert.equal(linesOf('one-line-401').length, 1);
    assert.equal(refused!.status, 401);
    assert.equal(refused!.user, undefined);
    const [unmatched] = linesOf('one-line-404');
    assert.equal(linesOf('one-line-404').length, 1);
    assert.deepEqual(
      [unmatched!.method, unmatched!.route, unmatched!.status],
      ['POST', 'unmatched', 404],
    );
  });

  test('no credential appears in any line: query token, Authorization, X-Vendor-De-Jwt, cookies', async () => {
    const secrets = { query: 'query-secret-4f1b', cookie: 'cookie-secret-9a2c' };
    await fetch(`${fixture.running.url}${appPath}?token=${secrets.query}&keep=yes`, {
      headers: {
        authorization: `Bearer ${token}`,
        cookie: `session=${secrets.cookie}`,
        'x-request-id': 'redact-1',
      },
    });
    await fetch(`${fixture.running.url}${appPath}?access_token=${secrets.query}`, {
      headers: { 'x-vendor-de-jwt': token, 'x-request-id': 'redact-2' },
    });
    // A bad token is logged nowhere either, though it fails verification.
    await fetch(`${fixture.running.url}${appPath}`, {
      headers: { authorization: 'Bearer bad.token.value-7d3e', 'x-request-id': 'redact-3' },
    });
    const all = JSON.stringify(logLines);
    for (const secret of [secrets.query, secrets.cookie, token, 'value-7d3e'])
      assert.ok(!all.includes(secret), `"${secret.slice(0, 12)}…" was logged`);
    assert.equal(linesOf('redact-1')[0]!.url, `${appPath}?token=[redacted]&keep=yes`);
    assert.equal(linesOf('redact-2')[0]!.url, `${appPath}?access_token=[redacted]`);
  });

  test('the logger itself redacts credential headers and URLs that anything logs', async () => {
    const log = fixture.running.gateway.app.log;
    log.info(
      {
        req: { method: 'GET', url: '/x?token=logger-secret-1' },
        headers: {
          authorization: 'Bearer logger-secret-2',
          'x-vendor-de-jwt': 'logger-secret-3',
          cookie: 'logger-secret-4',
        },
      },
      'probe',
    );
    const probe = logLines.findLast((line) => line.msg === 'probe');
    assert.ok(probe);
    assert.doesNotMatch(JSON.stringify(probe), /logger-secret/);
  });
});

describe('a client that leaves before its answer', () => {
  test('is logged once, with status 499 and aborted: true', async () => {
    let reachedBackend: () => void = () => {};
    const backendReached = new Promise<void>((resolve) => (reachedBackend = resolve));
    let backendCallClosed: () => void = () => {};
    const backendCallEnded = new Promise<void>((resolve) => (backendCallClosed = resolve));
    const slow = await startBackend((_request, response) => {
      // Never answers: the gateway drops this call when its client leaves.
      response.on('close', () => backendCallClosed());
      reachedBackend();
    });
    const key = await createSigningKey('ES256', 'abort-key');
    const jwks = await startJwksServer([key]);
    const logLines: Array<Record<string, unknown>> = [];
    const running = await startGateway(
      { ...noRateLimits, APPS_URL: slow.url, AUTH_JWKS_URL: jwks.url, LOG_LEVEL: 'info' },
      { logStream: { write: (text: string) => void logLines.push(JSON.parse(text)) } },
    );
    try {
      const client = new AbortController();
      const request = fetch(`${running.url}${appPath}`, {
        headers: {
          ...bearer(await signToken(key, userClaims('leaver'))),
          'x-request-id': 'left-early',
        },
        signal: client.signal,
      });
      await backendReached;
      client.abort();
      await assert.rejects(request);
      // The gateway cancels its backend call after it has seen its client go: the line is written by then.
      await backendCallEnded;
      const lines = logLines.filter(
        (item) => item.reqId === 'left-early' && item.msg === 'request completed',
      );
      assert.equal(
        lines.length,
        1,
        JSON.stringify(logLines.filter((item) => item.reqId === 'left-early')),
      );
      assert.equal(lines[0]!.status, 499);
      assert.equal(lines[0]!.aborted, true);
      assert.equal(lines[0]!.user, 'leaver');
      assert.equal(lines[0]!.route, '/apps/:systemId/:appId');
    } finally {
      await running.close();
      await Promise.all([slow.close(), jwks.close()]);
    }
  });
});

describe('a 5xx', () => {
  test('keeps its error line, with the error, beside its one request line', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'request-log-'));
    const logLines: Array<Record<string, unknown>> = [];
    const gateway = await buildGateway(
      loadConfig({ LOG_LEVEL: 'info', GATEWAY_DATA_DIR: dataDir, EMBEDDED_BACKENDS: 'none' }),
      {
        logStream: { write: (line: string) => void logLines.push(JSON.parse(line)) },
      },
    );
    gateway.app.get('/test-failure', { config: { auth: 'none' } }, async () => {
      throw new Error('deliberate failure');
    });
    try {
      const response = await gateway.app.inject({
        url: '/test-failure',
        headers: { 'x-request-id': 'one-line-500' },
      });
      assert.equal(response.statusCode, 500);
      assert.deepEqual(response.json(), {
        error_code: 'ERR_UNCHECKED_EXCEPTION',
        reason: 'Internal error',
      });
      const lines = logLines.filter((line) => line.reqId === 'one-line-500');
      assert.deepEqual(
        lines.map((line) => [line.level, line.msg]),
        [
          [50, 'request failed'],
          [30, 'request completed'],
        ],
      );
      assert.match(JSON.stringify(lines[0]), /deliberate failure/);
      assert.equal(lines[1]!.status, 500);
    } finally {
      await gateway.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the request line, joined by hand', () => {
  test('is the line pino writes for the same fields, but for the time', () => {
    const written: string[] = [];
    const logger = pino(loggerSettings('info'), {
      write: (line: string) => void written.push(line),
    });
    const cases = [
      { method: 'GET', route: '/apps/:systemId/:appId', url: '/apps/de/1?x=1', status: 200, ms: 0 },
      {
        method: 'POST',
        route: 'unmatched',
        url: '/a?token=secret&q="quoted"\\',
        status: 404,
        ms: 1.25,
      },
      {
        method: 'DELETE',
        route: '/a/"odd"',
        url: '/é/\u2028/%00',
        status: 499,
        ms: 1234.56,
        aborted: true,
      },
      { method: 'PUT', route: '/x', url: '/x', status: 201, ms: 0.04, user: 'ann "the" \\ ünï\n' },
      { method: 'PATCH', route: '/x', url: '/x', status: 500, ms: 99.95, user: 'bob' },
      { method: 'GET', route: '/x', url: '/x', status: 204, ms: 1e7 + 0.06, user: '' },
    ];
    for (const [index, item] of cases.entries()) {
      const log = logger.child({ reqId: `req-${index}` });
      const request = {
        log,
        method: item.method,
        url: item.url,
        is404: item.route === 'unmatched',
        matchedRouteConfig: { url: item.route },
        receivedAt: performance.now() - item.ms,
        identity: item.user === undefined ? undefined : { username: item.user },
        requestLogged: false,
      } as unknown as FastifyRequest;
      if (item.aborted) logAbortedRequest(request);
      else logRequest(request, { statusCode: item.status, elapsedTime: item.ms } as FastifyReply);
      // An aborted request's duration is measured when its client leaves: the line's own is used.
      const durationMs = item.aborted
        ? (JSON.parse(written[0]!) as { durationMs: number }).durationMs
        : Math.round(item.ms * 10) / 10;
      log.info(
        {
          method: item.method,
          route: item.route,
          url: redactUrl(item.url),
          status: item.status,
          aborted: item.aborted,
          durationMs,
          user: item.user,
        },
        'request completed',
      );
      const [byHand, byPino] = written
        .splice(0)
        .map((line) => line.replace(/"time":\d+/, '"time":0'));
      assert.equal(byHand, byPino, `case ${index}`);
      JSON.parse(byHand!);
    }
  });
});

describe("each request's logger, made without pino's options path", () => {
  test("writes the lines pino's own child writes, for the request and for children of it", async () => {
    const written: string[] = [];
    const app = Fastify({
      ...gatewayLoggerOptions('info', { write: (line: string) => void written.push(line) }),
      genReqId: () => 'req-"1"',
    });
    registerRequestLog(app);
    const requestLoggers: object[] = [];
    app.get('/x', async (request) => {
      requestLoggers.push(request.log);
      request.log.info({ a: 1, headers: { authorization: 'Bearer secret' } }, 'hello');
      request.log.child({ part: 'inner' }).warn('from a child');
      request.log.debug('below the level');
      return 'ok';
    });
    await app.inject({ method: 'GET', url: '/x' });
    const byGateway = written.filter((line) => !line.includes('"request completed"'));
    await app.inject({ method: 'GET', url: '/x' });
    // Made directly, the request loggers share the children's formatters; pino's options path
    // would have built each its own.
    const [first, second] = requestLoggers as Array<Record<symbol, unknown>>;
    assert.equal(first![symbols.formattersSym], second![symbols.formattersSym]);

    const expected: string[] = [];
    const server = pino(loggerSettings('info'), {
      write: (line: string) => void expected.push(line),
    });
    const log = server.child({ reqId: 'req-"1"' }, {});
    log.info({ a: 1, headers: { authorization: 'Bearer secret' } }, 'hello');
    log.child({ part: 'inner' }).warn('from a child');
    log.debug('below the level');

    const timeless = (line: string) => line.replace(/"time":\d+/, '"time":0');
    assert.deepEqual(byGateway.slice(0, 2).map(timeless), expected.map(timeless));
    assert.equal(expected.length, 2);
  });

  test("other children are pino's: other bindings, options, a child's child", () => {
    const written: string[] = [];
    const app = Fastify(
      gatewayLoggerOptions('info', { write: (line: string) => void written.push(line) }),
    );
    registerRequestLog(app);
    app.log.child({ reqId: 'r', component: 'c' }).info('two bindings');
    app.log.child({ reqId: 'r' }, { level: 'warn' }).info('filtered by the child level');
    app.log.child({ component: 'c' }).child({ reqId: 'r' }).info('grandchild');
    const lines = written.map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      lines.map(({ reqId, component, msg }) => ({ reqId, component, msg })),
      [
        { reqId: 'r', component: 'c', msg: 'two bindings' },
        { reqId: 'r', component: 'c', msg: 'grandchild' },
      ],
    );
  });
});

describe('redactUrl', () => {
  test('replaces credential parameters, keeps the rest and the path byte for byte', () => {
    assert.equal(redactUrl('/a/b'), '/a/b');
    assert.equal(
      redactUrl('/a?Token=x&b=%20y&code=z&id_token=t&tokens=keep'),
      '/a?Token=[redacted]&b=%20y&code=[redacted]&id_token=[redacted]&tokens=keep',
    );
    assert.equal(
      redactUrl('/a?%74oken=x'),
      '/a?%74oken=[redacted]',
      'an encoded name is still recognised',
    );
    assert.equal(redactUrl('/a?token'), '/a?token', 'no value, nothing to hide');
    assert.equal(redactUrl('/a?%E0%A4%A=1'), '/a?%E0%A4%A=1', 'a malformed name is left as is');
  });
});

describe('standard output, the default destination', () => {
  test('every line arrives whole and in order, those waiting at exit included', () => {
    const module = fileURLToPath(new URL('../../src/http/request-log.ts', import.meta.url));
    // A child logs 5,000 lines in bursts, some of several kilobytes, and exits at once: lines
    // logged while a write is in flight wait, and pino must flush them on the way out.
    const script = `
      import Fastify from 'fastify';
      const { gatewayLoggerOptions } = await import(${JSON.stringify(module)});
      const app = Fastify(gatewayLoggerOptions('info'));
      await app.ready();
      for (let i = 0; i < 5000; i++) app.log.info({ i, pad: 'é'.repeat(i % 7 === 0 ? 3000 : 10) }, 'line');
      process.exit(0);
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, NODE_OPTIONS: '' },
    }).toString();
    const lines = out
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { i: number; pad: string });
    assert.equal(lines.length, 5000);
    lines.forEach((line, index) => {
      assert.equal(line.i, index);
      assert.equal(line.pad, 'é'.repeat(index % 7 === 0 ? 3000 : 10));
    });
  });
  test('a worker writes whole lines, at most 4 KiB a write unless one line is longer', () => {
    const module = fileURLToPath(new URL('../../src/http/request-log.ts', import.meta.url));
    const scratch = mkdtempSync(path.join(tmpdir(), 'worker-writes-'));
    const report = path.join(scratch, 'writes.json');
    // The child records what each write to its standard output wrote (fs.write and fs.writeSync,
    // which sonic-boom calls through the fs module; a failed or repeated attempt is not a write),
    // byte for byte, and reports it in a file at exit, after pino has written what still waits.
    const script = `
      import fs from 'node:fs';
      import Fastify from 'fastify';
      const writes = [];
      const wrote = (data, n) => writes.push(data.subarray(0, n).toString('latin1'));
      const write = fs.write;
      fs.write = function (fd, data, ...rest) {
        if (fd !== 1 || !Buffer.isBuffer(data)) return write.call(this, fd, data, ...rest);
        // Kept from the call (an exit may come before the answer), corrected by the answer.
        const entry = writes.push(data.toString('latin1')) - 1;
        const done = rest.pop();
        return write.call(this, fd, data, ...rest, (error, n, ...more) => {
          writes[entry] = error ? null : data.subarray(0, n).toString('latin1');
          done(error, n, ...more);
        });
      };
      const writeSync = fs.writeSync;
      fs.writeSync = function (fd, data, ...rest) {
        const n = writeSync.call(this, fd, data, ...rest);
        if (fd === 1 && Buffer.isBuffer(data)) wrote(data, n);
        return n;
      };
      const { gatewayLoggerOptions } = await import(${JSON.stringify(module)});
      const app = Fastify(gatewayLoggerOptions('info', undefined, 1));
      await app.ready();
      process.on('exit', () => fs.writeFileSync(${JSON.stringify(report)}, JSON.stringify(writes)));
      const log = (i) => app.log.info({ i, pad: 'é'.repeat(i % 7 === 0 ? 3000 : 10) }, 'line');
      for (let i = 0; i < 3000; i++) log(i);
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (let i = 3000; i < 5000; i++) log(i);
      process.exit(0);
    `;
    // Standard output is a file here, not the pipe a worker shares: what is under test is how the
    // worker cuts its writes, and a pipe this test reads too slowly (a loaded machine) answers
    // EAGAIN, whose retry an exit can overtake (sonic-boom's exit flush skips the write in retry).
    const stdout = openSync(path.join(scratch, 'stdout'), 'w');
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', stdout, 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    closeSync(stdout);
    assert.equal(child.status, 0, child.stderr.toString().slice(0, 2000));
    const writes = (JSON.parse(readFileSync(report, 'utf8')) as (string | null)[]).filter(
      (write): write is string => write !== null,
    );
    rmSync(scratch, { recursive: true, force: true });
    const lines = writes
      .join('')
      .split('\n')
      .filter((line) => line.includes('"msg":"line"'));
    assert.equal(lines.length, 5000, 'every line written, once');
    assert.ok(writes.length > 1);
    for (const write of writes) {
      assert.ok(write.endsWith('\n'), 'a write ends with a whole line');
      const bytes = write.length; // latin1: one character a byte
      const held = write.split('\n').length - 1;
      assert.ok(bytes <= 4096 || held === 1, `a write of ${bytes} bytes holds ${held} lines`);
    }
  });
});

// Request ids, logs, metrics and health: X-Request-Id kept or generated and forwarded, the welcome
// and /uuid routes, /metrics by route and status, /livez and /readyz with the database and
// configured backends.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startBackend, type TestBackend } from '../support/backend.ts';
import { startSecuredFixture, type SecuredFixture } from '../support/fixture.ts';
import { requiredInCi, startGateway, type RunningGateway } from '../support/gateway.ts';
import { pgDatabaseUrl } from '../support/postgres.ts';

const appPath = '/apps/de/00000000-0000-0000-0000-000000000002';

describe('request ids, logs and metrics', () => {
  let fixture: SecuredFixture;
  let backend: TestBackend;
  let running: RunningGateway;
  let token: string;
  const logLines: Array<Record<string, unknown>> = [];

  before(async () => {
    fixture = await startSecuredFixture((url) => ({ APPS_URL: url, LOG_LEVEL: 'info' }), {
      alg: 'RS256',
      gateway: { logStream: { write: (line: string) => void logLines.push(JSON.parse(line)) } },
    });
    ({ backend, running } = fixture);
    token = await fixture.tokenFor('dave');
  });

  after(() => fixture.close());

  test('a plain X-Request-Id is kept, echoed, logged and forwarded', async () => {
    const response = await fetch(running.url + appPath, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'req-abc.1' },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-request-id'), 'req-abc.1');
    assert.equal(backend.requests.at(-1)!.headers['x-request-id'], 'req-abc.1');
    const lines = logLines.filter((line) => line.reqId === 'req-abc.1');
    assert.ok(
      lines.some((line) => line.msg === 'request completed'),
      'the completion log line carries the request id',
    );
  });

  test('a missing or unsafe X-Request-Id is replaced by a generated UUID', async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    const plain = await fetch(`${running.url}/uuid`);
    assert.match(plain.headers.get('x-request-id') ?? '', uuid);
    const unsafe = await fetch(`${running.url}/uuid`, {
      headers: { 'x-request-id': 'x'.repeat(500) },
    });
    assert.match(unsafe.headers.get('x-request-id') ?? '', uuid);
  });

  test('GET / is the plain-text welcome and GET /uuid one UUID', async () => {
    const welcome = await fetch(`${running.url}/`);
    assert.equal(welcome.status, 200);
    assert.match(welcome.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(await welcome.text(), /Welcome/);
    const uuid = await fetch(`${running.url}/uuid`);
    assert.match(uuid.headers.get('content-type') ?? '', /^text\/plain/);
    const [first, second] = [await uuid.text(), await (await fetch(`${running.url}/uuid`)).text()];
    assert.match(first, /^[0-9a-f-]{36}$/);
    assert.notEqual(first, second);
  });

  test('/metrics reports requests by route and status, latency, backend calls and auth failures', async () => {
    await fetch(running.url + appPath, { headers: { authorization: `Bearer ${token}` } });
    await fetch(running.url + appPath, { headers: { authorization: 'Bearer not.a.token' } });
    await fetch(`${running.url}/does-not-exist`);
    const response = await fetch(`${running.url}/metrics`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
    const text = await response.text();
    assert.match(
      text,
      /gateway_http_requests_total\{route="\/apps\/:systemId\/:appId",method="GET",status="200"\} [1-9]/,
    );
    assert.match(
      text,
      /gateway_http_requests_total\{route="\/apps\/:systemId\/:appId",method="GET",status="401"\} [1-9]/,
    );
    assert.match(
      text,
      /gateway_http_requests_total\{route="unmatched",method="GET",status="404"\} [1-9]/,
    );
    assert.match(
      text,
      /gateway_http_request_duration_seconds_bucket\{le="0.05",route="\/apps\/:systemId\/:appId",method="GET"\}/,
    );
    assert.match(
      text,
      /gateway_backend_request_duration_seconds_count\{backend="apps",status="200"\} [1-9]/,
    );
    assert.match(text, /gateway_auth_failures_total\{reason="(malformed|untrusted)"\} [1-9]/);
    assert.match(text, /gateway_rate_limit_rejections_total/);
    assert.match(text, /process_cpu_seconds_total/);
  });
});

describe('health', () => {
  test('livez is always ok; readyz checks the database and each configured backend', async () => {
    const backend = await startBackend();
    const up = await startGateway({ APPS_URL: backend.url });
    const down = await startGateway({ APPS_URL: 'http://127.0.0.1:1', METADATA_URL: backend.url });
    try {
      assert.deepEqual(await (await fetch(`${up.url}/livez`)).json(), { status: 'ok' });
      const ready = await fetch(`${up.url}/readyz`);
      assert.equal(ready.status, 200);
      assert.deepEqual(await ready.json(), {
        status: 'ready',
        checks: { database: 'ok', apps: 'ok' },
      });

      assert.equal((await fetch(`${down.url}/livez`)).status, 200);
      const notReady = await fetch(`${down.url}/readyz`);
      assert.equal(notReady.status, 503);
      const body = (await notReady.json()) as {
        error_code: string;
        reason: string;
        checks: Record<string, string>;
      };
      assert.equal(body.error_code, 'ERR_UNAVAILABLE');
      assert.match(body.reason, /apps/);
      assert.equal(body.checks.database, 'ok');
      assert.equal(body.checks.metadata, 'ok');
      assert.match(body.checks.apps ?? '', /^unavailable/);
    } finally {
      await Promise.all([up.close(), down.close()]);
      await backend.close();
    }
  });

  test('readyz reports a PostgreSQL database', async (t) => {
    const databaseUrl = requiredInCi('DATABASE_URL');
    if (!databaseUrl) return t.skip('DATABASE_URL is not set (CI sets it)');
    const { url, drop } = await pgDatabaseUrl(databaseUrl);
    const running = await startGateway({ DATABASE_URL: url });
    try {
      assert.equal(running.gateway.store.engine, 'postgres');
      const ready = await fetch(`${running.url}/readyz`);
      assert.equal(ready.status, 200);
      assert.deepEqual(((await ready.json()) as { checks: unknown }).checks, { database: 'ok' });
    } finally {
      await running.close();
      await drop();
    }
  });
});

// Errors Fastify raises before a route is chosen answer the gateway's JSON error `{error_code,
// reason}`, not Fastify's `{code: "FST_ERR_BAD_URL"}`: a bad percent-escape in a path parameter on
// every operation of the OpenAPI document, and an over-long path parameter (long ones, like
// ontology IRIs, still reach their routes). Each such answer also carries X-Request-Id and gets its
// one log line. The embedded backend host answers the same way.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_PATH_PARAMETER_LENGTH } from '../../src/common/error-replies.ts';
import { signEmbeddedToken } from '../../src/http/keys.ts';
import { hostEngines, type BackendHost } from '../support/backend-host.ts';
import { startGateway, type RunningGateway } from '../support/gateway.ts';

const badEscape = 'x%E0%A4%A';

interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
}

describe('framework errors at the gateway', () => {
  let running: RunningGateway;
  const logLines: Array<Record<string, unknown>> = [];
  before(async () => {
    running = await startGateway(
      { LOG_LEVEL: 'info' },
      { logStream: { write: (line) => void logLines.push(JSON.parse(line)) } },
    );
  });
  after(() => running.close());

  test('a bad percent-escape in the path parameters of every documented operation: 400 ERR_BAD_REQUEST as JSON', async () => {
    const document = (await (await fetch(`${running.url}/openapi.json`)).json()) as OpenApiDocument;
    const methods = new Set(['get', 'post', 'put', 'patch', 'delete']);
    const operations = Object.entries(document.paths)
      .filter(([path]) => path.includes('{'))
      .flatMap(([path, item]) =>
        Object.keys(item)
          .filter((method) => methods.has(method))
          .map((method) => ({ method: method.toUpperCase(), path })),
      );
    assert.ok(
      operations.length > 200,
      `expected the whole API, found ${operations.length} operations with path parameters`,
    );

    const wrong: string[] = [];
    for (const { method, path } of operations) {
      const url = running.url + path.replace(/\{[^}]+\}/g, badEscape);
      const response = await fetch(url, { method });
      const type = response.headers.get('content-type') ?? '';
      const body = type.includes('json')
        ? ((await response.json()) as Record<string, unknown>)
        : await response.text();
      const ok =
        response.status === 400 &&
        typeof body === 'object' &&
        body.error_code === 'ERR_BAD_REQUEST' &&
        typeof body.reason === 'string';
      if (!ok)
        wrong.push(`${method} ${path}: ${response.status} ${JSON.stringify(body).slice(0, 120)}`);
    }
    assert.deepEqual(
      wrong,
      [],
      `${wrong.length} of ${operations.length} operations answered otherwise`,
    );
  });

  test('the answer carries the request id and is logged once, without the query string credentials', async () => {
    const response = await fetch(`${running.url}/apps/${badEscape}/details?token=do-not-log-me`, {
      headers: { 'x-request-id': 'bad-escape-1' },
    });
    assert.equal(response.status, 400);
    assert.equal(response.headers.get('x-request-id'), 'bad-escape-1');
    assert.deepEqual(await response.json(), {
      error_code: 'ERR_BAD_REQUEST',
      reason: 'The URL path holds an invalid percent-encoding.',
    });
    const lines = logLines.filter((line) => line.reqId === 'bad-escape-1');
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.equal(lines[0]!.status, 400);
    assert.equal(lines[0]!.method, 'GET');
    assert.doesNotMatch(JSON.stringify(logLines), /do-not-log-me/);
  });

  test('a long path parameter (an ontology IRI) reaches its route; one over the router limit: 414 with an error_code', async () => {
    const iri = encodeURIComponent(`http://purl.example.org/ontology/${'class-'.repeat(60)}`);
    assert.ok(iri.length > 300);
    const token = await signEmbeddedToken(running.dataDir, { username: 'alice' });
    const long = await fetch(`${running.url}/apps/hierarchies/${iri}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    // Served by the apps service (no such hierarchy), not refused by the router.
    assert.notEqual(long.status, 414, await long.text());
    const response = await fetch(
      `${running.url}/apps/de/${'a'.repeat(MAX_PATH_PARAMETER_LENGTH + 1)}`,
    );
    assert.equal(response.status, 414);
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(body.error_code, 'ERR_BAD_REQUEST');
    assert.equal(typeof body.reason, 'string');
  });
});

describe('framework errors at the embedded backend host', () => {
  let host: BackendHost;
  before(async () => {
    host = (await hostEngines[0]!.open({ names: ['user-info'] }))!;
  });
  after(() => host.close());

  test('a bad percent-escape in a backend path parameter: 400 ERR_BAD_REQUEST as JSON', async () => {
    const answer = await host.request('GET', `/user-info/bags/${badEscape}`);
    assert.equal(answer.status, 400, answer.text);
    assert.equal(answer.json().error_code, 'ERR_BAD_REQUEST');
  });
});

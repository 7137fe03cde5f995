// JSON nesting depth: a JSON body nested deeper than JSON_MAX_DEPTH (default 64) is 400
// ERR_INVALID_JSON at the gateway, on the embedded backend host and through the text-keeping
// user-info service, never a stack overflow (500); nesting at exactly the limit is accepted, and
// brackets inside strings do not count.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import { loadConfig } from '../../src/config/index.ts';
import { registerErrorHandling } from '../../src/common/error-replies.ts';
import { jsonNestsDeeperThan } from '../../src/common/json-depth.ts';
import { registerJsonBodyParser } from '../../src/http/json-body.ts';
import { hostEngines } from '../support/backend-host.ts';
import { startSecuredFixture, type SecuredFixture } from '../support/fixture.ts';
import { bearer } from '../support/tokens.ts';

/** `depth` arrays inside one another: `[[[]]]` is depth 3. */
const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
/** An object whose value is nested `depth - 1` more levels: `{"a":{"a":{}}}` is depth 3. */
const nestedObjects = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
/** A body of 100,000 nested arrays, 200 KB. */
const hostile = nestedArrays(100_000);

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

describe('the depth scan', () => {
  test('counts arrays and objects, not brackets inside strings or escaped quotes', () => {
    assert.equal(jsonNestsDeeperThan(nestedArrays(64), 64), false);
    assert.equal(jsonNestsDeeperThan(nestedArrays(65), 64), true);
    assert.equal(jsonNestsDeeperThan(nestedObjects(65), 64), true);
    assert.equal(jsonNestsDeeperThan(JSON.stringify({ text: '['.repeat(1000) }), 64), false);
    // An escaped quote does not end the string, so the brackets after it are still text.
    assert.equal(jsonNestsDeeperThan(JSON.stringify(['a\\"' + '{'.repeat(100)]), 2), false);
    assert.equal(
      jsonNestsDeeperThan('"\\\\"' + nestedArrays(3), 2),
      true,
      'an escaped backslash does end at the quote',
    );
  });
});

describe('the shared JSON body parser on its own Fastify instance', () => {
  const app = Fastify();
  let url = '';
  before(async () => {
    registerErrorHandling(app);
    registerJsonBodyParser(app, 8);
    app.post('/echo', async (request) => ({ echoed: request.body }));
    url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/echo`;
  });
  after(() => app.close());

  test('exactly at the limit: parsed; one deeper: 400 ERR_INVALID_JSON', async () => {
    const atLimit = await post(url, nestedArrays(8));
    assert.equal(atLimit.status, 200, atLimit.text);
    assert.deepEqual(atLimit.json().echoed, JSON.parse(nestedArrays(8)));
    const deeper = await post(url, nestedObjects(9));
    assert.equal(deeper.status, 400);
    assert.equal(deeper.json().error_code, 'ERR_INVALID_JSON');
    assert.match(String(deeper.json().reason), /deeper than 8/);
  });

  test('brackets inside strings do not count', async () => {
    const body = JSON.stringify({ a: '[[[[[[[[[[[[{{{{{{{{{{', b: ['"]]]]"', '\\"[[[[[[[[[[[['] });
    const answer = await post(url, body);
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json().echoed, JSON.parse(body));
  });

  test("Fastify's own protections stay: prototype poisoning and empty bodies are refused", async () => {
    const poisoned = await post(url, '{"__proto__":{"admin":true}}');
    assert.equal(poisoned.status, 400);
    assert.equal(poisoned.json().error_code, 'ERR_INVALID_JSON');
    const empty = await post(url, '');
    assert.equal(empty.status, 400);
    assert.equal(empty.json().error_code, 'ERR_INVALID_JSON');
  });
});

describe('deep JSON through a gateway with its embedded backends', () => {
  let fixture: SecuredFixture;
  let auth: Record<string, string>;
  before(async () => {
    fixture = await startSecuredFixture((url) => ({ APPS_URL: url }));
    auth = bearer(await fixture.tokenFor('deepa'));
  });
  after(() => fixture.close());

  for (const path of ['/secured/sessions', '/saved-searches']) {
    test(`POST ${path}: 100,000 nested arrays are 400 ERR_INVALID_JSON; 64 levels are stored and read back`, async () => {
      const refused = await post(fixture.running.url + path, hostile, auth);
      assert.equal(refused.status, 400, refused.text.slice(0, 300));
      assert.equal(refused.json().error_code, 'ERR_INVALID_JSON');

      const atLimit = nestedObjects(64);
      const stored = await post(fixture.running.url + path, atLimit, auth);
      assert.equal(stored.status, 200, stored.text.slice(0, 300));
      const read = await fetch(fixture.running.url + path, { headers: auth });
      assert.equal(await read.text(), atLimit);

      const oneDeeper = await post(fixture.running.url + path, nestedObjects(65), auth);
      assert.equal(oneDeeper.status, 400);
      assert.equal(oneDeeper.json().error_code, 'ERR_INVALID_JSON');
    });
  }

  test('a route whose body the gateway parses refuses deep JSON itself, before validation', async () => {
    const before = fixture.backend.requests.length;
    const refused = await post(
      `${fixture.running.url}/apps/00000000-0000-0000-0000-000000000001/metadata`,
      `{"avus":${hostile}}`,
      auth,
    );
    assert.equal(refused.status, 400);
    assert.equal(refused.json().error_code, 'ERR_INVALID_JSON');
    assert.equal(fixture.backend.requests.length, before, 'nothing reached the backend');
  });
});

describe('JSON_MAX_DEPTH', () => {
  test('is validated: 1 to 512, default 64', () => {
    assert.equal(loadConfig({}).jsonMaxDepth, 64);
    assert.equal(loadConfig({ JSON_MAX_DEPTH: '512' }).jsonMaxDepth, 512);
    for (const bad of ['0', '513', 'deep', '-1']) {
      assert.throws(
        () => loadConfig({ JSON_MAX_DEPTH: bad }),
        /JSON_MAX_DEPTH must be an integer from 1 to 512/,
      );
    }
  });

  test('raises or lowers the limit at the gateway and in its backends', async () => {
    const fixture = await startSecuredFixture((url) => ({ APPS_URL: url, JSON_MAX_DEPTH: '3' }));
    try {
      const auth = bearer(await fixture.tokenFor('shallow'));
      assert.equal(
        (await post(`${fixture.running.url}/secured/sessions`, nestedArrays(3), auth)).status,
        200,
      );
      const refused = await post(`${fixture.running.url}/secured/sessions`, nestedArrays(4), auth);
      assert.equal(refused.status, 400);
      assert.match(String(refused.json().reason), /deeper than 3/);
    } finally {
      await fixture.close();
    }
  });
});

for (const engine of hostEngines) {
  describe(`deep JSON sent straight to the embedded backend host on ${engine.name}`, () => {
    let host: Awaited<ReturnType<typeof engine.open>>;
    before(async () => {
      host = await engine.open({ names: ['user-info', 'metadata'] });
    });
    after(() => host?.close());
    const json = { 'content-type': 'application/json' };

    test('user-info (keeps the text) and metadata (parsed by the host) both answer 400 ERR_INVALID_JSON', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set (CI sets it)');
      for (const url of [
        '/user-info/sessions/deepa@localhost',
        '/user-info/searches/deepa@localhost',
        '/metadata/avus/search?user=deepa',
      ]) {
        const answer = await host.request('POST', url, { headers: json, body: hostile });
        assert.equal(answer.status, 400, `${url}: ${answer.text.slice(0, 300)}`);
        assert.equal(answer.json().error_code, 'ERR_INVALID_JSON', url);
      }
      // user-info reads every body as JSON, whatever its content type.
      const plain = await host.request('POST', '/user-info/sessions/deepa@localhost', {
        headers: { 'content-type': 'text/plain' },
        body: hostile,
      });
      assert.equal(plain.status, 400);
      assert.equal(plain.json().error_code, 'ERR_INVALID_JSON');
    });

    test('64 levels are stored and read back', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set (CI sets it)');
      const body = nestedArrays(64);
      assert.equal(
        (await host.request('POST', '/user-info/sessions/deepa@localhost', { headers: json, body }))
          .status,
        200,
      );
      assert.equal((await host.request('GET', '/user-info/sessions/deepa@localhost')).text, body);
    });
  });
}

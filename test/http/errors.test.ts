// The gateway's error model: unknown paths 404 before any auth check, missing credentials 401,
// malformed JSON, schema violations, bodies over the limit and unsupported media types refused as
// JSON `{error_code, reason}` (never a stack trace) and never forwarded.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestBackend } from '../support/backend.ts';
import { startSecuredFixture, type SecuredFixture } from '../support/fixture.ts';
import type { RunningGateway } from '../support/gateway.ts';

describe('error model', () => {
  let fixture: SecuredFixture;
  let backend: TestBackend;
  let running: RunningGateway;
  let token: string;

  before(async () => {
    fixture = await startSecuredFixture((url) => ({
      NOTIFICATION_AGENT_URL: url,
      BODY_LIMIT_BYTES: '2048',
    }));
    ({ backend, running } = fixture);
    token = await fixture.tokenFor('carol');
  });

  after(() => fixture.close());

  const postJson = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(running.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body,
    });

  async function assertError(
    response: Response,
    status: number,
    errorCode: string,
  ): Promise<Record<string, unknown>> {
    assert.equal(response.status, status);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(body.error_code, errorCode);
    assert.equal(typeof body.reason, 'string');
    assert.ok((body.reason as string).length > 0);
    assert.equal(JSON.stringify(body).includes('    at '), false, 'no stack trace');
    return body;
  }

  test('an unknown path is 404 before any auth check', async () => {
    for (const path of ['/nowhere', '/secured/nowhere', '/admin/nowhere']) {
      await assertError(await fetch(running.url + path), 404, 'ERR_NOT_FOUND');
    }
  });

  test('a known secured path without credentials is 401', async () => {
    const response = await fetch(`${running.url}/secured/notifications/unseen-messages`);
    await assertError(response, 401, 'ERR_NOT_AUTHORIZED');
    assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/);
  });

  test('malformed JSON is 400 ERR_INVALID_JSON and is not forwarded', async () => {
    const before = backend.requests.length;
    await assertError(
      await postJson('/secured/notifications/seen', '{"uuids": ['),
      400,
      'ERR_INVALID_JSON',
    );
    assert.equal(backend.requests.length, before);
  });

  test('a schema violation is 400 naming the field', async () => {
    const body = await assertError(
      await postJson('/secured/notifications/seen', '{"uuids": {"not": "a list"}}'),
      400,
      'ERR_BAD_OR_MISSING_FIELD',
    );
    assert.equal(body.field, 'uuids');
    assert.match(body.reason as string, /uuids/);
    const missing = await assertError(
      await postJson('/secured/notifications/seen', '{}'),
      400,
      'ERR_BAD_OR_MISSING_FIELD',
    );
    assert.equal(missing.field, 'uuids');
  });

  test('a valid body is forwarded as JSON', async () => {
    const response = await postJson('/secured/notifications/seen', '{"uuids": ["a", "b"]}');
    assert.equal(response.status, 200);
    const seen = backend.requests.at(-1)!;
    assert.equal(seen.path, '/seen');
    assert.deepEqual(JSON.parse(seen.body.toString()), { uuids: ['a', 'b'] });
  });

  test('a parsed body over the limit is 413', async () => {
    const big = JSON.stringify({ uuids: Array.from({ length: 400 }, (_, i) => `uuid-${i}`) });
    assert.ok(big.length > 2048);
    await assertError(
      await postJson('/secured/notifications/seen', big),
      413,
      'ERR_REQUEST_BODY_TOO_LARGE',
    );
  });

  test('an unsupported media type on a JSON route is 415', async () => {
    await assertError(
      await postJson('/secured/notifications/seen', 'uuids=a', {
        'content-type': 'application/x-www-form-urlencoded',
      }),
      415,
      'ERR_UNSUPPORTED_MEDIA_TYPE',
    );
  });

  test('GET / expecting another service answers 500 ERR_UNEXPECTED_SERVICE', async () => {
    const response = await fetch(`${running.url}/?expecting=other`);
    const body = await assertError(response, 500, 'ERR_UNEXPECTED_SERVICE');
    assert.match(body.reason as string, /other/);
  });
});

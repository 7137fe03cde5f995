// An aggregating route (one that calls backends itself and merges their answers, here the
// favourites of the metadata service) answers a backend that breaks off as a passthrough does:
// a backend closing the connection mid-body is 502 and one stalling mid-body past its timeout is
// 504, both ERR_UNAVAILABLE naming the backend, never 500 ERR_UNCHECKED_EXCEPTION. The backend is
// the test's own, with a 300 ms timeout: a stall costs about a second (undici checks body
// timeouts on a coarse tick).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ServerResponse } from 'node:http';
import { startSecuredFixture, type SecuredFixture } from '../support/fixture.ts';
import { bearer } from '../support/tokens.ts';

let fixture: SecuredFixture;
let token: string;
const timeoutMs = 300;

before(async () => {
  fixture = await startSecuredFixture((url) => ({
    METADATA_URL: url,
    METADATA_TIMEOUT_MS: String(timeoutMs),
  }));
  token = await fixture.tokenFor('alice');
});

after(async () => {
  await fixture?.close();
});

/** Headers promising 200 bytes of JSON, and the first few of them. */
function startBody(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': '200' });
  response.write('{"filesystem":["');
}

const listing = () =>
  fetch(
    `${fixture.running.url}/secured/favorites/filesystem?sort-col=NAME&sort-dir=ASC&limit=10&offset=0`,
    { headers: bearer(token) },
  );
const filter = () =>
  fetch(`${fixture.running.url}/secured/favorites/filter`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify({ filesystem: ['0b1c2d3e-0000-4000-8000-000000000001'] }),
  });

async function assertBackendError(response: Response, status: number, label: string) {
  const text = await response.text();
  assert.equal(response.status, status, `${label}: ${text}`);
  const body = JSON.parse(text);
  assert.equal(body.error_code, 'ERR_UNAVAILABLE', label);
  assert.equal(body.backend, 'metadata', label);
}

test('the metadata service closing the connection mid-body: 502 ERR_UNAVAILABLE', async () => {
  fixture.backend.handle((_request, response) => {
    startBody(response);
    setTimeout(() => response.socket?.destroy(), 20);
  });
  await assertBackendError(await listing(), 502, 'GET /secured/favorites/filesystem');
  await assertBackendError(await filter(), 502, 'POST /secured/favorites/filter');
});

test('the metadata service stalling mid-body past its timeout: 504 ERR_UNAVAILABLE, in about the timeout', async () => {
  fixture.backend.handle((_request, response) => startBody(response));
  const started = performance.now();
  await assertBackendError(await listing(), 504, 'GET /secured/favorites/filesystem');
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= timeoutMs * 0.9 && elapsed < timeoutMs * 10, `${elapsed} ms`);
  await assertBackendError(await filter(), 504, 'POST /secured/favorites/filter');
});

test('the metadata service dying before it answers: 502 or 503 ERR_UNAVAILABLE', async () => {
  fixture.backend.handle((_request, response) => {
    response.socket?.destroy();
  });
  const response = await listing();
  assert.ok([502, 503].includes(response.status), String(response.status));
  assert.equal(((await response.json()) as any).error_code, 'ERR_UNAVAILABLE');
});

// The forwarding core: identity parameters and headers each backend expects, credentials and
// hop-by-hop headers kept at the gateway, Expect: 100-continue, backend errors relayed unchanged,
// streaming both ways with the body limit, and backends that are down, slow or unconfigured.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { startBackend, type TestBackend } from '../support/backend.ts';
import { startSecuredFixture, type SecuredFixture } from '../support/fixture.ts';
import { noRateLimits, startGateway, type RunningGateway } from '../support/gateway.ts';
import {
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
  type JwksServer,
  type SigningKey,
} from '../support/tokens.ts';

const appPath = '/apps/de/00000000-0000-0000-0000-000000000001';

/** Sends bytes exactly as written (fetch refuses hop-by-hop headers) and returns the raw answer. */
function rawRequest(baseUrl: string, text: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    const chunks: Buffer[] = [];
    // Done once the answer's body has all arrived (its length, or chunked to its end), not when the server closes the
    // connection: a keep-alive one stays open for KEEP_ALIVE_TIMEOUT_MS.
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      const received = Buffer.concat(chunks);
      const headerEnd = received.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const head = received.subarray(0, headerEnd).toString();
      const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
      const complete =
        length !== undefined
          ? received.length - headerEnd - 4 >= Number(length)
          : /\r\ntransfer-encoding: *chunked/i.test(head) &&
            received.subarray(headerEnd).includes('\r\n0\r\n\r\n');
      if (complete) socket.end();
    });
    socket.on('end', () => resolve(Buffer.concat(chunks).toString()));
    socket.on('error', reject);
  });
}

const userInfoSecret = 'user-info-shared-secret';

describe('forwarding core', () => {
  let fixture: SecuredFixture;
  let backend: TestBackend;
  let running: RunningGateway;
  let alice: string;

  before(async () => {
    fixture = await startSecuredFixture(
      (url) => ({
        UID_DOMAIN: 'example.org',
        APPS_URL: url,
        METADATA_URL: url,
        DATA_INFO_URL: url,
        ANALYSES_URL: url,
        USER_INFO_URL: url,
        USER_INFO_SECRET: userInfoSecret,
        NOTIFICATION_AGENT_URL: `${url}/v1`,
      }),
      { alg: 'RS256' },
    );
    ({ backend, running } = fixture);
    alice = await fixture.tokenFor('alice');
  });

  after(() => fixture.close());

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(running.url + path, { headers: { authorization: `Bearer ${alice}`, ...headers } });
  const lastRequest = () => backend.requests.at(-1)!;

  test("a backend's secret goes to that backend only, and a client cannot send one", async () => {
    assert.equal((await get('/secured/sessions')).status, 200);
    assert.equal(lastRequest().headers['x-backend-secret'], userInfoSecret);
    assert.equal((await get(appPath, { 'x-backend-secret': 'forged-by-the-client' })).status, 200);
    assert.equal(lastRequest().headers['x-backend-secret'], undefined);
  });

  test('apps calls carry user, email, first-name and last-name', async () => {
    const response = await get(appPath);
    assert.equal(response.status, 200);
    const seen = lastRequest();
    assert.equal(seen.path, appPath);
    assert.equal(seen.query.get('user'), 'alice');
    assert.equal(seen.query.get('email'), 'alice@example.org');
    assert.equal(seen.query.get('first-name'), 'Alice');
    assert.equal(seen.query.get('last-name'), 'Tester');
  });

  test('notification agent calls use underscores and the base path prefix', async () => {
    const response = await get('/secured/notifications/unseen-messages');
    assert.equal(response.status, 200);
    const seen = lastRequest();
    assert.equal(seen.path, '/v1/unseen-messages');
    assert.deepEqual(
      ['user', 'email', 'first_name', 'last_name'].map((name) => seen.query.get(name)),
      ['alice', 'alice@example.org', 'Alice', 'Tester'],
    );
    assert.equal(seen.query.get('first-name'), null);
  });

  test('metadata calls carry only the short user', async () => {
    const response = await get('/secured/filesystem/metadata/templates');
    assert.equal(response.status, 200);
    const seen = lastRequest();
    assert.equal(seen.path, '/templates');
    assert.deepEqual([...seen.query.keys()], ['user']);
    assert.equal(seen.query.get('user'), 'alice');
  });

  test('data-info calls carry the short user, and data-store-admin=true for an administrator', async () => {
    const exists = (token: string, query = '') =>
      fetch(`${running.url}/secured/filesystem/exists${query}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ paths: ['/platform/home/alice'] }),
      });
    assert.equal((await exists(alice, '?data-store-admin=true')).status, 200);
    assert.equal(lastRequest().path, '/existence-marker');
    assert.deepEqual([...lastRequest().query.entries()], [['user', 'alice']]);
    for (const role of ['de-admin', 'data-store-admin']) {
      const admin = await signToken(
        fixture.key,
        userClaims('root', { realm_access: { roles: [role] } }),
      );
      assert.equal((await exists(admin)).status, 200);
      assert.deepEqual(
        [...lastRequest().query.entries()],
        [
          ['user', 'root'],
          ['data-store-admin', 'true'],
        ],
        role,
      );
    }
  });

  test('analyses calls carry the qualified user', async () => {
    assert.equal((await get('/quicklaunches')).status, 200);
    assert.equal(lastRequest().query.get('user'), 'alice@example.org');
  });

  test('user-info takes the qualified user in the path', async () => {
    assert.equal((await get('/secured/sessions')).status, 200);
    const seen = lastRequest();
    assert.equal(seen.path, '/sessions/alice@example.org');
    assert.equal(seen.query.get('user'), null);
  });

  test('a client cannot set identity parameters; other parameters keep their encoding', async () => {
    const filter = encodeURIComponent('[{"field":"ownership","value":"mine"}]');
    const response = await get(
      `${appPath}?user=mallory&first-name=Mal&limit=5&filter=${filter}&ip-address=10.0.0.9&name=a%20b`,
    );
    assert.equal(response.status, 200);
    const seen = lastRequest();
    assert.deepEqual(seen.query.getAll('user'), ['alice']);
    assert.deepEqual(seen.query.getAll('first-name'), ['Alice']);
    assert.equal(seen.query.get('ip-address'), null);
    assert.match(seen.url, new RegExp(`filter=${filter.replace(/[[\]%]/g, (c) => `\\${c}`)}`));
    assert.match(seen.url, /name=a%20b/);
    assert.equal(seen.query.get('limit'), '5');
  });

  test('credentials stay at the gateway; forwarding headers and the request id are added', async () => {
    const response = await get(appPath, { 'x-request-id': 'trace-123', 'x-custom': 'kept' });
    assert.equal(response.headers.get('x-request-id'), 'trace-123');
    const { headers } = lastRequest();
    assert.equal(headers.authorization, undefined);
    assert.equal(headers['x-vendor-de-jwt'], undefined);
    assert.equal(headers['x-request-id'], 'trace-123');
    assert.equal(headers['x-forwarded-for'], '127.0.0.1');
    assert.equal(headers['x-forwarded-proto'], 'http');
    assert.equal(headers['x-forwarded-host'], new URL(running.url).host);
    assert.equal(headers['x-custom'], 'kept');
  });

  test('hop-by-hop headers, those named in Connection, and Expect are not forwarded', async () => {
    const body = '{"a":1}';
    const answer = await rawRequest(
      running.url,
      [
        `POST /apps/de HTTP/1.1`,
        `Host: gateway`,
        `Authorization: Bearer ${alice}`,
        `Connection: keep-alive, x-hop`,
        `X-Hop: secret`,
        `Keep-Alive: timeout=5`,
        `TE: trailers`,
        `Proxy-Authorization: Basic abc`,
        `X-End-To-End: yes`,
        `Content-Type: application/json`,
        `Content-Length: ${body.length}`,
        '',
        body,
      ].join('\r\n'),
    );
    assert.match(answer, /^HTTP\/1\.1 200/);
    const { headers, body: received } = lastRequest();
    for (const name of ['x-hop', 'keep-alive', 'te', 'proxy-authorization', 'expect', 'upgrade']) {
      assert.equal(headers[name], undefined, `${name} must not be forwarded`);
    }
    assert.equal(headers['x-end-to-end'], 'yes');
    assert.equal(received.toString(), body);
  });

  test('Expect: 100-continue is answered by the gateway, not forwarded', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const { port } = new URL(running.url);
      const req = httpRequest(
        {
          port,
          host: '127.0.0.1',
          method: 'POST',
          path: '/apps/de',
          headers: {
            authorization: `Bearer ${alice}`,
            expect: '100-continue',
            'content-type': 'application/json',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('continue', () => req.end('{"b":2}'));
      req.on('error', reject);
    });
    assert.equal(status, 200);
    assert.equal(lastRequest().headers.expect, undefined);
    assert.equal(lastRequest().body.toString(), '{"b":2}');
  });

  test('backend errors are relayed with their status, headers and body unchanged', async () => {
    backend.handle((_request, response) => {
      response.writeHead(418, { 'content-type': 'application/json', 'x-backend': 'teapot' });
      response.end('{"error_code":"ERR_TEAPOT","reason":"short and stout","extra":[1,2]}');
    });
    try {
      const response = await get(appPath);
      assert.equal(response.status, 418);
      assert.equal(response.headers.get('x-backend'), 'teapot');
      assert.equal(
        await response.text(),
        '{"error_code":"ERR_TEAPOT","reason":"short and stout","extra":[1,2]}',
      );
    } finally {
      backend.handle((await import('../support/backend.ts')).echo);
    }
  });

  test('a GET with a {} JSON body is accepted and the body is not forwarded', async () => {
    const { port } = new URL(running.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          port,
          host: '127.0.0.1',
          method: 'GET',
          path: appPath,
          headers: {
            authorization: `Bearer ${alice}`,
            'content-type': 'application/json',
            'content-length': '2',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    assert.equal(status, 200);
    assert.equal(lastRequest().method, 'GET');
    assert.equal(lastRequest().body.length, 0);
  });
});

describe('streaming', () => {
  let fixture: SecuredFixture;
  let jwks: JwksServer;
  let backend: TestBackend;
  let running: RunningGateway;
  let token: string;

  before(async () => {
    fixture = await startSecuredFixture(
      (url) => ({ APPS_URL: url, BODY_LIMIT_BYTES: String(256 * 1024 * 1024) }),
      { recordBody: false },
    );
    ({ jwks, backend, running } = fixture);
    token = await fixture.tokenFor('streamer');
  });

  after(() => fixture.close());

  test('a large request body reaches the backend before the client has finished sending it', async () => {
    let firstBytesAtBackend!: () => void;
    const backendHasBytes = new Promise<void>((resolve) => (firstBytesAtBackend = resolve));
    backend.handle(async (_recorded, response) => {
      // recordBody is off: the backend reads the stream itself, hashing as it goes.
      const req = (response as unknown as { req: NodeJS.ReadableStream }).req;
      const hash = createHash('sha256');
      let bytes = 0;
      for await (const chunk of req as AsyncIterable<Buffer>) {
        if (bytes === 0) firstBytesAtBackend();
        bytes += chunk.length;
        hash.update(chunk);
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ bytes, sha256: hash.digest('hex') }));
    });

    const chunk = randomBytes(1024 * 1024);
    const expected = createHash('sha256');
    const { port } = new URL(running.url);
    const result = await new Promise<{ bytes: number; sha256: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          port,
          host: '127.0.0.1',
          method: 'POST',
          path: '/apps/de',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
        },
        async (res) => {
          let text = '';
          for await (const part of res) text += part;
          resolve(JSON.parse(text));
        },
      );
      req.on('error', reject);
      (async () => {
        for (let i = 0; i < 32; i++) {
          req.write(chunk);
          expected.update(chunk);
        }
        // Hold the last part back until the backend has seen the first ones: proof of streaming.
        await backendHasBytes;
        for (let i = 0; i < 32; i++) {
          req.write(chunk);
          expected.update(chunk);
        }
        req.end();
      })().catch(reject);
    });
    assert.equal(result.bytes, 64 * 1024 * 1024);
    assert.equal(result.sha256, expected.digest('hex'));
  });

  test('a large response reaches the client before the backend has finished producing it', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const part = randomBytes(1024 * 1024);
    backend.handle(async (_recorded, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let i = 0; i < 16; i++) response.write(part);
      await released;
      for (let i = 0; i < 16; i++) response.write(part);
      response.end();
    });
    const response = await fetch(`${running.url}${appPath}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    let bytes = 0;
    while (bytes < part.length) bytes += (await reader.read()).value!.length;
    release();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
    }
    assert.equal(bytes, 32 * part.length);
  });

  test('a streamed body over the limit is refused with 413 before it reaches the backend', async () => {
    const limited = await startGateway({
      ...noRateLimits,
      AUTH_JWKS_URL: jwks.url,
      APPS_URL: backend.url,
      BODY_LIMIT_BYTES: '4096',
    });
    try {
      const before = backend.requests.length;
      const response = await fetch(`${limited.url}/apps/de`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
        body: randomBytes(10_000),
      });
      assert.equal(response.status, 413);
      assert.equal(
        ((await response.json()) as { error_code: string }).error_code,
        'ERR_REQUEST_BODY_TOO_LARGE',
      );
      assert.equal(backend.requests.length, before);
    } finally {
      await limited.close();
    }
  });

  test('a chunked body (no declared length) is counted as it streams and cut with 413 past the limit', async () => {
    const limited = await startGateway({
      ...noRateLimits,
      AUTH_JWKS_URL: jwks.url,
      APPS_URL: backend.url,
      BODY_LIMIT_BYTES: '4096',
    });
    try {
      const post = (size: number) =>
        fetch(`${limited.url}/apps/de`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
          body: Readable.toWeb(Readable.from([randomBytes(size)])) as ReadableStream,
          duplex: 'half',
        } as RequestInit);
      const over = await post(10_000);
      assert.equal(over.status, 413);
      assert.equal(
        ((await over.json()) as { error_code: string }).error_code,
        'ERR_REQUEST_BODY_TOO_LARGE',
      );
      const within = await post(4096);
      assert.equal(within.status, 200);
      await within.arrayBuffer();
    } finally {
      await limited.close();
    }
  });
});

describe('backend failures', () => {
  let jwks: JwksServer;
  let key: SigningKey;
  let token: string;

  before(async () => {
    key = await createSigningKey('ES256', 'failure-key');
    jwks = await startJwksServer([key]);
    token = await signToken(key, userClaims('bob'));
  });
  after(() => jwks.close());

  test('a backend that is down gives 503 ERR_UNAVAILABLE naming it', async () => {
    const running = await startGateway({
      ...noRateLimits,
      AUTH_JWKS_URL: jwks.url,
      APPS_URL: 'http://127.0.0.1:1',
    });
    try {
      const response = await fetch(`${running.url}${appPath}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(response.status, 503);
      const body = (await response.json()) as Record<string, string>;
      assert.equal(body.error_code, 'ERR_UNAVAILABLE');
      assert.equal(body.backend, 'apps');
      assert.match(body.reason ?? '', /apps/);
    } finally {
      await running.close();
    }
  });

  test('a backend slower than its timeout gives 504 ERR_UNAVAILABLE', async () => {
    const slow = await startBackend((_request, response) => {
      setTimeout(() => response.end('{}'), 3_000).unref();
    });
    const running = await startGateway({
      ...noRateLimits,
      AUTH_JWKS_URL: jwks.url,
      APPS_URL: slow.url,
      APPS_TIMEOUT_MS: '300',
    });
    try {
      const response = await fetch(`${running.url}${appPath}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(response.status, 504);
      const body = (await response.json()) as Record<string, string>;
      assert.equal(body.error_code, 'ERR_UNAVAILABLE');
      assert.match(body.reason ?? '', /300 ms/);
    } finally {
      await running.close();
      await slow.close();
    }
  });

  test('a backend with neither a URL nor an embedded service answers 501 naming its variable', async () => {
    // The QMS is embedded unless left out of EMBEDDED_BACKENDS.
    const running = await startGateway({
      ...noRateLimits,
      AUTH_JWKS_URL: jwks.url,
      EMBEDDED_BACKENDS: 'user-info',
    });
    try {
      const response = await fetch(`${running.url}/qms/plans`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(response.status, 501);
      const body = (await response.json()) as Record<string, string>;
      assert.equal(body.error_code, 'ERR_NOT_IMPLEMENTED');
      assert.match(body.reason ?? '', /QMS_URL/);
    } finally {
      await running.close();
    }
  });
});

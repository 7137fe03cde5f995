// Relaying a backend's answer (src/http/relay.ts): a small answer sent in pieces arrives whole with
// its length; HEAD keeps the backend's length; interim 1xx answers stay behind; a client that goes
// away cancels the backend call, before the answer and in the middle of a streamed one; a backend
// that breaks off its answer gives a JSON 502 (small answer) or a cut connection
// (streamed answer); the backend-duration metric counts each call.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { TestBackend } from '../support/backend.ts';
import { startSecuredFixture, type SecuredFixture } from '../support/fixture.ts';
import type { RunningGateway } from '../support/gateway.ts';

const appPath = '/apps/de/00000000-0000-0000-0000-000000000001';

describe('relaying answers', () => {
  let fixture: SecuredFixture;
  let backend: TestBackend;
  let running: RunningGateway;
  let token: string;

  before(async () => {
    fixture = await startSecuredFixture((url) => ({ APPS_URL: url }), { recordBody: false });
    ({ backend, running } = fixture);
    token = await fixture.tokenFor('relayer');
  });

  after(() => fixture.close());

  const get = (init: RequestInit = {}) =>
    fetch(running.url + appPath, {
      ...init,
      headers: { authorization: `Bearer ${token}`, ...init.headers },
    });

  /** A request whose client socket is destroyed once `leave` resolves; resolves when it is. */
  function leaveEarly(leave: Promise<unknown>, onHeaders?: () => void): Promise<void> {
    const { hostname, port } = new URL(running.url);
    return new Promise((resolve) => {
      const request = httpRequest({
        host: hostname,
        port,
        path: appPath,
        headers: { authorization: `Bearer ${token}` },
      });
      request.on('response', (response) => {
        onHeaders?.();
        response.on('data', () => {});
        response.on('error', () => {});
      });
      request.on('error', () => {});
      request.end();
      void leave.then(() => {
        request.destroy();
        resolve();
      });
    });
  }

  test('a small answer written in pieces arrives whole, with the length and headers the backend gave', async () => {
    const parts = ['{"parts":[', '"one",', '"two",', '"three"', ']}'];
    const body = parts.join('');
    backend.handle(async (_recorded, response) => {
      response.writeHead(201, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'x-backend-says': 'hello',
      });
      for (const part of parts) {
        response.write(part);
        await new Promise((resolve) => setImmediate(resolve));
      }
      response.end();
    });
    const response = await get();
    assert.equal(response.status, 201);
    assert.equal(response.headers.get('content-length'), String(Buffer.byteLength(body)));
    assert.equal(response.headers.get('x-backend-says'), 'hello');
    assert.deepEqual(await response.json(), { parts: ['one', 'two', 'three'] });
  });

  test('an empty answer (204) is relayed without a body', async () => {
    backend.handle((_recorded, response) => {
      response.writeHead(204, { 'x-empty': 'yes' });
      response.end();
    });
    const response = await get();
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('x-empty'), 'yes');
    assert.equal(await response.text(), '');
  });

  test("HEAD relays the backend's length and no body", async () => {
    backend.handle((recorded, response) => {
      assert.equal(recorded.method, 'HEAD');
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '12345' });
      response.end();
    });
    const response = await get({ method: 'HEAD' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-length'), '12345');
    assert.equal(await response.text(), '');
  });

  test('an interim 103 answer stays between gateway and backend; the final one is relayed', async () => {
    backend.handle((_recorded, response) => {
      response.writeEarlyHints({ link: '</style.css>; rel=preload' });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"final":true}');
    });
    // Read raw, so an interim answer relayed to the client would be seen.
    const { hostname, port } = new URL(running.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () =>
        socket.write(
          `GET ${appPath} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\nconnection: close\r\n\r\n`,
        ),
      );
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('end', () => resolve(Buffer.concat(chunks).toString()));
      socket.on('error', reject);
    });
    assert.match(raw, /^HTTP\/1\.1 200 /);
    assert.doesNotMatch(raw, / 103 /);
    assert.match(raw, /\{"final":true\}/);
  });

  test('a client that goes away before the answer cancels the backend call', async () => {
    let arrived!: () => void;
    const backendHasIt = new Promise<void>((resolve) => (arrived = resolve));
    let cancelled!: () => void;
    const backendSawClose = new Promise<void>((resolve) => (cancelled = resolve));
    backend.handle((_recorded, response) => {
      // Never answers: only the gateway giving up on the call closes this connection.
      response.on('close', () => cancelled());
      arrived();
    });
    await leaveEarly(backendHasIt);
    await backendSawClose;
  });

  test('a client that goes away in the middle of a streamed answer stops the backend being read', async () => {
    let cancelled!: () => void;
    const backendSawClose = new Promise<void>((resolve) => (cancelled = resolve));
    let headersArrived!: () => void;
    const clientHasHeaders = new Promise<void>((resolve) => (headersArrived = resolve));
    const part = Buffer.alloc(64 * 1024, 7);
    backend.handle((_recorded, response) => {
      // An endless answer without a length (streamed): it ends only when the gateway lets go.
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      const pump = () => {
        while (!response.destroyed && response.write(part));
      };
      response.on('drain', pump);
      response.on('close', () => cancelled());
      pump();
    });
    await leaveEarly(clientHasHeaders, headersArrived);
    await backendSawClose;
  });

  test('a backend that breaks off a small answer gives 502 ERR_UNAVAILABLE as JSON', async () => {
    backend.handle((_recorded, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      response.write('{"partial":');
      setImmediate(() => response.socket?.destroy());
    });
    const response = await get();
    assert.equal(response.status, 502);
    const body = (await response.json()) as Record<string, string>;
    assert.equal(body.error_code, 'ERR_UNAVAILABLE');
    assert.equal(body.backend, 'apps');
  });

  test('a backend that fails in the middle of a streamed answer cuts the client connection', async () => {
    backend.handle((_recorded, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.write(Buffer.alloc(128 * 1024, 1));
      setImmediate(() => response.socket?.destroy());
    });
    const response = await get();
    assert.equal(response.status, 200);
    await assert.rejects(response.arrayBuffer());
  });

  test('each backend call is counted in the backend-duration metric by status', async () => {
    const counted = async (status: string) => {
      const text = await (await fetch(`${running.url}/metrics`)).text();
      const line = text
        .split('\n')
        .find(
          (row) =>
            row.startsWith('gateway_backend_request_duration_seconds_count') &&
            row.includes('backend="apps"') &&
            row.includes(`status="${status}"`),
        );
      return line === undefined ? 0 : Number(line.split(' ').at(-1));
    };
    backend.handle((_recorded, response) => {
      response.writeHead(418, { 'content-type': 'application/json' });
      response.end('{"teapot":true}');
    });
    const before = await counted('418');
    assert.equal((await get()).status, 418);
    assert.equal((await get()).status, 418);
    assert.equal(await counted('418'), before + 2);
  });
});

// The minimum body rate (BODY_MIN_BYTES_PER_SECOND over BODY_MIN_RATE_WINDOW_MS): an upload
// trickled a byte at a time, never stalling long enough for BODY_TIMEOUT_MS, is cut with 408
// ERR_REQUEST_TIMEOUT once a whole window has averaged under the minimum, and nothing of it is
// kept; a slow but real upload (well over the minimum) outlives the window several times over and
// is stored whole; and time the gateway holds a body back for a slow backend, or cannot run at all
// (its event loop held), is not counted against the client. The window is 600 ms here (30 s by
// default), so each case takes a second or two.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/index.ts';
import {
  multipartHead,
  multipartTail,
  multipartType,
  randomContent,
  startFileioGateway,
  type FileioGateway,
} from '../support/fileio.ts';
import { noRateLimits, startGateway } from '../support/gateway.ts';
import { rawConnect } from '../support/raw-http.ts';
import {
  bearer,
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
} from '../support/tokens.ts';

const WINDOW_MS = 600;
const MIN_RATE = 2_000; // bytes per second
const rateEnv = {
  BODY_MIN_BYTES_PER_SECOND: String(MIN_RATE),
  BODY_MIN_RATE_WINDOW_MS: String(WINDOW_MS),
  // Long enough that a byte every 100 ms is never a stall: only the rate can cut it.
  BODY_TIMEOUT_MS: '10000',
};
const q = encodeURIComponent;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('settings: 500 bytes/s over 30 s by default, 0 turns the minimum off', () => {
  const defaults = loadConfig({}).connections;
  assert.equal(defaults.bodyMinBytesPerSecond, 500);
  assert.equal(defaults.bodyMinRateWindowMs, 30_000);
  assert.equal(loadConfig({ BODY_MIN_BYTES_PER_SECOND: '0' }).connections.bodyMinBytesPerSecond, 0);
  assert.throws(
    () => loadConfig({ BODY_MIN_BYTES_PER_SECOND: 'slow' }),
    /BODY_MIN_BYTES_PER_SECOND must be an integer/,
  );
});

describe('uploads against the minimum rate', { timeout: 30_000 }, () => {
  let gw: FileioGateway;
  let token: string;
  let alice: string;

  before(async () => {
    gw = await startFileioGateway(rateEnv);
    token = await gw.token('alice');
    alice = gw.home('alice');
    await gw.call('alice', 'GET', '/secured/bootstrap');
  });
  after(async () => gw?.close());

  const uploadHead = (name: string, length: number) =>
    `POST /secured/fileio/upload?dest=${q(alice)} HTTP/1.1\r\nhost: gateway\r\nauthorization: Bearer ${token}\r\ncontent-type: ${multipartType}\r\ncontent-length: ${length}\r\n\r\n`;

  test('a body trickled a byte every 100 ms is cut with 408 after about a window, and nothing is kept', async () => {
    const connection = await rawConnect(gw.running.url);
    await connection.write(uploadHead('trickled.bin', 100_000));
    await connection.write(multipartHead('trickled.bin'));
    let trickling = true;
    void (async () => {
      while (trickling && (await connection.write('x'))) await sleep(100);
    })();
    const answer = await connection.answer(10_000);
    trickling = false;
    assert.equal(answer.status, 408, JSON.stringify(answer));
    assert.equal(answer.json?.error_code, 'ERR_REQUEST_TIMEOUT');
    assert.match(answer.json?.reason, /bytes\/s/);
    assert.ok(
      answer.elapsedMs >= WINDOW_MS && answer.elapsedMs < WINDOW_MS + 2_000,
      `answered after ${answer.elapsedMs} ms`,
    );
    await connection.closed;
    assert.deepEqual(await gw.rows(`${alice}/trickled.bin`), []);
  });

  test("a pause of the gateway's own (its event loop held past a window) is not counted against the client", async () => {
    const content = randomContent(12 * 1024);
    const body = Buffer.concat([multipartHead('paused.bin'), content, multipartTail]);
    const connection = await rawConnect(gw.running.url);
    await connection.write(uploadHead('paused.bin', body.length));
    const pieces = 12; // 1 KiB every 100 ms, five times the minimum, with one pause in the middle
    const size = Math.ceil(body.length / pieces);
    let sent = 0;
    for (let offset = 0; offset < body.length; offset += size, sent += 1) {
      await connection.write(body.subarray(offset, offset + size));
      await sleep(100);
      if (sent === 6) {
        // The whole process stops, the gateway's reading included, as in a long GC pause or on a
        // starved CPU (a CI machine): nothing is read, so nothing may be blamed on the client.
        const until = Date.now() + 3 * WINDOW_MS;
        while (Date.now() < until);
      }
    }
    const answer = await connection.answer();
    connection.close();
    assert.equal(answer.status, 200, answer.body);
    assert.equal(answer.json.file['file-size'], content.length);
  });

  test('a slow but real upload (5 times the minimum) lasting three windows is stored whole', async () => {
    const content = randomContent(18 * 1024);
    const body = Buffer.concat([multipartHead('slow.bin'), content, multipartTail]);
    const connection = await rawConnect(gw.running.url);
    await connection.write(uploadHead('slow.bin', body.length));
    const pieces = 18; // 1 KiB every 100 ms: 10 KiB/s for 1.8 s
    const size = Math.ceil(body.length / pieces);
    for (let offset = 0; offset < body.length; offset += size) {
      await connection.write(body.subarray(offset, offset + size));
      await sleep(100);
    }
    const answer = await connection.answer();
    connection.close();
    assert.equal(answer.status, 200, answer.body);
    assert.equal(answer.json.file['file-size'], content.length);
  });
});

test('a body the gateway holds back for a slow backend is not cut by the minimum rate', async () => {
  const holdMs = 4 * WINDOW_MS;
  // An apps backend that reads nothing of the body for four windows, then all of it.
  const backend = createServer((request, response) => {
    setTimeout(async () => {
      let bytes = 0;
      for await (const chunk of request) bytes += (chunk as Buffer).length;
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ bytes }));
    }, holdMs);
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  const key = await createSigningKey('ES256', 'held-back');
  const jwks = await startJwksServer([key]);
  const running = await startGateway({
    ...noRateLimits,
    ...rateEnv,
    AUTH_JWKS_URL: jwks.url,
    APPS_URL: `http://127.0.0.1:${(backend.address() as AddressInfo).port}`,
    BODY_LIMIT_BYTES: String(64 * 1024 * 1024),
  });
  try {
    // Larger than what the sockets on the way can buffer, so the client must wait for the backend.
    const body = randomContent(32 * 1024 * 1024);
    const response = await fetch(`${running.url}/apps/de`, {
      method: 'POST',
      headers: {
        ...bearer(await signToken(key, userClaims('alice'))),
        'content-type': 'application/octet-stream',
      },
      body,
    });
    assert.equal(response.status, 200, await response.clone().text());
    assert.deepEqual(await response.json(), { bytes: body.length });
  } finally {
    await running.close();
    await jwks.close();
    backend.closeAllConnections();
    backend.close();
  }
});

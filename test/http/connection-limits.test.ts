// Connection limits of the gateway's listener: request bodies trickled or stalled are cut with 408
// (BODY_TIMEOUT_MS), on a path no route serves too, while a streamed upload that keeps moving is
// not, and a GET's unread body holds nothing up; headers must arrive within
// HEADERS_TIMEOUT_MS; idle keep-alive connections close (KEEP_ALIVE_TIMEOUT_MS); Node's own answers
// (408, 431, 400 for a malformed request line) carry an error_code; and an answer given before the
// body has all arrived (over a limit, refused upload) reaches the client, whose connection is then
// closed rather than reset or left half-open.
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
import { rawConnect, sendWholeThenRead, type RawAnswer } from '../support/raw-http.ts';
import {
  bearer,
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
} from '../support/tokens.ts';

const q = encodeURIComponent;
const BODY_TIMEOUT_MS = 500;
const HEADERS_TIMEOUT_MS = 400;
const KEEP_ALIVE_TIMEOUT_MS = 300;
const MAX_UPLOAD = 4 * 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function assertError(answer: RawAnswer, status: number, errorCode: string): void {
  assert.equal(answer.status, status, `status; got ${JSON.stringify(answer)}`);
  assert.equal(answer.json?.error_code, errorCode, answer.body);
  assert.equal(typeof answer.json?.reason, 'string');
  assert.match(answer.headers['content-type'] ?? '', /application\/json/);
}

describe('connection settings', () => {
  test('have defaults and refuse values that are not whole milliseconds in range', () => {
    assert.deepEqual(loadConfig({}).connections, {
      headersTimeoutMs: 30_000,
      bodyTimeoutMs: 30_000,
      bodyMinBytesPerSecond: 500,
      bodyMinRateWindowMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      shutdownGraceMs: 2_000,
    });
    assert.deepEqual(
      loadConfig({
        BODY_TIMEOUT_MS: '750',
        HEADERS_TIMEOUT_MS: '250',
        KEEP_ALIVE_TIMEOUT_MS: '65000',
        SHUTDOWN_GRACE_MS: '0',
      }).connections,
      {
        headersTimeoutMs: 250,
        bodyTimeoutMs: 750,
        bodyMinBytesPerSecond: 500,
        bodyMinRateWindowMs: 30_000,
        keepAliveTimeoutMs: 65_000,
        shutdownGraceMs: 0,
      },
    );
    for (const [name, value] of [
      ['BODY_TIMEOUT_MS', 'soon'],
      ['HEADERS_TIMEOUT_MS', '0'],
      ['KEEP_ALIVE_TIMEOUT_MS', '-1'],
      ['SHUTDOWN_GRACE_MS', '1.5'],
    ]) {
      assert.throws(() => loadConfig({ [name!]: value }), new RegExp(`${name} must be an integer`));
    }
  });
});

describe('connection limits', { timeout: 60_000 }, () => {
  let gw: FileioGateway;
  let url: string;
  let token: string;
  let alice: string;

  before(async () => {
    gw = await startFileioGateway({
      BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
      HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
      MAX_UPLOAD_BYTES: String(MAX_UPLOAD),
    });
    url = gw.running.url;
    token = await gw.token('alice');
    alice = gw.home('alice');
    await gw.call('alice', 'GET', '/secured/bootstrap');
    await gw.call('bob', 'GET', '/secured/bootstrap');
  });
  after(async () => gw.close());

  const head = (method: string, path: string, headers: Record<string, string | number>) =>
    `${method} ${path} HTTP/1.1\r\nhost: gateway\r\nauthorization: Bearer ${token}\r\n${Object.entries(
      headers,
    )
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')}\r\n`;

  /**
   * POSTs to `path` the head of a 100,000-byte JSON body, then 4 bytes every 100 ms until answered:
   * the answer must be 408 once BODY_TIMEOUT_MS has passed, and the connection closed.
   */
  async function assertTrickledBodyCut(path: string): Promise<void> {
    const connection = await rawConnect(url);
    await connection.write(
      head('POST', path, { 'content-type': 'application/json', 'content-length': 100_000 }),
    );
    let trickling = true;
    void (async () => {
      while (trickling && (await connection.write('{"a"'))) await sleep(100);
    })();
    const answer = await connection.answer();
    trickling = false;
    assertError(answer, 408, 'ERR_REQUEST_TIMEOUT');
    assert.ok(
      answer.elapsedMs >= BODY_TIMEOUT_MS && answer.elapsedMs < BODY_TIMEOUT_MS + 2_000,
      `answered after ${answer.elapsedMs} ms`,
    );
    assert.equal(answer.headers.connection, 'close');
    await connection.closed;
  }

  describe('request bodies', () => {
    test('a parsed (JSON) body trickled a few bytes every 100 ms is cut with 408 once BODY_TIMEOUT_MS has passed', async () => {
      await assertTrickledBodyCut('/secured/fileio/save');
    });

    test('a parsed body trickled to a path no route serves is cut with 408 as well', async () => {
      // The not-found answer parses its body too, with hooks Fastify takes from the global ones.
      await assertTrickledBodyCut('/secured/no-such-service/anything');
    });

    test('a GET whose body stalls is answered at once, the body left unread, and its connection closed', async () => {
      // Fastify never parses a GET's body: no deadline waits on it, and the answer does not either.
      const connection = await rawConnect(url);
      await connection.write(head('GET', '/uuid', { 'content-length': 100_000 }));
      await connection.write('{"a"');
      const answer = await connection.answer();
      assert.equal(answer.status, 200, JSON.stringify(answer));
      assert.ok(answer.elapsedMs < BODY_TIMEOUT_MS, `answered after ${answer.elapsedMs} ms`);
      assert.equal(answer.headers.connection, 'close');
      await connection.closed;
    });

    test('a stalled upload (no byte for BODY_TIMEOUT_MS) is cut with 408, and nothing of it is kept', async () => {
      const connection = await rawConnect(url);
      await connection.write(
        head('POST', `/secured/fileio/upload?dest=${q(alice)}`, {
          'content-type': multipartType,
          'content-length': 1024 * 1024,
        }),
      );
      await connection.write(
        Buffer.concat([multipartHead('stalled.bin'), randomContent(64 * 1024)]),
      );
      const answer = await connection.answer();
      assertError(answer, 408, 'ERR_REQUEST_TIMEOUT');
      assert.ok(
        answer.elapsedMs < BODY_TIMEOUT_MS + 2_000,
        `answered after ${answer.elapsedMs} ms`,
      );
      await connection.closed;
      assert.deepEqual(await gw.rows(`${alice}/stalled.bin`), []);
    });

    test('a streamed upload that keeps moving outlives BODY_TIMEOUT_MS several times over', async () => {
      const content = randomContent(40 * 1024);
      const body = Buffer.concat([multipartHead('slow-but-steady.bin'), content, multipartTail]);
      const connection = await rawConnect(url);
      await connection.write(
        head('POST', `/secured/fileio/upload?dest=${q(alice)}`, {
          'content-type': multipartType,
          'content-length': body.length,
        }),
      );
      const pieces = 20; // one every 100 ms: 2 s, four times the body timeout
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

    test('a body over BODY_LIMIT_BYTES (12 MiB on a comment route) is answered 413 and the connection closed, never reset', async () => {
      const body = Buffer.from(JSON.stringify({ comment: 'x'.repeat(12 * 1024 * 1024) }));
      const path = '/apps/00000000-0000-4000-8000-000000000001/comments';
      const declared = await sendWholeThenRead(
        url,
        head('POST', path, { 'content-type': 'application/json', 'content-length': body.length }),
        body,
      );
      assertError(declared, 413, 'ERR_REQUEST_BODY_TOO_LARGE');
      assert.ok(declared.closed, 'the connection is closed after the answer');
      assert.equal(declared.error, undefined);

      // Chunked: the limit is found while reading.
      const chunked = Buffer.concat([
        Buffer.from(`${body.length.toString(16)}\r\n`),
        body,
        Buffer.from('\r\n0\r\n\r\n'),
      ]);
      const streamed = await sendWholeThenRead(
        url,
        head('POST', path, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
        chunked,
      );
      assertError(streamed, 413, 'ERR_REQUEST_BODY_TOO_LARGE');
      assert.ok(streamed.closed);
      assert.equal(streamed.error, undefined);
    });
  });

  describe('uploads refused before their body has arrived: the client reads the answer, then the connection closes', () => {
    const upload = async (dest: string, contentBytes: number, chunked = false) => {
      const body = Buffer.concat([
        multipartHead('refused.bin'),
        randomContent(contentBytes),
        multipartTail,
      ]);
      const framing: Record<string, string | number> = chunked
        ? { 'transfer-encoding': 'chunked' }
        : { 'content-length': body.length };
      const bytes = chunked
        ? Buffer.concat([
            Buffer.from(`${body.length.toString(16)}\r\n`),
            body,
            Buffer.from('\r\n0\r\n\r\n'),
          ])
        : body;
      return sendWholeThenRead(
        url,
        head('POST', `/secured/fileio/upload?dest=${q(dest)}`, {
          'content-type': multipartType,
          ...framing,
        }),
        bytes,
      );
    };

    test('into a folder that does not exist', async () => {
      const answer = await upload(`${alice}/no-such-folder`, 3 * 1024 * 1024);
      assertError(answer, 500, 'ERR_DOES_NOT_EXIST');
      assert.ok(answer.closed, 'the connection is closed after the answer');
      assert.equal(answer.error, undefined);
    });

    test('into a folder the caller may not write', async () => {
      const answer = await upload(gw.home('bob'), 3 * 1024 * 1024);
      assert.equal(answer.status, 500, answer.body);
      assert.match(answer.json?.error_code ?? '', /^ERR_NOT_(WRITEABLE|READABLE)$/);
      assert.ok(answer.closed);
      assert.equal(answer.error, undefined);
    });

    test('over MAX_UPLOAD_BYTES, declared or found while streaming', async () => {
      const declared = await upload(alice, MAX_UPLOAD + 2 * 1024 * 1024);
      assertError(declared, 413, 'ERR_REQUEST_BODY_TOO_LARGE');
      assert.ok(declared.closed);
      assert.equal(declared.error, undefined);
      const streamed = await upload(alice, MAX_UPLOAD + 2 * 1024 * 1024, true);
      assertError(streamed, 413, 'ERR_REQUEST_BODY_TOO_LARGE');
      assert.ok(streamed.closed);
      assert.equal(streamed.error, undefined);
      assert.deepEqual(await gw.rows(`${alice}/refused.bin`), []);
    });
  });

  describe("Node's own answers", () => {
    test('headers that never finish are cut with 408 after HEADERS_TIMEOUT_MS', async () => {
      const connection = await rawConnect(url);
      await connection.write('GET /livez HTTP/1.1\r\nhost: gateway\r\nx-slow: ');
      const answer = await connection.answer();
      assertError(answer, 408, 'ERR_REQUEST_TIMEOUT');
      assert.ok(
        answer.elapsedMs < HEADERS_TIMEOUT_MS + 2_000,
        `answered after ${answer.elapsedMs} ms`,
      );
      await connection.closed;
    });

    test('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS', async () => {
      const connection = await rawConnect(url);
      await connection.write('GET /livez HTTP/1.1\r\nhost: gateway\r\n\r\n');
      const answer = await connection.answer();
      assert.equal(answer.status, 200);
      const answeredAt = answer.elapsedMs;
      const closedAt = await connection.closed;
      // Node adds one second to the advertised timeout before it closes.
      assert.ok(
        closedAt - answeredAt < KEEP_ALIVE_TIMEOUT_MS + 1_000 + 1_500,
        `closed ${closedAt - answeredAt} ms after the answer`,
      );
    });

    for (const [what, requestLine] of [
      ['a NUL', 'GET /a\0b HTTP/1.1'],
      ['a space', 'GET /a b HTTP/1.1'],
      ['a tab', 'GET /a\tb HTTP/1.1'],
    ] as const) {
      test(`a request line with ${what} in the URL is 400 ERR_BAD_REQUEST`, async () => {
        const connection = await rawConnect(url);
        await connection.write(`${requestLine}\r\nhost: gateway\r\n\r\n`);
        const answer = await connection.answer();
        assertError(answer, 400, 'ERR_BAD_REQUEST');
        assert.equal(answer.headers.connection, 'close');
        await connection.closed;
      });
    }

    test('headers larger than the server takes are 431 ERR_HEADERS_TOO_LARGE, for a long URL too', async () => {
      for (const request of [
        `GET /livez HTTP/1.1\r\nhost: gateway\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
        `GET /livez?${'a'.repeat(20_000)} HTTP/1.1\r\nhost: gateway\r\n\r\n`,
      ]) {
        const connection = await rawConnect(url);
        await connection.write(request);
        const answer = await connection.answer();
        assertError(answer, 431, 'ERR_HEADERS_TOO_LARGE');
        await connection.closed;
      }
    });
  });
});

describe('a body the gateway holds back for a slow backend', () => {
  test('is not cut: only time spent waiting on the client counts as a stall', async () => {
    // Its own body timeout, above what a busy machine's pauses in this one process (client,
    // gateway and backend alike) reach, held three times over.
    const bodyTimeoutMs = 1500;
    const holdMs = 3 * bodyTimeoutMs;
    // An apps backend that reads nothing of the body for a while, then all of it.
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
      AUTH_JWKS_URL: jwks.url,
      APPS_URL: `http://127.0.0.1:${(backend.address() as AddressInfo).port}`,
      BODY_TIMEOUT_MS: String(bodyTimeoutMs),
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
});

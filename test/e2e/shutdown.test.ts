// Shutdown: SIGINT and SIGTERM stop the process (`npm start`'s src/main.ts, run as a child process)
// within a few seconds whatever its connections are doing: a request body never finished, an upload
// refused before its body arrived, headers never finished, idle keep-alive connections; for the
// gateway and for the standalone backends process (--backends-only) alike.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { startMainProcess, type MainProcess } from '../support/main-process.ts';
import { multipartHead, multipartType, randomContent } from '../support/fileio.ts';
import { rawConnect, type RawConnection } from '../support/raw-http.ts';
import {
  bearer,
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
} from '../support/tokens.ts';

const GRACE_MS = 300;
/**
 * Start-up of a child (Node strips the types of its sources as it loads them) is slow on a busy
 * machine; stopping must not be. A stop takes ≈ 0.35 s here when quiet and once took 3.5 s in a
 * clean-clone CI run under full load; what this guards against (a stop held by a connection until
 * its own timeouts, 10 s and more) stays far above the bound.
 */
const STOP_WITHIN_MS = 5_000;

const children: MainProcess[] = [];
const dataDirs: string[] = [];
after(async () => {
  await Promise.all(children.map((child) => child.stop('SIGKILL')));
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

async function startChild(env: Record<string, string>, args: string[] = []): Promise<MainProcess> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gateway-shutdown-'));
  dataDirs.push(dataDir);
  const child = await startMainProcess(
    { GATEWAY_DATA_DIR: dataDir, SHUTDOWN_GRACE_MS: String(GRACE_MS), ...env },
    args,
  );
  children.push(child);
  return child;
}

/** Lets a request just written reach the server before the signal: ordering, not an assertion. */
const arrive = () => new Promise((resolve) => setTimeout(resolve, 300));

async function assertStopsPromptly(
  child: MainProcess,
  signal: NodeJS.Signals,
  connections: RawConnection[],
): Promise<void> {
  const { code, ms } = await child.stop(signal);
  assert.equal(code, 0);
  assert.ok(ms < STOP_WITHIN_MS, `${signal} took ${ms} ms`);
  for (const connection of connections) await connection.closed;
}

test(
  'SIGINT stops the gateway within a few seconds while a request body is unfinished and a keep-alive connection idles',
  { timeout: 60_000 },
  async () => {
    const child = await startChild({});
    const unfinished = await rawConnect(child.url);
    await unfinished.write(
      'POST /send-notification HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"type":"data",',
    );
    const idle = await rawConnect(child.url);
    await idle.write('GET /livez HTTP/1.1\r\nhost: gateway\r\n\r\n');
    assert.equal((await idle.answer()).status, 200);
    const headersOnly = await rawConnect(child.url);
    await headersOnly.write('GET /livez HTTP/1.1\r\nhost: gateway\r\n');
    await arrive();
    await assertStopsPromptly(child, 'SIGINT', [unfinished, idle, headersOnly]);
  },
);

test(
  'SIGTERM stops the gateway within a few seconds after an upload was refused while its body was still coming',
  { timeout: 60_000 },
  async () => {
    const key = await createSigningKey('ES256', 'shutdown-key');
    const jwks = await startJwksServer([key]);
    try {
      const child = await startChild({ AUTH_JWKS_URL: jwks.url });
      const token = await signToken(key, userClaims('alice'));
      // First sight of alice makes her home; the upload goes to a folder that does not exist in it.
      const bootstrap = await fetch(`${child.url}/secured/bootstrap`, { headers: bearer(token) });
      assert.equal(bootstrap.status, 200);
      const upload = await rawConnect(child.url);
      const dest = encodeURIComponent('/platform/home/alice/missing');
      await upload.write(
        `POST /secured/fileio/upload?dest=${dest} HTTP/1.1\r\nhost: gateway\r\nauthorization: Bearer ${token}\r\ncontent-type: ${multipartType}\r\ncontent-length: ${64 * 1024 * 1024}\r\n\r\n`,
      );
      await upload.write(Buffer.concat([multipartHead('big.bin'), randomContent(2 * 1024 * 1024)]));
      const answer = await upload.answer();
      assert.equal(answer.json?.error_code, 'ERR_DOES_NOT_EXIST', answer.body);
      await assertStopsPromptly(child, 'SIGTERM', [upload]);
    } finally {
      await jwks.close();
    }
  },
);

test(
  'the standalone backends process (--backends-only) stops within a few seconds with a body unfinished and a connection idle',
  { timeout: 60_000 },
  async () => {
    const secret = 'shutdown-test-backend-secret';
    const child = await startChild({ BACKEND_SECRET: secret, EMBEDDED_BACKENDS: 'user-info' }, [
      '--backends-only',
    ]);
    const unfinished = await rawConnect(child.url);
    await unfinished.write(
      `POST /user-info/alerts?user=alice HTTP/1.1\r\nhost: backends\r\nx-backend-secret: ${secret}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"alert":`,
    );
    const idle = await rawConnect(child.url);
    await idle.write('GET /livez HTTP/1.1\r\nhost: backends\r\n\r\n');
    assert.equal((await idle.answer()).status, 200);
    await arrive();
    await assertStopsPromptly(child, 'SIGINT', [unfinished, idle]);
  },
);

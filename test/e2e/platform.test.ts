// The embedded platform: sessions and preferences served by the embedded user-info backend, on
// SQLite and PostgreSQL, durable across restarts, private to the gateway, and movable to a process
// of its own.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { Client } from 'undici';
import {
  noRateLimits,
  requiredInCi,
  startGateway,
  type RunningGateway,
} from '../support/gateway.ts';
import { pgDatabaseUrl } from '../support/postgres.ts';
import {
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
  bearer,
  type JwksServer,
  type SigningKey,
} from '../support/tokens.ts';
import { freePort } from '../support/bundle-process.ts';
import { nodeCacheEnv, nodeDyingWithTest } from '../support/child-env.ts';

const projectDir = path.resolve(import.meta.dirname, '../..');
const aliceHome = '/platform/home/alice';
const bobHome = '/platform/home/bob';
const folder = (folderPath: string, id = folderPath) => ({ id, path: folderPath });

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

let key: SigningKey;
let jwks: JwksServer;
const tokens: Record<string, string> = {};

before(async () => {
  key = await createSigningKey('ES256', 'platform-key');
  jwks = await startJwksServer([key]);
  for (const user of ['alice', 'bob']) tokens[user] = await signToken(key, userClaims(user));
});
after(() => jwks.close());

const tempDir = () => mkdtempSync(path.join(tmpdir(), 'gateway-platform-'));

interface Answer {
  status: number;
  body: any;
  text: string;
}

interface CallOptions {
  /** Sent as JSON (JSON.stringify'd). */
  json?: unknown;
  /** Sent as is, with content-type application/json. */
  raw?: string;
  headers?: Record<string, string>;
}

/** One request to `baseUrl`; `user` null means no credentials. */
async function call(
  baseUrl: string,
  user: string | null,
  method: string,
  route: string,
  options: CallOptions = {},
): Promise<Answer> {
  const body =
    options.raw ?? (options.json === undefined ? undefined : JSON.stringify(options.json));
  const response = await fetch(baseUrl + route, {
    method,
    headers: {
      ...(user ? bearer(tokens[user]!) : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body,
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text };
}

function assert2xx(answer: Answer, what: string): void {
  assert.ok(
    answer.status >= 200 && answer.status < 300,
    `${what}: expected 2xx, got ${answer.status} ${answer.text}`,
  );
}

/** Runs `body` with the database settings of one engine: SQLite (nothing to set) or a PostgreSQL database of its own. */
async function withEngine(
  t: TestContext,
  engine: 'sqlite' | 'postgres',
  body: (databaseEnv: Record<string, string>) => Promise<void>,
): Promise<void> {
  if (engine === 'sqlite') return body({});
  const databaseUrl = requiredInCi('DATABASE_URL');
  if (!databaseUrl) return t.skip('DATABASE_URL is not set (CI sets it)');
  const pgDatabase = await pgDatabaseUrl(databaseUrl);
  try {
    await body({ DATABASE_URL: pgDatabase.url });
  } finally {
    await pgDatabase.drop();
  }
}

const engines = ['sqlite', 'postgres'] as const;

/** A gateway trusting the test JWKS, on its own data directory unless `env` names one. */
const gatewayWith = (env: Record<string, string>) =>
  startGateway({ ...noRateLimits, AUTH_JWKS_URL: jwks.url, ...env });

/** Environment for a child process: nothing inherited but PATH and HOME (no DATABASE_URL, *_URL, NODE_TEST_CONTEXT...). */
const childEnv = (env: Record<string, string>) => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? tmpdir(),
  ...nodeCacheEnv(),
  ...env,
});

const backendsOnlyArgs = ['src/main.ts', '--backends', 'user-info', '--backends-only'];

interface Standalone {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** `node src/main.ts --backends user-info --backends-only`, waited for until `/livez` answers. */
async function startStandalone(env: Record<string, string>): Promise<Standalone> {
  const port = await freePort();
  const child = spawn(...nodeDyingWithTest(backendsOnlyArgs), {
    cwd: projectDir,
    env: childEnv({ PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const standalone: Standalone = {
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`standalone backends exited with ${child.exitCode}: ${output}`);
    const live = await fetch(`${standalone.url}/livez`).then(
      (response) => response.ok,
      () => false,
    );
    if (live) return standalone;
    if (Date.now() > deadline) {
      await standalone.stop();
      throw new Error(`standalone backends did not answer /livez within 30 s: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One request over the embedded backends' Unix socket, as any local process could send it. */
async function overSocket(
  socketPath: string,
  method: 'GET' | 'POST',
  route: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  const client = new Client('http://embedded-backends', { socketPath });
  try {
    const response = await client.request({ method, path: route, headers, body });
    const text = await response.body.text();
    return { status: response.statusCode, body: text ? JSON.parse(text) : undefined, text };
  } finally {
    await client.close();
  }
}

// ---------------------------------------------------------------------------------------------
// The shared checks: sessions and preferences over HTTP for alice and bob, on a fresh store
// ---------------------------------------------------------------------------------------------

async function exerciseSessionsAndPreferences(url: string): Promise<void> {
  const sessions = (user: string, method: string, options?: CallOptions) =>
    call(url, user, method, '/secured/sessions', options);
  const preferences = (user: string, method: string, options?: CallOptions) =>
    call(url, user, method, '/secured/preferences', options);

  // Sessions: {} when none; any JSON document back as given; per user; DELETE always 2xx.
  for (const user of ['alice', 'bob'])
    assert.deepEqual(await sessions(user, 'GET'), { status: 200, body: {}, text: '{}' });
  const aliceSession = {
    open: ['/data/a.txt'],
    layout: { split: 0.4, dark: true },
    note: 'ünïcode ✓',
  };
  assert2xx(await sessions('alice', 'POST', { json: aliceSession }), 'POST object session');
  assert.deepEqual((await sessions('alice', 'GET')).body, aliceSession);
  assert.deepEqual((await sessions('bob', 'GET')).body, {}, 'bob does not see alice’s session');
  const bobSession = ['tab-1', 2, null, { x: false }];
  assert2xx(await sessions('bob', 'POST', { json: bobSession }), 'POST array session');
  assert.deepEqual((await sessions('bob', 'GET')).body, bobSession);
  assert.deepEqual(
    (await sessions('alice', 'GET')).body,
    aliceSession,
    'alice still sees only her own',
  );
  assert2xx(await sessions('alice', 'POST', { json: 'just a string' }), 'POST string session');
  assert.equal((await sessions('alice', 'GET')).body, 'just a string');
  assert2xx(await sessions('alice', 'DELETE'), 'DELETE stored session');
  assert.deepEqual((await sessions('alice', 'GET')).body, {});
  assert2xx(await sessions('alice', 'DELETE'), 'DELETE with nothing stored');
  assert.deepEqual((await sessions('alice', 'GET')).body, {});
  assert.deepEqual(
    (await sessions('bob', 'GET')).body,
    bobSession,
    'alice’s DELETE leaves bob’s session',
  );
  // Byte for byte: numbers JavaScript cannot hold exactly, and the sender's spacing, survive.
  const exact = '{"id": 12345678901234567890, "ratio": 1.50, "tiny": 1e-400}';
  assert2xx(await sessions('alice', 'POST', { raw: exact }), 'POST exact session');
  assert.equal((await sessions('alice', 'GET')).text, exact);
  assert2xx(await sessions('alice', 'DELETE'), 'DELETE exact session');

  // Preferences: the output-folder defaults, under every spelling.
  const aliceSystem = folder(`${aliceHome}/analyses`);
  const defaults = (await preferences('alice', 'GET')).body;
  assert.deepEqual(defaults.defaultOutputFolder, aliceSystem);
  assert.deepEqual(defaults.systemDefaultOutputDir, aliceSystem);
  assert.deepEqual(defaults.default_output_folder, aliceSystem);
  assert.deepEqual(defaults.system_default_output_dir, aliceSystem);
  assert.deepEqual(
    (await preferences('bob', 'GET')).body.systemDefaultOutputDir,
    folder(`${bobHome}/analyses`),
  );

  // POST replaces the whole object and answers {preferences} with the defaults present.
  let answer = await preferences('alice', 'POST', { json: { theme: 'dark', rows: 50 } });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.preferences.theme, 'dark');
  assert.equal(answer.body.preferences.rows, 50);
  assert.deepEqual(answer.body.preferences.defaultOutputFolder, aliceSystem);
  assert.deepEqual(answer.body.preferences.system_default_output_dir, aliceSystem);
  answer = await preferences('alice', 'POST', { json: { theme: 'light' } });
  assert.equal(answer.status, 200, answer.text);
  assert.equal('rows' in answer.body.preferences, false, 'a key left out is removed');
  let stored = (await preferences('alice', 'GET')).body;
  assert.equal(stored.theme, 'light');
  assert.equal('rows' in stored, false);
  assert.deepEqual(stored.defaultOutputFolder, aliceSystem);

  // A chosen default folder, as a path string or as {id, path}.
  const aliceChoice = folder(`${aliceHome}/results`);
  answer = await preferences('alice', 'POST', {
    json: { theme: 'light', default_output_folder: aliceChoice.path },
  });
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(answer.body.preferences.defaultOutputFolder, aliceChoice);
  stored = (await preferences('alice', 'GET')).body;
  assert.deepEqual(
    [stored.defaultOutputFolder, stored.default_output_folder, stored.systemDefaultOutputDir],
    [aliceChoice, aliceChoice, aliceSystem],
  );
  const bobChoice = folder(`${bobHome}/out`, 'c0ffee-folder-id');
  assert.equal(
    (await preferences('bob', 'POST', { json: { lang: 'fr', default_output_folder: bobChoice } }))
      .status,
    200,
  );
  stored = (await preferences('bob', 'GET')).body;
  assert.deepEqual(
    [stored.lang, stored.defaultOutputFolder, stored.default_output_folder],
    ['fr', bobChoice, bobChoice],
  );
  stored = (await preferences('alice', 'GET')).body;
  assert.deepEqual(
    [stored.lang, stored.theme, stored.defaultOutputFolder],
    [undefined, 'light', aliceChoice],
    'alice does not see bob’s preferences',
  );

  // DELETE: 2xx, the defaults remain.
  assert2xx(await preferences('alice', 'DELETE'), 'DELETE preferences');
  stored = (await preferences('alice', 'GET')).body;
  assert.equal('theme' in stored, false);
  assert.deepEqual(
    [stored.defaultOutputFolder, stored.system_default_output_dir],
    [aliceSystem, aliceSystem],
  );
  assert.equal(
    (await preferences('bob', 'GET')).body.lang,
    'fr',
    'alice’s DELETE leaves bob’s preferences',
  );

  // Bad input.
  answer = await preferences('alice', 'POST', { json: ['not', 'an', 'object'] });
  assert.equal(answer.status, 400, answer.text);
  assert.equal(typeof answer.body.error_code, 'string');
  for (const route of ['/secured/preferences', '/secured/sessions']) {
    answer = await call(url, 'alice', 'POST', route, { raw: '{"theme": ' });
    assert.deepEqual(
      [answer.status, answer.body?.error_code],
      [400, 'ERR_INVALID_JSON'],
      `${route}: ${answer.text}`,
    );
    for (const method of ['GET', 'POST', 'DELETE']) {
      answer = await call(url, null, method, route, method === 'POST' ? { json: {} } : {});
      assert.deepEqual(
        [answer.status, answer.body?.error_code],
        [401, 'ERR_NOT_AUTHORIZED'],
        `${method} ${route} without a token`,
      );
    }
  }
  assert.equal(
    (await preferences('alice', 'GET')).body.theme,
    undefined,
    'refused writes stored nothing',
  );

  for (const user of ['alice', 'bob']) {
    assert2xx(await sessions(user, 'DELETE'), 'cleanup');
    assert2xx(await preferences(user, 'DELETE'), 'cleanup');
  }
}

// ---------------------------------------------------------------------------------------------
// 1. Sessions and preferences end to end
// ---------------------------------------------------------------------------------------------

describe('sessions and preferences through the gateway', () => {
  for (const engine of engines) {
    test(`on ${engine}`, (t) =>
      withEngine(t, engine, async (databaseEnv) => {
        const running = await gatewayWith(databaseEnv);
        try {
          assert.equal(running.gateway.store.engine, engine);
          await exerciseSessionsAndPreferences(running.url);
        } finally {
          await running.close();
        }
      }));
  }
});

// ---------------------------------------------------------------------------------------------
// 2. Restart persistence
// ---------------------------------------------------------------------------------------------

describe('data survives a gateway restart', () => {
  for (const engine of engines) {
    test(`on ${engine}`, (t) =>
      withEngine(t, engine, async (databaseEnv) => {
        // On PostgreSQL the second gateway gets a fresh data directory: the data must come from the database.
        const dirs = [tempDir(), engine === 'postgres' ? tempDir() : undefined];
        const session = { restored: true, tabs: [1, 2, 3] };
        const choice = folder(`${aliceHome}/kept`);
        try {
          const first = await gatewayWith({ ...databaseEnv, GATEWAY_DATA_DIR: dirs[0]! });
          try {
            assert2xx(
              await call(first.url, 'alice', 'POST', '/secured/sessions', { json: session }),
              'POST session',
            );
            assert2xx(
              await call(first.url, 'bob', 'POST', '/secured/sessions', { json: 'bob-state' }),
              'POST session',
            );
            assert2xx(
              await call(first.url, 'alice', 'POST', '/secured/preferences', {
                json: { theme: 'dark', default_output_folder: choice },
              }),
              'POST preferences',
            );
          } finally {
            await first.close();
          }
          const second = await gatewayWith({
            ...databaseEnv,
            GATEWAY_DATA_DIR: dirs[1] ?? dirs[0]!,
          });
          try {
            assert.deepEqual(
              (await call(second.url, 'alice', 'GET', '/secured/sessions')).body,
              session,
            );
            assert.equal(
              (await call(second.url, 'bob', 'GET', '/secured/sessions')).body,
              'bob-state',
            );
            const preferences = (await call(second.url, 'alice', 'GET', '/secured/preferences'))
              .body;
            assert.deepEqual(
              [
                preferences.theme,
                preferences.defaultOutputFolder,
                preferences.systemDefaultOutputDir,
              ],
              ['dark', choice, folder(`${aliceHome}/analyses`)],
            );
          } finally {
            await second.close();
          }
        } finally {
          for (const dir of dirs) if (dir) rmSync(dir, { recursive: true, force: true });
        }
      }));
  }
});

// ---------------------------------------------------------------------------------------------
// 3. Embedded backends are private
// ---------------------------------------------------------------------------------------------

describe('embedded backends are not reachable from the public listener', () => {
  let running: RunningGateway;
  const marker = `secret-session-${randomBytes(8).toString('hex')}`;

  before(async () => {
    running = await gatewayWith({});
    assert2xx(
      await call(running.url, 'alice', 'POST', '/secured/sessions', { json: { marker } }),
      'POST session',
    );
    assert2xx(
      await call(running.url, 'alice', 'POST', '/secured/preferences', { json: { marker } }),
      'POST preferences',
    );
  });
  after(() => running.close());

  const socketPath = () => {
    const runDir = path.join(running.dataDir, 'run');
    const sockets = readdirSync(runDir).filter((name) => name.endsWith('.sock'));
    assert.equal(sockets.length, 1, `one backend socket in ${runDir}: ${sockets.join(', ')}`);
    return path.join(runDir, sockets[0]!);
  };

  test('backend paths on the public port are 404, with or without a token', async () => {
    for (const route of [
      '/user-info/sessions/alice@localhost',
      '/user-info/preferences/alice@localhost',
      '/sessions/alice@localhost',
      '/preferences/alice@localhost',
      '/user-info/livez',
    ]) {
      for (const user of [null, 'alice']) {
        const answer = await call(running.url, user, 'GET', route, {
          headers: { 'x-backend-secret': 'x'.repeat(43) },
        });
        assert.equal(answer.status, 404, `${route} (${user ?? 'anonymous'}): ${answer.text}`);
        assert.equal(answer.body?.error_code, 'ERR_NOT_FOUND');
        assert.ok(!answer.text.includes(marker), 'never the stored data');
      }
    }
  });

  test('the socket is 0600 in a 0700 folder of <dataDir>/run', () => {
    const socket = socketPath();
    assert.ok(statSync(socket).isSocket());
    assert.equal(statSync(socket).mode & 0o777, 0o600);
    assert.equal(statSync(path.dirname(socket)).mode & 0o777, 0o700);
  });

  test('the socket refuses requests without the secret (403 ERR_FORBIDDEN) and never answers the data', async () => {
    const socket = socketPath();
    for (const headers of [
      {},
      { 'x-backend-secret': 'wrong' },
      { 'x-backend-secret': randomBytes(32).toString('base64url') },
    ] as Record<string, string>[]) {
      for (const route of [
        '/user-info/sessions/alice@localhost',
        '/user-info/preferences/alice@localhost',
      ]) {
        const answer = await overSocket(socket, 'GET', route, headers);
        assert.deepEqual(
          [answer.status, answer.body?.error_code],
          [403, 'ERR_FORBIDDEN'],
          `${route} ${JSON.stringify(headers)}: ${answer.text}`,
        );
        assert.ok(!answer.text.includes(marker));
      }
      const write = await overSocket(
        socket,
        'POST',
        '/user-info/sessions/alice@localhost',
        { ...headers, 'content-type': 'application/json' },
        '{"forged":true}',
      );
      assert.equal(write.status, 403);
    }
    assert.deepEqual(
      (await call(running.url, 'alice', 'GET', '/secured/sessions')).body,
      { marker },
      'the refused write changed nothing',
    );
  });

  test('a client-sent x-backend-secret header changes nothing on public routes', async () => {
    const headers = { 'x-backend-secret': 'client-chosen-value-0123456789' };
    const session = await call(running.url, 'alice', 'GET', '/secured/sessions', { headers });
    assert.deepEqual([session.status, session.body], [200, { marker }]);
    const preferences = await call(running.url, 'alice', 'GET', '/secured/preferences', {
      headers,
    });
    assert.deepEqual([preferences.status, preferences.body.marker], [200, marker]);
    assert.deepEqual(
      (await call(running.url, 'bob', 'GET', '/secured/sessions', { headers })).body,
      {},
    );
    assert.equal(
      (await call(running.url, null, 'GET', '/secured/sessions', { headers })).status,
      401,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// 4. user-info as its own process (--backends-only), reached through USER_INFO_URL
// ---------------------------------------------------------------------------------------------

describe('user-info in a separate process', () => {
  for (const engine of engines) {
    test(`behaves the same, on ${engine}`, (t) =>
      withEngine(t, engine, async (databaseEnv) => {
        const secret = randomBytes(16).toString('hex');
        const childDir = tempDir();
        let standalone: Standalone | undefined;
        let running: RunningGateway | undefined;
        try {
          standalone = await startStandalone({
            BACKEND_SECRET: secret,
            GATEWAY_DATA_DIR: childDir,
            ...databaseEnv,
          });
          // The gateway keeps its own (SQLite) store: the user-info data must live with the child.
          running = await gatewayWith({
            USER_INFO_URL: `${standalone.url}/user-info`,
            USER_INFO_SECRET: secret,
            EMBEDDED_BACKENDS: 'groups,data-info,apps',
          });
          await exerciseSessionsAndPreferences(running.url);

          const marker = { where: 'child', n: randomBytes(4).toString('hex') };
          assert2xx(
            await call(running.url, 'alice', 'POST', '/secured/sessions', { json: marker }),
            'POST session',
          );
          const direct = `${standalone.url}/user-info/sessions/alice@localhost`;
          for (const headers of [{}, { 'x-backend-secret': 'f'.repeat(32) }] as Record<
            string,
            string
          >[]) {
            const refused = await call(
              standalone.url,
              null,
              'GET',
              '/user-info/sessions/alice@localhost',
              { headers },
            );
            assert.deepEqual(
              [refused.status, refused.body?.error_code],
              [403, 'ERR_FORBIDDEN'],
              `${direct} ${JSON.stringify(headers)}: ${refused.text}`,
            );
            assert.ok(!refused.text.includes(marker.n));
          }
          const allowed = await call(
            standalone.url,
            null,
            'GET',
            '/user-info/sessions/alice@localhost',
            { headers: { 'x-backend-secret': secret } },
          );
          assert.deepEqual(
            [allowed.status, allowed.body],
            [200, marker],
            'the child holds the data',
          );
          const local = await running.gateway.store.db
            .selectFrom('user_sessions')
            .select('id')
            .execute();
          assert.deepEqual(local, [], "nothing in the gateway's own store");

          await standalone.stop();
          const down = await call(running.url, 'alice', 'GET', '/secured/sessions');
          assert.deepEqual(
            [down.status, down.body?.error_code, down.body?.backend],
            [503, 'ERR_UNAVAILABLE', 'user-info'],
            down.text,
          );
        } finally {
          await running?.close();
          await standalone?.stop();
          rmSync(childDir, { recursive: true, force: true });
        }
      }));
  }

  test('--backends-only without BACKEND_SECRET exits non-zero naming it, in one line', async () => {
    const dataDir = tempDir();
    try {
      const child = spawn(...nodeDyingWithTest(backendsOnlyArgs), {
        cwd: projectDir,
        env: childEnv({
          PORT: String(await freePort()),
          HOST: '127.0.0.1',
          GATEWAY_DATA_DIR: dataDir,
          LOG_LEVEL: 'warn',
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await new Promise<number | null>((resolve) =>
        child.once('exit', (exitCode) => resolve(exitCode)),
      );
      clearTimeout(timer);
      assert.notEqual(code, 0);
      assert.notEqual(code, null, 'exited by itself');
      const lines = stderr.trim().split('\n');
      assert.equal(lines.length, 1, stderr);
      assert.match(lines[0]!, /BACKEND_SECRET/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

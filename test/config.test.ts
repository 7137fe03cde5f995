// Configuration: defaults, validation that names the variable, the process refusing to start, and the
// settings several instances share (BLOB_STORE_URL, keys given as values or files).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { backendNames, embeddedBackendNames } from '../src/common/backend-names.ts';
import { ConfigError, loadConfig } from '../src/config/index.ts';

const projectDir = path.resolve(import.meta.dirname, '..');

describe('loadConfig defaults (empty environment)', () => {
  const config = loadConfig({});

  test('listener and data directory', () => {
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.dataDir, path.resolve('./data'));
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.redisUrl, undefined);
    assert.equal(config.redisCommandTimeoutMs, 250);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.trustProxy, false);
  });

  test('auth: embedded keys, default admin roles, 30 s skew and JWKS cooldown', () => {
    assert.equal(config.auth.embeddedKeys, true);
    assert.equal(config.auth.jwksUrl, undefined);
    assert.deepEqual(config.auth.publicKeyFiles, []);
    assert.deepEqual(config.auth.adminRoles, ['de-admin', 'super-admin']);
    assert.deepEqual(config.auth.dataStoreAdminRoles, ['data-store-admin', 'super-admin']);
    assert.equal(config.auth.requireExp, true);
    assert.equal(config.auth.clockSkewSeconds, 30);
    assert.equal(config.auth.jwksCooldownSeconds, 30);
  });

  test('rate limits: 100 per user per minute, 10 anonymous, burst 150, no named clients (600 each)', () => {
    assert.deepEqual(config.rateLimit, {
      userPerMin: 100,
      anonPerMin: 10,
      burst: 150,
      clients: [],
      clientPerMin: 600,
    });
  });

  test('every backend is embedded (no URL) with the 30 s default timeout', () => {
    assert.deepEqual(Object.keys(config.backends).sort(), [...backendNames].sort());
    for (const name of backendNames)
      assert.deepEqual(
        config.backends[name],
        { url: undefined, timeoutMs: 30_000, secret: undefined },
        name,
      );
  });
});

describe('embedded platform settings', () => {
  test('by default every embedded backend runs, in zone "platform", with no shared backend secret', () => {
    const config = loadConfig({});
    assert.deepEqual(config.embeddedBackends, [
      'user-info',
      'groups',
      'data-info',
      'apps',
      'metadata',
      'notification-agent',
      'genomesvc',
      'analyses',
      'search',
      'email',
      'requests',
      'qms',
      'subscriptions',
      'resource-usage',
      'data-usage',
    ]);
    assert.deepEqual(config.dataStore, {
      zone: 'platform',
      defaultOutputFolder: 'analyses',
      dir: path.resolve('./data/data-store'),
      maxUploadBytes: 10 * 1024 ** 3,
      maxEditBytes: 8 * 1024 ** 2,
      trashRetentionDays: 30,
      orphanGraceMs: 3_600_000,
      urlImportAllowPrivateNetworks: false,
      ticketBaseUrl: 'http://localhost:8080/tickets',
    });
    assert.equal(config.backendSecret, undefined);
  });

  test('ticket links follow PORT unless TICKET_BASE_URL says where the public reaches them', () => {
    assert.equal(
      loadConfig({ PORT: '9000' }).dataStore.ticketBaseUrl,
      'http://localhost:9000/tickets',
    );
    assert.equal(
      loadConfig({ TICKET_BASE_URL: 'https://data.example.org/t/' }).dataStore.ticketBaseUrl,
      'https://data.example.org/t',
    );
  });

  test('genome links follow PORT unless GENOME_BASE_URL says where the public reaches them', () => {
    assert.equal(
      loadConfig({ PORT: '9000' }).genomes.baseUrl,
      'http://localhost:9000/genomesvc/genomes',
    );
    assert.equal(
      loadConfig({ GENOME_BASE_URL: 'https://de.example.org/genomesvc/genomes/' }).genomes.baseUrl,
      'https://de.example.org/genomesvc/genomes',
    );
    assert.throws(() => loadConfig({ GENOME_BASE_URL: 'ftp://x' }), /GENOME_BASE_URL/);
  });

  test('WORKERS: 1 by default, a count from 1 to 256, or auto for one per core', () => {
    assert.equal(loadConfig({}).workers, 1);
    assert.equal(loadConfig({ WORKERS: '4' }).workers, 4);
    assert.equal(loadConfig({ WORKERS: 'auto' }).workers, availableParallelism());
    for (const wrong of ['0', '-1', '2.5', 'many', '257'])
      assert.throws(
        () => loadConfig({ WORKERS: wrong }),
        new RegExp(`WORKERS must be auto or an integer from 1 to 256, got "${wrong}"`),
      );
  });

  test('EMBEDDED_BACKENDS takes a list of backend names, all or none', () => {
    assert.deepEqual(
      loadConfig({ EMBEDDED_BACKENDS: ' user-info , groups,user-info' }).embeddedBackends,
      ['user-info', 'groups'],
    );
    assert.deepEqual(loadConfig({ EMBEDDED_BACKENDS: 'none' }).embeddedBackends, []);
    // A backend not embedded yet may be named: it is skipped (with a warning) until it is.
    assert.deepEqual(loadConfig({ EMBEDDED_BACKENDS: 'user-info,qms' }).embeddedBackends, [
      'user-info',
      'qms',
    ]);
    assert.equal(
      loadConfig({ EMBEDDED_BACKENDS: 'ALL' }).embeddedBackends.length,
      embeddedBackendNames.length,
    );
  });

  test('SEND_NOTIFICATION_ALLOW lists addresses and CIDR ranges, loopback by default', () => {
    assert.deepEqual(loadConfig({}).notifications.sendAllow, ['127.0.0.0/8', '::1/128']);
    assert.deepEqual(
      loadConfig({ SEND_NOTIFICATION_ALLOW: '10.0.0.0/8, fd00::/8,192.0.2.7' }).notifications
        .sendAllow,
      ['10.0.0.0/8', 'fd00::/8', '192.0.2.7'],
    );
    for (const bad of ['10.0.0.0/33', 'example.org', '::1/129', '10.0.0.0/8/1', '10.0.0.0/x']) {
      assert.throws(
        () => loadConfig({ SEND_NOTIFICATION_ALLOW: bad }),
        (error: unknown) =>
          error instanceof ConfigError && error.variable === 'SEND_NOTIFICATION_ALLOW',
        bad,
      );
    }
  });

  test('a short BACKEND_SECRET is refused without echoing it', () => {
    assert.throws(
      () => loadConfig({ BACKEND_SECRET: 'hunter2' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.variable === 'BACKEND_SECRET' &&
        !error.message.includes('hunter2'),
    );
    assert.equal(loadConfig({ BACKEND_SECRET: 'x'.repeat(16) }).backendSecret, 'x'.repeat(16));
  });
});

describe('OAuth settings for the third-party job API', () => {
  const client = {
    EXTAPI_AUTHORIZE_URL: 'https://jobs.example/authorize',
    EXTAPI_TOKEN_URL: 'https://jobs.example/token',
    EXTAPI_CLIENT_ID: 'gw',
  };

  test('extapi is configured by its authorize URL, token URL and client id; the callback and UI follow PORT', () => {
    const none = loadConfig({ PORT: '9000' });
    assert.equal(none.oauth.apis.extapi, undefined);
    assert.equal(none.oauth.uiBaseUrl, 'http://localhost:9000/');
    assert.equal(none.oauth.tokenEncryptionKey, undefined);
    assert.deepEqual(loadConfig({ PORT: '9000', ...client }).oauth.apis.extapi, {
      authorizeUrl: 'https://jobs.example/authorize',
      tokenUrl: 'https://jobs.example/token',
      clientId: 'gw',
      redirectUri: 'http://localhost:9000/oauth/callback/extapi',
    });
    const full = loadConfig({
      ...client,
      EXTAPI_CLIENT_SECRET: 's',
      EXTAPI_REDIRECT_URI: 'https://gw.example/oauth/callback/extapi',
      UI_BASE_URL: 'https://ui.example/de/',
    });
    assert.equal(full.oauth.apis.extapi?.clientSecret, 's');
    assert.equal(full.oauth.apis.extapi?.redirectUri, 'https://gw.example/oauth/callback/extapi');
    assert.equal(full.oauth.uiBaseUrl, 'https://ui.example/de/');
  });

  // OAUTH_APIS lists the APIs; each reads <API>_OAUTH_*; extapi's own names win over its former ones.
  test('OAUTH_APIS: each API configured by its <API>_OAUTH_* variables; one listed but not configured, or a bad name, is refused', () => {
    const apis = loadConfig({
      PORT: '9000',
      OAUTH_APIS: 'extapi, tapis',
      ...client,
      EXTAPI_OAUTH_AUTHORIZE_URL: 'https://new.example/authorize',
      EXTAPI_OAUTH_TOKEN_URL: 'https://new.example/token',
      EXTAPI_OAUTH_CLIENT_ID: 'gw-new',
      TAPIS_OAUTH_AUTHORIZE_URL: 'https://tapis.example/authorize',
      TAPIS_OAUTH_TOKEN_URL: 'https://tapis.example/token',
      TAPIS_OAUTH_CLIENT_ID: 'gw-tapis',
      TAPIS_OAUTH_CLIENT_SECRET: 't',
    }).oauth.apis;
    assert.deepEqual(Object.keys(apis), ['extapi', 'tapis']);
    assert.equal(apis.extapi!.clientId, 'gw-new');
    assert.deepEqual(apis.tapis, {
      authorizeUrl: 'https://tapis.example/authorize',
      tokenUrl: 'https://tapis.example/token',
      clientId: 'gw-tapis',
      clientSecret: 't',
      redirectUri: 'http://localhost:9000/oauth/callback/tapis',
    });
    assert.throws(
      () => loadConfig({ OAUTH_APIS: 'extapi,tapis', ...client }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.variable === 'OAUTH_APIS' &&
        /TAPIS_OAUTH_AUTHORIZE_URL/.test(error.message),
    );
    assert.throws(
      () => loadConfig({ OAUTH_APIS: 'Bad_Name!' }),
      (error: unknown) => error instanceof ConfigError && error.variable === 'OAUTH_APIS',
    );
  });

  test('part of the extapi client is refused, naming what is missing', () => {
    assert.throws(
      () =>
        loadConfig({ EXTAPI_AUTHORIZE_URL: client.EXTAPI_AUTHORIZE_URL, EXTAPI_CLIENT_ID: 'gw' }),
      (error: unknown) => error instanceof ConfigError && error.variable === 'EXTAPI_TOKEN_URL',
    );
    assert.throws(
      () => loadConfig({ ...client, EXTAPI_TOKEN_URL: 'ftp://jobs.example/token' }),
      (error: unknown) => error instanceof ConfigError && error.variable === 'EXTAPI_TOKEN_URL',
    );
  });

  test('TOKEN_ENCRYPTION_KEY is 32 bytes in hex or base64, and a wrong one is refused without echoing it', () => {
    const key = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7));
    assert.deepEqual(
      loadConfig({ TOKEN_ENCRYPTION_KEY: key.toString('hex') }).oauth.tokenEncryptionKey,
      key,
    );
    assert.deepEqual(
      loadConfig({ TOKEN_ENCRYPTION_KEY: key.toString('base64') }).oauth.tokenEncryptionKey,
      key,
    );
    assert.deepEqual(
      loadConfig({ TOKEN_ENCRYPTION_KEY: key.toString('base64url') }).oauth.tokenEncryptionKey,
      key,
    );
    for (const bad of [
      key.subarray(0, 16).toString('base64'),
      `${key.toString('hex')}00`,
      'not a key!',
    ]) {
      assert.throws(
        () => loadConfig({ TOKEN_ENCRYPTION_KEY: bad }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.variable === 'TOKEN_ENCRYPTION_KEY' &&
          !error.message.includes(bad),
        bad,
      );
    }
  });
});

describe('loadConfig reads the environment', () => {
  test('values are parsed and trimmed', () => {
    const config = loadConfig({
      PORT: ' 9000 ',
      APPS_URL: 'http://apps.internal:8080/base',
      AUTH_JWKS_URL: 'https://idp.example.org/certs',
      ADMIN_ROLES: 'ops, auditors,,',
      TRUST_PROXY: 'yes',
      DATABASE_URL: 'postgresql://gw@db/gateway',
    });
    assert.equal(config.port, 9000);
    assert.equal(config.backends.apps.url?.href, 'http://apps.internal:8080/base');
    assert.equal(config.backends.metadata.url, undefined);
    assert.equal(config.auth.jwksUrl?.href, 'https://idp.example.org/certs');
    assert.equal(config.auth.embeddedKeys, false);
    assert.deepEqual(config.auth.adminRoles, ['ops', 'auditors']);
    assert.equal(config.trustProxy, true);
    assert.equal(config.databaseUrl, 'postgresql://gw@db/gateway');
  });

  test("TRUST_PROXY takes the proxies' addresses; RATE_LIMIT_CLIENTS names clients with their own budget", () => {
    const config = loadConfig({
      TRUST_PROXY: '10.0.0.5, 10.1.0.0/16,::1',
      RATE_LIMIT_CLIENTS: '192.0.2.10',
    });
    assert.deepEqual(config.trustProxy, ['10.0.0.5', '10.1.0.0/16', '::1']);
    assert.deepEqual(config.rateLimit.clients, ['192.0.2.10']);
    assert.equal(config.rateLimit.clientPerMin, 600);
    const defaults = loadConfig({});
    assert.equal(defaults.trustProxy, false);
    assert.deepEqual(defaults.rateLimit.clients, []);
  });

  test('AUTH_PUBLIC_KEYS alone also turns the embedded key off', () => {
    const config = loadConfig({ AUTH_PUBLIC_KEYS: '/keys/a.pem,/keys/b.pem' });
    assert.deepEqual(config.auth.publicKeyFiles, ['/keys/a.pem', '/keys/b.pem']);
    assert.equal(config.auth.embeddedKeys, false);
  });
});

test('the limits on failed sign-ins: defaults, and a longest lock no shorter than the first', () => {
  assert.deepEqual(loadConfig({}).identity.signIn, {
    windowSeconds: 900,
    user: { maxFailures: 5, lockoutSeconds: 60, maxLockoutSeconds: 900 },
    address: { maxFailures: 20, lockoutSeconds: 900, maxLockoutSeconds: 86_400 },
  });
  const set = loadConfig({
    SIGNIN_MAX_FAILURES: '0',
    SIGNIN_LOCKOUT_SECONDS: '1200',
    SIGNIN_ADDRESS_MAX_FAILURES: '50',
    SIGNIN_ADDRESS_MAX_LOCKOUT_SECONDS: '3600',
    SIGNIN_FAILURE_WINDOW_SECONDS: '60',
  }).identity.signIn;
  assert.deepEqual(set, {
    windowSeconds: 60,
    // A first lock longer than the default longest one makes the longest one that long.
    user: { maxFailures: 0, lockoutSeconds: 1200, maxLockoutSeconds: 1200 },
    address: { maxFailures: 50, lockoutSeconds: 900, maxLockoutSeconds: 3600 },
  });
});

describe('invalid values throw a ConfigError naming the variable', () => {
  const cases: Record<string, string>[] = [
    { PORT: 'abc' },
    { PORT: '70000' },
    { RATE_LIMIT_BURST: '0' },
    { RATE_LIMIT_USER_PER_MIN: '-5' },
    { APPS_URL: 'not-a-url' },
    { DATA_INFO_URL: 'ftp://data-info' },
    { DATABASE_URL: 'mysql://x' },
    { REDIS_URL: 'http://x' },
    { LOG_LEVEL: 'loud' },
    { TRUST_PROXY: 'maybe' },
    { TRUST_PROXY: '10.0.0.5,proxy.example.org' },
    { RATE_LIMIT_CLIENTS: '10.0.0.0/33' },
    { RATE_LIMIT_CLIENT_PER_MIN: '0' },
    { AUTH_JWKS_URL: 'file:///etc/jwks.json' },
    { AUTH_CLOCK_SKEW_SECONDS: '1.5' },
    { AUTH_JWKS_COOLDOWN_SECONDS: '0' },
    { EMBEDDED_BACKENDS: 'user-info,bogus' },
    { DATA_ZONE: 'a/b' },
    { DEFAULT_OUTPUT_FOLDER: '..' },
    { MAX_UPLOAD_BYTES: '0' },
    { TRASH_RETENTION_DAYS: 'forever' },
    { DATA_STORE_ORPHAN_GRACE_SECONDS: '-1' },
    { URL_IMPORT_ALLOW_PRIVATE_NETWORKS: 'sometimes' },
    { TICKET_BASE_URL: 'ftp://files.example.org' },
    { REDIS_COMMAND_TIMEOUT_MS: '0' },
    { SIGNIN_MAX_FAILURES: 'many' },
    { SIGNIN_MAX_LOCKOUT_SECONDS: '30' },
    { SIGNIN_ADDRESS_LOCKOUT_SECONDS: '0' },
  ];
  for (const env of cases) {
    const [[variable, value]] = Object.entries(env) as [[string, string]];
    test(`${variable}=${value}`, () => {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.variable === variable &&
          error.message.includes(variable) &&
          error.message.includes(value) &&
          !error.message.includes('\n'),
      );
    });
  }
});

async function runMain(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['src/main.ts', ...args],
      { cwd: projectDir, env: { ...process.env, ...env }, timeout: 30_000 },
      (_error, out, err) => resolve({ code: child.exitCode, stdout: out, stderr: err }),
    );
  });
}

describe('the gateway process', () => {
  test('--backends is checked like EMBEDDED_BACKENDS; an unknown flag prints the usage', async (t) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gateway-config-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    const wrong = await runMain(['--backends', 'user-info,bogus'], { GATEWAY_DATA_DIR: dataDir });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /EMBEDDED_BACKENDS.*bogus/);
    const unknown = await runMain(['--frobnicate'], { GATEWAY_DATA_DIR: dataDir });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /Usage: npm start -- \[--backends/);
  });

  test('a wrong value stops it with exit code 1 and one stderr line naming the variable', async (t) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gateway-config-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = { ...process.env, PORT: 'abc', GATEWAY_DATA_DIR: dataDir };
    const { code, stdout, stderr } = await new Promise<{
      code: number | null;
      stdout: string;
      stderr: string;
    }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['src/main.ts'],
        { cwd: projectDir, env, timeout: 30_000 },
        (_error, out, err) => resolve({ code: child.exitCode, stdout: out, stderr: err }),
      );
    });
    assert.equal(code, 1);
    assert.equal(stdout, '');
    const lines = stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, stderr);
    assert.match(lines[0]!, /PORT.*"abc"/);
  });
});

describe('live notifications over AMQP', () => {
  test('off without AMQP_URI; with it, exchange de, 30 s back-off cap, 10,000 queued', () => {
    assert.equal(loadConfig({}).notifications.amqp, undefined);
    assert.deepEqual(loadConfig({ AMQP_URI: 'amqp://u:p@rabbit:5672/vh' }).notifications.amqp, {
      uri: 'amqp://u:p@rabbit:5672/vh',
      exchange: 'de',
      reconnectMaxMs: 30_000,
      queueLimit: 10_000,
    });
    assert.equal(
      loadConfig({ AMQP_URI: 'amqps://rabbit', AMQP_EXCHANGE: 'events' }).notifications.amqp
        ?.exchange,
      'events',
    );
  });

  test('a URI of another scheme, or a queue limit of 0, names the variable', () => {
    assert.throws(() => loadConfig({ AMQP_URI: 'http://rabbit' }), /AMQP_URI/);
    assert.throws(
      () => loadConfig({ AMQP_URI: 'amqp://rabbit', AMQP_QUEUE_LIMIT: '0' }),
      /AMQP_QUEUE_LIMIT/,
    );
  });
});

describe('shared file bytes and keys for several instances', () => {
  test('BLOB_STORE_URL: bucket, prefix, endpoint, region, path style, credentials and part sizes', () => {
    assert.equal(loadConfig({}).dataStore.blobStore, undefined);
    const store = loadConfig({
      BLOB_STORE_URL:
        's3://AKID:s%2Fcret@files.lab/gateway/prod?endpoint=http://127.0.0.1:9000/&region=eu-west-1&forcePathStyle=true&partSizeMiB=16&queueSize=4&timeoutMs=5000',
    }).dataStore.blobStore;
    assert.deepEqual(store, {
      bucket: 'files.lab',
      prefix: 'gateway/prod/',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKID', secretAccessKey: 's/cret' },
      partSizeBytes: 16 * 1024 ** 2,
      queueSize: 4,
      timeoutMs: 5000,
    });
    // On AWS: no endpoint, the SDK's credentials, the region from AWS_REGION.
    assert.deepEqual(
      loadConfig({ BLOB_STORE_URL: 's3://bucket', AWS_REGION: 'us-west-2' }).dataStore.blobStore,
      {
        bucket: 'bucket',
        prefix: '',
        endpoint: undefined,
        region: 'us-west-2',
        forcePathStyle: false,
        credentials: undefined,
        partSizeBytes: 8 * 1024 ** 2,
        queueSize: 2,
        timeoutMs: 30_000,
      },
    );
  });

  test('a wrong BLOB_STORE_URL names the variable and never echoes the secret', () => {
    for (const bad of [
      'http://bucket/prefix',
      's3://Bad_Bucket/x',
      's3://AKID:topsecret@bucket?partSizeMiB=1',
      's3://AKID:topsecret@bucket?colour=blue',
      's3://AKID:topsecret@bucket?endpoint=ftp://x',
      's3://AKID:@bucket',
    ]) {
      assert.throws(
        () => loadConfig({ BLOB_STORE_URL: bad }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.variable === 'BLOB_STORE_URL' &&
          !error.message.includes('topsecret'),
        bad,
      );
    }
  });

  test('AUTH_SIGNING_KEY, SERVICE_TOKEN_KEY and TOKEN_ENCRYPTION_KEY are read as values or from _FILE', () => {
    const pem = (curve: string) =>
      generateKeyPairSync('ec', { namedCurve: curve }).privateKey.export({
        type: 'pkcs8',
        format: 'pem',
      }) as string;
    const signing = pem('P-256');
    const dir = mkdtempSync(path.join(tmpdir(), 'config-keys-'));
    try {
      const file = path.join(dir, 'service.pem');
      const service = pem('P-256');
      writeFileSync(file, service);
      const secretFile = path.join(dir, 'token.key');
      const secret = Buffer.alloc(32, 7);
      writeFileSync(secretFile, `${secret.toString('base64')}\n`);
      const config = loadConfig({
        AUTH_SIGNING_KEY: signing.replace(/\n/g, '\\n'), // one line, as env files write it
        SERVICE_TOKEN_KEY_FILE: file,
        TOKEN_ENCRYPTION_KEY_FILE: secretFile,
      });
      assert.equal(config.keys.authSigningKey?.toString(), signing);
      assert.equal(config.keys.serviceTokenKey?.toString(), service);
      assert.deepEqual(config.oauth.tokenEncryptionKey, secret);
      assert.deepEqual(loadConfig({}).keys, {
        authSigningKey: undefined,
        serviceTokenKey: undefined,
      });

      const refused: [Record<string, string>, string][] = [
        [{ AUTH_SIGNING_KEY: signing, AUTH_SIGNING_KEY_FILE: file }, 'AUTH_SIGNING_KEY'],
        [{ AUTH_SIGNING_KEY: 'not a key' }, 'AUTH_SIGNING_KEY'],
        [{ AUTH_SIGNING_KEY: pem('P-384') }, 'AUTH_SIGNING_KEY'],
        [{ SERVICE_TOKEN_KEY_FILE: path.join(dir, 'missing.pem') }, 'SERVICE_TOKEN_KEY_FILE'],
      ];
      for (const [env, variable] of refused) {
        assert.throws(
          () => loadConfig(env),
          (error: unknown) =>
            error instanceof ConfigError &&
            error.variable === variable &&
            !error.message.includes('PRIVATE KEY'),
          variable,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('where steps run (JOB_EXECUTOR, JOB_WORK_DIR, SLURM_*)', () => {
  test('local by default; slurm with its partition, account, ceilings and poll interval', () => {
    const local = loadConfig({}).analyses.executor;
    assert.equal(local.jobExecutor, 'local');
    assert.equal(local.slurm, undefined);
    const slurm = loadConfig({
      JOB_EXECUTOR: 'slurm',
      SLURM_PARTITION: 'debug',
      SLURM_ACCOUNT: 'lab-1',
      SLURM_MAX_CPUS: '8',
      SLURM_MAX_GPUS: '2',
      SLURM_MAX_MEMORY_MB: '1024',
      SLURM_MAX_WALL_CLOCK_SECONDS: '3600',
      SLURM_POLL_MS: '200',
      SLURM_CONTROLLER_GRACE_SECONDS: '30',
      SLURM_BIN_DIR: '/opt/slurm/bin',
    }).analyses.executor;
    assert.equal(slurm.jobExecutor, 'slurm');
    assert.deepEqual(slurm.slurm, {
      partition: 'debug',
      account: 'lab-1',
      maxCpus: 8,
      maxGpus: 2,
      maxMemoryBytes: 1024 * 1024 * 1024,
      maxWallClockSeconds: 3600,
      pollMs: 200,
      controllerGraceSeconds: 30,
      binDir: '/opt/slurm/bin',
    });
  });

  test('JOB_WORK_DIR, or its older name EXECUTOR_WORK_DIR; JOB_WORK_DIR wins', () => {
    assert.equal(
      loadConfig({ EXECUTOR_WORK_DIR: '/srv/old' }).analyses.executor.workDir,
      '/srv/old',
    );
    assert.equal(loadConfig({ JOB_WORK_DIR: '/srv/new' }).analyses.executor.workDir, '/srv/new');
    assert.equal(
      loadConfig({ JOB_WORK_DIR: '/srv/new', EXECUTOR_WORK_DIR: '/srv/old' }).analyses.executor
        .workDir,
      '/srv/new',
    );
  });

  test('an unknown executor or a partition that is no Slurm name is refused', () => {
    for (const [env, variable] of [
      [{ JOB_EXECUTOR: 'pbs' }, 'JOB_EXECUTOR'],
      [{ JOB_EXECUTOR: 'slurm', SLURM_PARTITION: 'a b' }, 'SLURM_PARTITION'],
      [{ JOB_EXECUTOR: 'slurm', SLURM_MAX_CPUS: '0' }, 'SLURM_MAX_CPUS'],
      [{ JOB_EXECUTOR: 'slurm', SLURM_BIN_DIR: 'bin' }, 'SLURM_BIN_DIR'],
    ] as const)
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => error instanceof ConfigError && error.variable === variable,
        variable,
      );
  });
});

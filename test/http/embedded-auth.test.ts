// The embedded default: no AUTH_* variables, so the gateway makes and trusts its own key pair,
// and the real `npm run token` CLI signs tokens with it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startBackend, type TestBackend } from '../support/backend.ts';
import { startGateway, type RunningGateway } from '../support/gateway.ts';
import { bearer } from '../support/tokens.ts';

const projectDir = path.resolve(import.meta.dirname, '../..');
const appPath = '/apps/de/00000000-0000-0000-0000-000000000001';
const adminPath = '/admin/apps';

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npm run -s token -- <args>` against a data directory, with no identity provider configured. */
function tokenCli(dataDir: string, args: string[]): Promise<CliResult> {
  const env = {
    ...process.env,
    GATEWAY_DATA_DIR: dataDir,
    AUTH_JWKS_URL: '',
    AUTH_PUBLIC_KEYS: '',
    ADMIN_ROLES: '',
  };
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '-s', 'token', '--', ...args],
      { cwd: projectDir, env },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

async function signedByCli(dataDir: string, args: string[]): Promise<string> {
  const result = await tokenCli(dataDir, args);
  assert.equal(result.code, 0, result.stderr);
  const token = result.stdout.trim();
  assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  return token;
}

const payloadOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

async function call(
  gateway: RunningGateway,
  route: string,
  token: string,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${gateway.url}${route}`, { headers: bearer(token) });
  return { status: response.status, body: await response.json() };
}

describe('embedded signing key', () => {
  let backend: TestBackend;
  let dataDir: string;
  let keyFile: string;
  let gateway: RunningGateway;
  let adminToken: string;
  const gateways = new Set<RunningGateway>();

  async function start(
    env: Record<string, string> = { GATEWAY_DATA_DIR: dataDir },
  ): Promise<RunningGateway> {
    const running = await startGateway({
      APPS_URL: backend.url,
      METADATA_URL: backend.url,
      ...env,
    });
    gateways.add(running);
    return running;
  }

  async function stop(running: RunningGateway): Promise<void> {
    gateways.delete(running);
    await running.close();
  }

  before(async () => {
    backend = await startBackend();
    dataDir = mkdtempSync(path.join(tmpdir(), 'gateway-embedded-'));
    keyFile = path.join(dataDir, 'auth', 'signing-key.pem');
  });

  after(async () => {
    await Promise.all([...gateways].map(stop));
    await backend.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('the first start creates a private key in the data directory, readable by the owner only', async () => {
    assert.equal(existsSync(keyFile), false);
    gateway = await start();
    assert.equal(gateway.gateway.config.auth.embeddedKeys, true);
    assert.match(readFileSync(keyFile, 'utf8'), /^-----BEGIN PRIVATE KEY-----/);
    assert.equal(statSync(keyFile).mode & 0o077, 0);
  });

  test('a CLI admin token: identity reaches the backend, admin routes open, --ttl sets exp', async () => {
    adminToken = await signedByCli(dataDir, [
      'alice',
      '--admin',
      '--email',
      'a@x.org',
      '--ttl',
      '2h',
    ]);
    const { exp, iat } = payloadOf(adminToken);
    assert.equal(exp - iat, 2 * 3600);

    const secured = await call(gateway, appPath, adminToken);
    assert.equal(secured.status, 200);
    assert.deepEqual(secured.body.query.user, ['alice']);
    assert.deepEqual(secured.body.query.email, ['a@x.org']);
    assert.equal((await call(gateway, adminPath, adminToken)).status, 200);
  });

  test('a CLI token without --admin: user routes only', async () => {
    const token = await signedByCli(dataDir, ['bob']);
    const secured = await call(gateway, appPath, token);
    assert.equal(secured.status, 200);
    assert.deepEqual(secured.body.query.user, ['bob']);
    const admin = await call(gateway, adminPath, token);
    assert.equal(admin.status, 403);
    assert.equal(admin.body.error_code, 'ERR_FORBIDDEN');
  });

  test('a restart on the same data directory keeps the key and trusts earlier tokens', async () => {
    const keyBefore = readFileSync(keyFile, 'utf8');
    await stop(gateway);
    gateway = await start();
    assert.equal(readFileSync(keyFile, 'utf8'), keyBefore);
    const secured = await call(gateway, appPath, adminToken);
    assert.equal(secured.status, 200);
    assert.deepEqual(secured.body.query.user, ['alice']);
  });

  test('a gateway with another data directory has its own key and refuses the token', async () => {
    const other = await start({}); // a fresh temporary data directory
    const answer = await call(other, appPath, adminToken);
    assert.equal(answer.status, 401);
    assert.deepEqual(answer.body, {
      error_code: 'ERR_NOT_AUTHORIZED',
      reason: 'Untrusted JWT signature.',
    });
  });

  test('a bad --ttl: non-zero exit, one line on stderr, no token', async () => {
    const result = await tokenCli(dataDir, ['alice', '--ttl', 'forever']);
    assert.notEqual(result.code, 0);
    assert.equal(result.stdout, '');
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, /--ttl/);
  });
});

// The JWT matrix: tokens checked against a JWKS served over real HTTP (and PEM files), through a
// real gateway forwarding to a real test backend.
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { startBackend, type TestBackend } from '../support/backend.ts';
import { noRateLimits, startGateway, type RunningGateway } from '../support/gateway.ts';
import { recordTried, testFile } from '../support/reliability.ts';
import {
  bearer,
  craftToken,
  createSigningKey,
  publicKeyPem,
  signToken,
  startJwksServer,
  userClaims,
  type JwksServer,
  type SigningKey,
} from '../support/tokens.ts';

const appPath = '/apps/de/00000000-0000-0000-0000-000000000001';
const adminPath = '/admin/apps';
const dataStoreAdminPath = '/admin/filesystem/metadata/templates';
const noCredentialsBody = {
  error_code: 'ERR_NOT_AUTHORIZED',
  reason: 'No user authentication information found in request.',
};
const notAdmin = 'You are not in one of the admin groups.';

type HeaderMap = Record<string, string>;
const vendor = (token: string): HeaderMap => ({ 'x-vendor-de-jwt': token });
const withRoles = (username: string, realmRoles: string[]) =>
  userClaims(username, { realm_access: { roles: realmRoles } });

let backend: TestBackend;
let jwks: JwksServer;
let rsa: SigningKey;
let ec: SigningKey;
let main: RunningGateway;
const gateways: RunningGateway[] = [];
const jwksServers: JwksServer[] = [];

/** Starts a gateway forwarding apps and metadata to the test backend, with rate limits out of the way. */
async function gatewayWith(env: Record<string, string>): Promise<RunningGateway> {
  const running = await startGateway({
    APPS_URL: backend.url,
    METADATA_URL: backend.url,
    ...noRateLimits,
    ...env,
  });
  gateways.push(running);
  return running;
}

async function jwksWith(keys: SigningKey[]): Promise<JwksServer> {
  const server = await startJwksServer(keys);
  jwksServers.push(server);
  return server;
}

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function get(
  gateway: RunningGateway,
  path: string,
  headers: HeaderMap = {},
): Promise<Answer> {
  const response = await fetch(`${gateway.url}${path}`, { headers });
  const type = response.headers.get('content-type') ?? '';
  const body = type.includes('json') ? await response.json() : await response.text();
  return { status: response.status, headers: response.headers, body };
}

/** The request passes and reaches the backend as `username`; returns the backend's echo. */
async function expectUser(
  gateway: RunningGateway,
  headers: HeaderMap,
  username: string,
  path = appPath,
): Promise<any> {
  const answer = await get(gateway, path, headers);
  assert.equal(
    answer.status,
    200,
    `expected 200, got ${answer.status}: ${JSON.stringify(answer.body)}`,
  );
  assert.deepEqual(answer.body.query.user, [username]);
  return answer.body;
}

/** The request is refused by the gateway itself and never reaches the backend. */
/** Invalid and forged credentials refused as they must be, for the reliability report. */
let refusedTokens = 0;

async function expectRefused(
  gateway: RunningGateway,
  headers: HeaderMap,
  status: 401 | 403,
  reason?: string | RegExp,
  path = appPath,
): Promise<Answer> {
  const forwardedBefore = backend.requests.length;
  const answer = await get(gateway, path, headers);
  assert.equal(
    answer.status,
    status,
    `expected ${status}, got ${answer.status}: ${JSON.stringify(answer.body)}`,
  );
  assert.equal(answer.body.error_code, status === 401 ? 'ERR_NOT_AUTHORIZED' : 'ERR_FORBIDDEN');
  if (typeof reason === 'string') assert.equal(answer.body.reason, reason);
  else if (reason) assert.match(answer.body.reason, reason);
  assert.equal(
    backend.requests.length,
    forwardedBefore,
    'a refused request must not reach the backend',
  );
  refusedTokens += 1;
  return answer;
}

/** Current value of `gateway_auth_failures_total{reason}` from the gateway's /metrics. */
async function authFailures(gateway: RunningGateway, reason: string): Promise<number> {
  const { body } = await get(gateway, '/metrics');
  const match = new RegExp(
    `^gateway_auth_failures_total\\{reason="${reason}"\\} (\\d+)$`,
    'm',
  ).exec(body as string);
  return match ? Number(match[1]) : 0;
}

before(async () => {
  backend = await startBackend();
  [rsa, ec] = await Promise.all([
    createSigningKey('RS256', 'rsa-1'),
    createSigningKey('ES256', 'ec-1'),
  ]);
  jwks = await jwksWith([rsa, ec]);
  main = await gatewayWith({ AUTH_JWKS_URL: jwks.url });
});

after(async () => {
  recordTried({
    area: 'tokens',
    what: 'invalid and forged credentials (no, expired or early exp; unknown keys with a trusted, missing or unknown kid; alg none; HS256 keyed with the RSA key; garbage; a tampered payload; roles short of admin), each 401 or 403 with its reason, never reaching the backend',
    tried: refusedTokens,
    held: refusedTokens,
    file: testFile(import.meta.url),
  });
  await Promise.all(gateways.map((running) => running.close()));
  await Promise.all([...jwksServers.map((server) => server.close()), backend.close()]);
});

describe('valid tokens from the JWKS', () => {
  test('RS256: accepted, identity parameters reach the backend', async () => {
    const echo = await expectUser(main, bearer(await signToken(rsa, userClaims('alice'))), 'alice');
    assert.deepEqual(echo.query.email, ['alice@example.org']);
    assert.deepEqual(echo.query['first-name'], ['Alice']);
    assert.deepEqual(echo.query['last-name'], ['Tester']);
  });

  test('ES256: accepted', async () => {
    const echo = await expectUser(main, bearer(await signToken(ec, userClaims('erin'))), 'erin');
    assert.deepEqual(echo.query.email, ['erin@example.org']);
  });

  test('`sub` is the username when `preferred_username` is absent', async () => {
    const token = await signToken(rsa, { sub: 'subject-7', email: 's7@example.org' });
    const echo = await expectUser(main, bearer(token), 'subject-7');
    assert.deepEqual(echo.query.email, ['s7@example.org']);
  });

  test('expired, but within the 30 s default clock skew: accepted', async () => {
    await expectUser(
      main,
      bearer(await signToken(rsa, userClaims('late'), { expiresIn: -10 })),
      'late',
    );
  });

  test('the unsecured /uuid route ignores credentials, good or bad', async () => {
    for (const headers of [
      {},
      bearer('garbage'),
      bearer(await signToken(rsa, userClaims('u'), { expiresIn: -600 })),
    ]) {
      const answer = await get(main, '/uuid', headers);
      assert.equal(answer.status, 200);
      assert.match(answer.body, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
  });
});

describe('refused tokens: 401 ERR_NOT_AUTHORIZED, backend untouched', () => {
  test('no credentials: exact body and a WWW-Authenticate challenge', async () => {
    const answer = await expectRefused(main, {}, 401);
    assert.deepEqual(answer.body, noCredentialsBody);
    assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer/);
  });

  test('a non-Bearer Authorization scheme counts as no credentials', async () => {
    const answer = await expectRefused(
      main,
      { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      401,
    );
    assert.deepEqual(answer.body, noCredentialsBody);
  });

  test('neither preferred_username nor sub: the reason names the claim', async () => {
    const token = await signToken(rsa, { email: 'nobody@example.org', given_name: 'No' });
    await expectRefused(main, bearer(token), 401, /preferred_username/);
  });

  test('no exp claim', async () => {
    await expectRefused(
      main,
      bearer(await signToken(rsa, userClaims('forever'), { expiresIn: null })),
      401,
      /"exp"/,
    );
  });

  test('expired beyond the skew', async () => {
    await expectRefused(
      main,
      bearer(await signToken(rsa, userClaims('old'), { expiresIn: -120 })),
      401,
      'Token has expired.',
    );
  });

  test('not yet valid (nbf in the future)', async () => {
    const token = await signToken(rsa, userClaims('early'), { notBefore: 300 });
    await expectRefused(main, bearer(token), 401, 'Token is not yet valid.');
  });

  test('signed by an unknown key that claims a trusted kid', async () => {
    const forger = await createSigningKey('RS256', rsa.kid);
    await expectRefused(
      main,
      bearer(await signToken(forger, userClaims('mallory'))),
      401,
      'Untrusted JWT signature.',
    );
  });

  test('signed by an unknown key with no kid', async () => {
    const forger = await createSigningKey('ES256', 'unused');
    await expectRefused(
      main,
      bearer(await signToken(forger, userClaims('mallory'), { kid: null })),
      401,
      'Untrusted JWT signature.',
    );
  });

  test('signed by an unknown key with an unknown kid', async () => {
    const forger = await createSigningKey('RS256', 'nobody-knows-me');
    await expectRefused(
      main,
      bearer(await signToken(forger, userClaims('mallory'))),
      401,
      'Untrusted JWT signature.',
    );
  });

  test('alg: none with an empty signature', async () => {
    const token = craftToken({ alg: 'none', typ: 'JWT' }, userClaims('mallory'));
    assert.ok(token.endsWith('.'));
    await expectRefused(main, bearer(token), 401, 'Token algorithm is not allowed.');
  });

  test('HS256 keyed with the RSA public key PEM (algorithm confusion)', async () => {
    const pem = publicKeyPem(rsa);
    const token = craftToken(
      { alg: 'HS256', typ: 'JWT', kid: rsa.kid },
      userClaims('mallory'),
      (input) => createHmac('sha256', pem).update(input).digest(),
    );
    await expectRefused(main, bearer(token), 401, 'Token algorithm is not allowed.');
  });

  test('garbage in either header', async () => {
    await expectRefused(main, bearer('not-a-jwt'), 401, 'Malformed token.');
    await expectRefused(main, vendor('a.b.c'), 401, 'Malformed token.');
  });

  test('a valid signature with a tampered payload', async () => {
    const [header, , signature] = (await signToken(rsa, userClaims('alice'))).split('.');
    const payload = Buffer.from(
      JSON.stringify({ ...userClaims('root'), exp: Math.floor(Date.now() / 1000) + 60 }),
    ).toString('base64url');
    await expectRefused(
      main,
      bearer(`${header}.${payload}.${signature}`),
      401,
      'Untrusted JWT signature.',
    );
  });

  test('failures are counted in /metrics by reason', async () => {
    const expiredBefore = await authFailures(main, 'expired');
    const missingBefore = await authFailures(main, 'missing');
    await expectRefused(
      main,
      bearer(await signToken(ec, userClaims('old'), { expiresIn: -3600 })),
      401,
    );
    await expectRefused(main, {}, 401);
    assert.equal(await authFailures(main, 'expired'), expiredBefore + 1);
    assert.equal(await authFailures(main, 'missing'), missingBefore + 1);
  });
});

describe('where the token is read from', () => {
  test('X-Vendor-De-Jwt alone', async () => {
    await expectUser(main, vendor(await signToken(rsa, userClaims('vera'))), 'vera');
  });

  test('X-Vendor-De-Jwt wins over Authorization; neither reaches the backend', async () => {
    const headers = {
      ...vendor(await signToken(rsa, userClaims('anna'))),
      ...bearer(await signToken(ec, userClaims('bert'))),
    };
    await expectUser(main, headers, 'anna');
    const forwarded = backend.requests.at(-1)!;
    assert.equal(forwarded.headers.authorization, undefined);
    assert.equal(forwarded.headers['x-vendor-de-jwt'], undefined);
  });

  test('the Bearer scheme is case-insensitive', async () => {
    const token = await signToken(rsa, userClaims('lower'));
    await expectUser(main, { authorization: `bearer ${token}` }, 'lower');
    await expectUser(main, { authorization: `BEARER ${token}` }, 'lower');
  });
});

describe('admin routes', () => {
  test('a user without an admin role: 403 ERR_FORBIDDEN', async () => {
    await expectRefused(
      main,
      bearer(await signToken(rsa, withRoles('pleb', ['offline_access']))),
      403,
      notAdmin,
      adminPath,
    );
  });

  test('no credentials on an admin route: 401, not 403', async () => {
    const answer = await expectRefused(main, {}, 401, undefined, adminPath);
    assert.deepEqual(answer.body, noCredentialsBody);
  });

  test('admin from realm_access.roles', async () => {
    await expectUser(
      main,
      bearer(await signToken(rsa, withRoles('root', ['de-admin']))),
      'root',
      adminPath,
    );
  });

  test('admin from resource_access.<client>.roles', async () => {
    const claims = userClaims('sup', {
      resource_access: { someclient: { roles: ['super-admin'] } },
    });
    await expectUser(main, bearer(await signToken(ec, claims)), 'sup', adminPath);
  });

  test('data-store-admin: refused on /admin/apps, allowed on the data-store admin route', async () => {
    const token = await signToken(rsa, withRoles('keeper', ['data-store-admin']));
    await expectRefused(main, bearer(token), 403, notAdmin, adminPath);
    await expectUser(main, bearer(token), 'keeper', dataStoreAdminPath);
  });

  test('the data-store admin route: admins pass, plain users do not', async () => {
    await expectUser(
      main,
      bearer(await signToken(rsa, withRoles('root', ['de-admin']))),
      'root',
      dataStoreAdminPath,
    );
    await expectRefused(
      main,
      bearer(await signToken(rsa, userClaims('pleb'))),
      403,
      notAdmin,
      dataStoreAdminPath,
    );
  });

  test('forbidden answers are counted in /metrics', async () => {
    const before = await authFailures(main, 'forbidden');
    await expectRefused(
      main,
      bearer(await signToken(ec, userClaims('pleb2'))),
      403,
      notAdmin,
      adminPath,
    );
    assert.equal(await authFailures(main, 'forbidden'), before + 1);
  });

  test('ADMIN_ROLES replaces the default admin roles', async () => {
    const custom = await gatewayWith({
      AUTH_JWKS_URL: jwks.url,
      ADMIN_ROLES: 'platform-ops, auditors',
    });
    await expectUser(
      custom,
      bearer(await signToken(rsa, withRoles('ops', ['platform-ops']))),
      'ops',
      adminPath,
    );
    await expectRefused(
      custom,
      bearer(await signToken(rsa, withRoles('old-admin', ['de-admin']))),
      403,
      notAdmin,
      adminPath,
    );
  });
});

describe('verified-token cache', () => {
  test('the same token five times costs one signature check', async () => {
    const { verifier } = main.gateway;
    const username = `cached-${randomUUID()}`;
    const token = await signToken(ec, userClaims(username));
    const checksBefore = verifier.signatureChecks;
    for (let i = 0; i < 5; i++) await expectUser(main, bearer(token), username);
    assert.equal(verifier.signatureChecks - checksBefore, 1);
  });

  test('two distinct tokens cost two signature checks', async () => {
    const { verifier } = main.gateway;
    const tokens = await Promise.all(
      ['one', 'two'].map((name) => signToken(rsa, userClaims(`${name}-${randomUUID()}`))),
    );
    const checksBefore = verifier.signatureChecks;
    for (const token of [...tokens, ...tokens])
      assert.equal((await get(main, appPath, bearer(token))).status, 200);
    assert.equal(verifier.signatureChecks - checksBefore, 2);
  });
});

describe('JWKS refetching', () => {
  test('unknown kid is refused, then accepted once the JWKS rotates and the cooldown passes', async () => {
    const oldKey = await createSigningKey('RS256', 'old');
    const newKey = await createSigningKey('RS256', 'new');
    const rotating = await jwksWith([oldKey]);
    const gateway = await gatewayWith({
      AUTH_JWKS_URL: rotating.url,
      AUTH_JWKS_COOLDOWN_SECONDS: '1',
    });

    await expectUser(gateway, bearer(await signToken(oldKey, userClaims('before'))), 'before');
    const newToken = await signToken(newKey, userClaims('after'));
    await expectRefused(gateway, bearer(newToken), 401, 'Untrusted JWT signature.');

    rotating.setKeys([oldKey, newKey]);
    const fetchesBefore = rotating.fetches;
    await sleep(1_100);
    await expectUser(gateway, bearer(newToken), 'after');
    assert.equal(rotating.fetches, fetchesBefore + 1, 'the unknown kid caused exactly one refetch');
    await expectUser(gateway, bearer(await signToken(oldKey, userClaims('still'))), 'still');
    // With two RSA keys and no kid, every candidate key is tried.
    await expectUser(
      gateway,
      bearer(await signToken(newKey, userClaims('kidless'), { kid: null })),
      'kidless',
    );
  });

  test('unknown kids within the cooldown do not refetch the JWKS', async () => {
    const key = await createSigningKey('ES256', 'steady');
    const steady = await jwksWith([key]);
    const gateway = await gatewayWith({ AUTH_JWKS_URL: steady.url });

    await expectUser(gateway, bearer(await signToken(key, userClaims('first'))), 'first');
    assert.equal(steady.fetches, 1);
    for (let i = 0; i < 20; i++) {
      await expectRefused(
        gateway,
        bearer(await signToken(key, userClaims('forged'), { kid: `forged-${i}` })),
        401,
      );
    }
    for (let i = 0; i < 5; i++)
      await expectUser(gateway, bearer(await signToken(key, userClaims(`user${i}`))), `user${i}`);
    assert.equal(steady.fetches, 1, 'one fetch serves every request within the cooldown');
  });
});

describe('AUTH_PUBLIC_KEYS', () => {
  let keysDir: string;
  let pemGateway: RunningGateway;
  let pemEc: SigningKey;
  let pemRsa: SigningKey;

  before(async () => {
    keysDir = mkdtempSync(path.join(tmpdir(), 'gateway-keys-'));
    [pemEc, pemRsa] = await Promise.all([
      createSigningKey('ES256', 'pem-ec'),
      createSigningKey('RS256', 'pem-rsa'),
    ]);
    const files = [pemEc, pemRsa].map((key) => {
      const file = path.join(keysDir, `${key.kid}.pem`);
      writeFileSync(file, publicKeyPem(key));
      return file;
    });
    pemGateway = await gatewayWith({ AUTH_PUBLIC_KEYS: files.join(',') });
  });

  after(() => rmSync(keysDir, { recursive: true, force: true }));

  test('tokens without a kid, signed by either listed key, are accepted', async () => {
    await expectUser(
      pemGateway,
      bearer(await signToken(pemEc, userClaims('pem-one'), { kid: null })),
      'pem-one',
    );
    await expectUser(
      pemGateway,
      vendor(await signToken(pemRsa, userClaims('pem-two'), { kid: null })),
      'pem-two',
    );
  });

  test('a token signed by a key not listed is refused', async () => {
    await expectRefused(
      pemGateway,
      bearer(await signToken(rsa, userClaims('outsider'), { kid: null })),
      401,
      'Untrusted JWT signature.',
    );
  });

  test('a JWKS-only gateway does not trust the PEM keys', async () => {
    await expectRefused(
      main,
      bearer(await signToken(pemEc, userClaims('pem-one'), { kid: null })),
      401,
      'Untrusted JWT signature.',
    );
  });
});

describe('AUTH_ISSUER and AUTH_AUDIENCE', () => {
  const issuer = 'https://idp.example.org/realms/de';
  const audience = 'de-gateway';
  let strict: RunningGateway;

  before(async () => {
    strict = await gatewayWith({
      AUTH_JWKS_URL: jwks.url,
      AUTH_ISSUER: issuer,
      AUTH_AUDIENCE: audience,
    });
  });

  test('matching iss and aud: accepted', async () => {
    await expectUser(
      strict,
      bearer(await signToken(rsa, userClaims('proper', { iss: issuer, aud: audience }))),
      'proper',
    );
  });

  test('another issuer, or none: refused', async () => {
    await expectRefused(
      strict,
      bearer(await signToken(rsa, userClaims('x', { iss: 'https://evil.example', aud: audience }))),
      401,
      /"iss"/,
    );
    await expectRefused(
      strict,
      bearer(await signToken(rsa, userClaims('x', { aud: audience }))),
      401,
      /"iss"/,
    );
  });

  test('another audience, or none: refused', async () => {
    await expectRefused(
      strict,
      bearer(await signToken(rsa, userClaims('x', { iss: issuer, aud: 'other-app' }))),
      401,
      /"aud"/,
    );
    await expectRefused(
      strict,
      bearer(await signToken(rsa, userClaims('x', { iss: issuer }))),
      401,
      /"aud"/,
    );
  });
});

// Token time claims: `exp`, `nbf` and `iat` must be whole seconds — `"exp": 1e400` (Infinity, a
// token that never expires) and fractions are 401 — and the verified-token cache honours `exp`: a
// token used across its expiry, on a clock the test moves, is refused from the moment a fresh check
// would refuse it (exp + AUTH_CLOCK_SKEW_SECONDS); on one keep-alive connection, where the gateway
// remembers the connection's last token, tokens of different users that alternate each get their
// own identity, and a remembered token still expires.
import assert from 'node:assert/strict';
import { KeyObject, sign } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Client } from 'undici';
import { startBackend, type TestBackend } from '../support/backend.ts';
import { noRateLimits, startGateway, type RunningGateway } from '../support/gateway.ts';
import {
  bearer,
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
  type JwksServer,
  type SigningKey,
} from '../support/tokens.ts';

const appPath = '/apps/de/00000000-0000-0000-0000-000000000004';

let backend: TestBackend;
let jwks: JwksServer;
let key: SigningKey;

/** A clock that stands still until the test moves it; it starts at the real time so tokens signed now are current. */
function testClock() {
  let current = Date.now();
  return {
    now: () => current,
    /** Sets the clock to `ms` since the epoch. */
    set: (ms: number) => {
      current = ms;
    },
  };
}

async function gatewayAt(
  clock: { now: () => number },
  env: Record<string, string> = {},
): Promise<RunningGateway> {
  return startGateway(
    { ...noRateLimits, APPS_URL: backend.url, AUTH_JWKS_URL: jwks.url, ...env },
    { authClock: clock.now },
  );
}

async function status(
  running: RunningGateway,
  token: string,
): Promise<{ status: number; reason?: string }> {
  const response = await fetch(running.url + appPath, { headers: bearer(token) });
  const body = (await response.json()) as { reason?: string };
  return { status: response.status, reason: body.reason };
}

/**
 * An RS256 token whose payload is `payloadJson` verbatim, so it can hold numbers JSON.stringify
 * cannot write (`1e400`); honestly signed by the trusted key.
 */
function rawToken(payloadJson: string): string {
  const header = Buffer.from(JSON.stringify({ alg: 'RS256', kid: key.kid, typ: 'JWT' })).toString(
    'base64url',
  );
  const input = `${header}.${Buffer.from(payloadJson).toString('base64url')}`;
  const signature = sign('sha256', Buffer.from(input), KeyObject.from(key.privateKey));
  return `${input}.${signature.toString('base64url')}`;
}

before(async () => {
  backend = await startBackend();
  key = await createSigningKey('RS256', 'expiry-key');
  jwks = await startJwksServer([key]);
});
after(async () => {
  await Promise.all([backend.close(), jwks.close()]);
});

describe('exp, nbf and iat must be whole seconds', () => {
  let running: RunningGateway;
  before(async () => {
    running = await gatewayAt({ now: Date.now });
  });
  after(() => running.close());

  const seconds = () => Math.floor(Date.now() / 1000);
  const payload = (times: string) => `{"preferred_username":"tina",${times}}`;

  test('a hand-made token with whole-second claims is accepted (the signing here is sound)', async () => {
    assert.equal(
      (await status(running, rawToken(payload(`"iat":${seconds()},"exp":${seconds() + 600}`))))
        .status,
      200,
    );
  });

  const refused: Array<[string, () => string]> = [
    ['exp 1e400 (Infinity: never expires)', () => `"iat":${seconds()},"exp":1e400`],
    [
      'exp 1e300 (finite, but no exact whole number of seconds)',
      () => `"iat":${seconds()},"exp":1e300`,
    ],
    ['a fractional exp', () => `"iat":${seconds()},"exp":${seconds() + 600}.5`],
    ['nbf -1e400', () => `"nbf":-1e400,"exp":${seconds() + 600}`],
    ['a fractional nbf', () => `"nbf":${seconds() - 10}.25,"exp":${seconds() + 600}`],
    ['iat 1e400', () => `"iat":1e400,"exp":${seconds() + 600}`],
    ['a fractional iat', () => `"iat":${seconds()}.5,"exp":${seconds() + 600}`],
  ];
  for (const [name, times] of refused) {
    test(`${name}: 401 ERR_NOT_AUTHORIZED naming the claim, backend untouched`, async () => {
      const forwarded = backend.requests.length;
      const answer = await status(running, rawToken(payload(times())));
      assert.equal(answer.status, 401, JSON.stringify(answer));
      assert.match(answer.reason ?? '', /claim "(exp|nbf|iat)"/);
      assert.equal(backend.requests.length, forwarded);
    });
  }
});

describe('the verified-token cache across a token’s expiry', () => {
  for (const skewSeconds of [30, 5]) {
    test(`AUTH_CLOCK_SKEW_SECONDS=${skewSeconds}: cached until exp + skew, refused from then on, as a fresh check would`, async () => {
      const clock = testClock();
      const running = await gatewayAt(clock, { AUTH_CLOCK_SKEW_SECONDS: String(skewSeconds) });
      try {
        const { verifier } = running.gateway;
        const token = await signToken(key, userClaims('carla'), { expiresIn: 60 });
        const exp = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())
          .exp as number;

        const checks = verifier.signatureChecks;
        assert.equal((await status(running, token)).status, 200);
        assert.equal((await status(running, token)).status, 200);
        assert.equal(verifier.signatureChecks - checks, 1, 'the second use came from the cache');

        // The last accepted millisecond: still served from the cache.
        clock.set((exp + skewSeconds) * 1000 - 1);
        assert.equal((await status(running, token)).status, 200);
        assert.equal(verifier.signatureChecks - checks, 1, 'still cached just before exp + skew');

        // From exp + skew on, refused: a cache that ignored exp would still answer 200 here.
        clock.set((exp + skewSeconds) * 1000);
        const expired = await status(running, token);
        assert.equal(expired.status, 401);
        assert.equal(expired.reason, 'Token has expired.');
        clock.set((exp + skewSeconds + 3600) * 1000);
        assert.equal((await status(running, token)).status, 401, 'and stays refused');
      } finally {
        await running.close();
      }
    });
  }

  test('a fresh verification agrees with the cache at the boundary', async () => {
    const clock = testClock();
    const running = await gatewayAt(clock);
    try {
      const token = await signToken(key, userClaims('fresh'), { expiresIn: 60 });
      const exp = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())
        .exp as number;
      clock.set((exp + 30) * 1000 - 1);
      assert.equal(
        (await status(running, token)).status,
        200,
        'first seen just before exp + skew: accepted',
      );
      clock.set((exp + 30) * 1000);
      assert.equal((await status(running, token)).status, 401, 'first seen at exp + skew: refused');
    } finally {
      await running.close();
    }
  });

  test('a token not yet valid is not cached as refused: it is accepted once its nbf comes', async () => {
    const clock = testClock();
    const running = await gatewayAt(clock);
    try {
      const token = await signToken(key, userClaims('early'), { notBefore: 600 });
      const nbf = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())
        .nbf as number;
      assert.equal((await status(running, token)).reason, 'Token is not yet valid.');
      clock.set((nbf - 30) * 1000);
      assert.equal((await status(running, token)).status, 200);
    } finally {
      await running.close();
    }
  });

  test('one keep-alive connection, tokens that alternate: each request is its own token’s user, and a remembered token expires', async () => {
    const clock = testClock();
    const running = await gatewayAt(clock);
    // One connection for every request, so the connection's remembered token is in play.
    const client = new Client(running.url);
    let connections = 0;
    client.on('connect', () => connections++);
    try {
      const tokens = {
        anna: await signToken(key, userClaims('anna'), { expiresIn: 60 }),
        bert: await signToken(key, userClaims('bert'), { expiresIn: 600 }),
      };
      const userOf = async (token: string) => {
        const response = await client.request({
          path: appPath,
          method: 'GET',
          headers: bearer(token),
        });
        const body = (await response.body.json()) as { query?: { user?: string[] } };
        return { status: response.statusCode, user: body.query?.user?.[0] };
      };
      for (const name of ['anna', 'anna', 'bert', 'anna', 'bert', 'bert', 'anna'] as const)
        assert.deepEqual(await userOf(tokens[name]), { status: 200, user: name });

      const exp = JSON.parse(Buffer.from(tokens.anna.split('.')[1]!, 'base64url').toString())
        .exp as number;
      clock.set((exp + 30) * 1000);
      assert.equal((await userOf(tokens.anna)).status, 401, 'anna’s token has expired');
      assert.deepEqual(await userOf(tokens.bert), { status: 200, user: 'bert' });
      assert.equal((await userOf(tokens.anna)).status, 401, 'and stays refused on that connection');
      assert.equal(connections, 1, 'every request went over the one connection');
    } finally {
      await client.close();
      await running.close();
    }
  });
});

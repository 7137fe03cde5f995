// Rate limits (spec "Limits" 1) through the gateway: per user, per address, burst, refill (on an
// injected clock), exemptions, metrics, and a budget shared through Redis by two gateway instances
// (with fallback when Redis goes away). The bucket arithmetic itself: rate-limit-buckets.test.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, connect, type Server, type Socket, type AddressInfo } from 'node:net';
import { after, before, describe, test, type TestContext } from 'node:test';
import { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import { FallbackBuckets, MemoryBuckets, type BucketStore } from '../../src/http/rate-limit.ts';
import { startBackend, type TestBackend } from '../support/backend.ts';
import { eventually } from '../support/fileio.ts';
import { requiredInCi, startGateway, type RunningGateway } from '../support/gateway.ts';
import { tally, testFile } from '../support/reliability.ts';
import type { GatewayOptions } from '../../src/app.ts';
import {
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
  type JwksServer,
  type SigningKey,
} from '../support/tokens.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

const redisUrl = requiredInCi('REDIS_URL');

const APP_PATH = '/apps/de/00000000-0000-0000-0000-000000000001';
const rateLimitHeaderNames = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'] as const;

let signingKey: SigningKey;
let jwks: JwksServer;
let apps: TestBackend;

before(async () => {
  signingKey = await createSigningKey('ES256', 'rate-limit-test');
  jwks = await startJwksServer([signingKey]);
  apps = await startBackend();
});

after(async () => {
  await Promise.all([jwks?.close(), apps?.close()]);
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  ms: number;
}

async function get(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(base + path, { headers, signal: AbortSignal.timeout(5_000) });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    ms: performance.now() - started,
  };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const tokenFor = (username: string) => signToken(signingKey, userClaims(username));

/** A gateway trusting the test JWKS and forwarding the apps route to the echo backend; closed after the test. */
async function gatewayFor(
  t: TestContext,
  env: Record<string, string | undefined> = {},
  options: GatewayOptions = {},
): Promise<RunningGateway> {
  const running = await startGateway(
    { AUTH_JWKS_URL: jwks.url, APPS_URL: apps.url, ...env },
    options,
  );
  t.after(() => running.close());
  return running;
}

/**
 * The report's row of a Redis fault (docs/reliability.md): the requests sent from the fault on,
 * held once the assertions on them have passed.
 */
const redisCases = (t: TestContext, what: string) =>
  tally(t, {
    area: 'faults',
    what: `Redis (the rate limits' shared buckets) ${what}`,
    file: testFile(import.meta.url),
  });

function rateLimitOf(answer: Answer) {
  const number = (name: string) => {
    const value = answer.headers.get(name);
    assert.ok(
      value !== null && /^\d+$/.test(value),
      `${name} should be a whole number, got ${value}`,
    );
    return Number(value);
  };
  return {
    limit: number('ratelimit-limit'),
    remaining: number('ratelimit-remaining'),
    reset: number('ratelimit-reset'),
  };
}

function assertTooMany(answer: Answer): void {
  assert.equal(answer.status, 429, answer.text);
  const body = JSON.parse(answer.text) as Record<string, unknown>;
  assert.equal(body.error_code, 'ERR_TOO_MANY_REQUESTS');
  assert.equal(typeof body.reason, 'string');
  assert.match(
    answer.headers.get('retry-after') ?? '',
    /^[1-9]\d*$/,
    'Retry-After should be a positive whole number',
  );
  for (const name of rateLimitHeaderNames)
    assert.ok(answer.headers.has(name), `429 should carry ${name}`);
  assert.equal(answer.headers.get('ratelimit-remaining'), '0');
}

/** Sum of a Prometheus counter's samples whose labels include `labels`. */
async function metric(
  base: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const { text } = await get(base, '/metrics');
  let total = 0;
  for (const line of text.split('\n')) {
    const match = /^(\w+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const sample = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => sample[key] === value))
      total += Number(match[3]);
  }
  return total;
}

describe('per-user limits', () => {
  test('burst: N requests pass with a counting-down Remaining, the next is 429; other users are unaffected', async (t) => {
    const { url } = await gatewayFor(t, { RATE_LIMIT_BURST: '5', RATE_LIMIT_USER_PER_MIN: '1' });
    const alice = bearer(await tokenFor('alice'));
    const forwardedBefore = apps.requests.length;

    const remaining = [];
    for (let i = 0; i < 5; i++) {
      const answer = await get(url, APP_PATH, alice);
      assert.equal(answer.status, 200, answer.text);
      const limits = rateLimitOf(answer);
      assert.equal(limits.limit, 5);
      assert.equal(answer.headers.get('retry-after'), null, 'allowed answers carry no Retry-After');
      remaining.push(limits.remaining);
    }
    assert.deepEqual(remaining, [4, 3, 2, 1, 0]);

    const refused = await get(url, APP_PATH, alice);
    assertTooMany(refused);
    assert.equal(refused.headers.get('retry-after'), '60', 'one token per minute');
    assert.deepEqual(rateLimitOf(refused), { limit: 5, remaining: 0, reset: 300 });
    assert.equal(
      apps.requests.length - forwardedBefore,
      5,
      'the refused request never reached the backend',
    );

    const bob = await get(url, APP_PATH, bearer(await tokenFor('bob')));
    assert.equal(bob.status, 200, bob.text);
    assert.deepEqual(rateLimitOf(bob), { limit: 5, remaining: 4, reset: 60 });
  });

  test('refill: an exhausted bucket allows one more request once a token has accrued', async (t) => {
    const clock = { now: Date.now() };
    const { url } = await gatewayFor(
      t,
      { RATE_LIMIT_BURST: '2', RATE_LIMIT_USER_PER_MIN: '120' },
      { rateLimitClock: () => clock.now },
    ); // 2 per second
    const carol = bearer(await tokenFor('carol'));
    assert.equal((await get(url, APP_PATH, carol)).status, 200);
    assert.equal((await get(url, APP_PATH, carol)).status, 200);
    const refused = await get(url, APP_PATH, carol);
    assertTooMany(refused);
    assert.equal(refused.headers.get('retry-after'), '1');

    clock.now += 499;
    assertTooMany(await get(url, APP_PATH, carol));
    clock.now += 1;
    const refilled = await get(url, APP_PATH, carol);
    assert.equal(refilled.status, 200, refilled.text);
    assert.equal(rateLimitOf(refilled).remaining, 0);
    assertTooMany(await get(url, APP_PATH, carol));
  });

  test('authenticated requests do not spend the address budget', async (t) => {
    const { url } = await gatewayFor(t, { RATE_LIMIT_ANON_PER_MIN: '2' });
    const dave = bearer(await tokenFor('dave'));
    for (let i = 0; i < 5; i++) {
      const answer = await get(url, APP_PATH, dave);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(rateLimitOf(answer).limit, 150, 'counted against the user bucket');
    }
    const anonymous = await get(url, '/uuid');
    assert.equal(anonymous.status, 200);
    assert.deepEqual(
      rateLimitOf(anonymous),
      { limit: 2, remaining: 1, reset: 30 },
      'address bucket still untouched',
    );
  });

  test('failed authentication spends the anonymous budget: 401 until the address bucket is empty, then 429', async (t) => {
    const { url } = await gatewayFor(t, { RATE_LIMIT_ANON_PER_MIN: '3' });
    const stranger = await createSigningKey('ES256', 'not-trusted');
    const forged = bearer(await signToken(stranger, userClaims('mallory')));
    for (const expected of [2, 1, 0]) {
      const answer = await get(url, APP_PATH, forged);
      assert.equal(answer.status, 401, answer.text);
      assert.equal(
        (JSON.parse(answer.text) as { error_code: string }).error_code,
        'ERR_NOT_AUTHORIZED',
      );
      assert.deepEqual(rateLimitOf(answer), {
        limit: 3,
        remaining: expected,
        reset: 20 * (3 - expected),
      });
    }
    assertTooMany(await get(url, APP_PATH, forged));
    assertTooMany(await get(url, '/uuid'));
  });
});

describe('per-address limits', () => {
  test('anonymous requests are limited per client address', async (t) => {
    const { url } = await gatewayFor(t, { RATE_LIMIT_ANON_PER_MIN: '3' });
    const remaining = [];
    for (let i = 0; i < 3; i++) {
      const answer = await get(url, '/uuid');
      assert.equal(answer.status, 200);
      assert.equal(rateLimitOf(answer).limit, 3);
      remaining.push(rateLimitOf(answer).remaining);
    }
    assert.deepEqual(remaining, [2, 1, 0]);
    const refused = await get(url, '/uuid');
    assertTooMany(refused);
    assert.equal(
      refused.headers.get('retry-after'),
      '20',
      'three per minute: one token every 20 s',
    );
  });

  test('behind a trusted proxy, each X-Forwarded-For address has its own bucket', async (t) => {
    const { url } = await gatewayFor(t, { RATE_LIMIT_ANON_PER_MIN: '3', TRUST_PROXY: 'true' });
    const first = { 'x-forwarded-for': '203.0.113.1' };
    for (let i = 0; i < 3; i++) assert.equal((await get(url, '/uuid', first)).status, 200);
    assertTooMany(await get(url, '/uuid', first));

    const second = await get(url, '/uuid', { 'x-forwarded-for': '203.0.113.2' });
    assert.equal(second.status, 200);
    assert.equal(rateLimitOf(second).remaining, 2);
    const direct = await get(url, '/uuid');
    assert.equal(direct.status, 200, 'the proxy address itself is yet another bucket');
    assert.equal(rateLimitOf(direct).remaining, 2);
  });

  test('an IPv6 client is budgeted by its /64: its other addresses share the bucket, another network has its own', async (t) => {
    const { url } = await gatewayFor(t, { RATE_LIMIT_ANON_PER_MIN: '3', TRUST_PROXY: 'true' });
    // One subscriber's network hands out any of 2^64 addresses: each its own bucket would make
    // the anonymous limit no limit.
    const network = ['2001:db8:7:1::1', '2001:db8:7:1::2', '2001:db8:7:1:ffff:ffff:ffff:ffff'];
    for (const address of network)
      assert.equal((await get(url, '/uuid', { 'x-forwarded-for': address })).status, 200);
    assertTooMany(await get(url, '/uuid', { 'x-forwarded-for': '2001:db8:7:1::abcd' }));
    const elsewhere = await get(url, '/uuid', { 'x-forwarded-for': '2001:db8:7:2::1' });
    assert.equal(elsewhere.status, 200, 'the next /64 is another client');
    assert.equal(rateLimitOf(elsewhere).remaining, 2);
  });

  // A web UI's server (sonora src/server/api/terrain.js) calls the gateway for every signed-out
  // visitor from its one address: behind listed proxies each forwarded client has its own budget.
  test('TRUST_PROXY listing the proxy: two forwarded clients get separate budgets, forwarded as themselves', async (t) => {
    const { url } = await gatewayFor(t, {
      RATE_LIMIT_ANON_PER_MIN: '2',
      TRUST_PROXY: '10.0.0.0/8, 127.0.0.1',
    });
    const first = { 'x-forwarded-for': '203.0.113.1' };
    const second = { 'x-forwarded-for': '198.51.100.2, 10.0.0.7' };
    for (let i = 0; i < 2; i++) assert.equal((await get(url, '/uuid', first)).status, 200);
    assertTooMany(await get(url, '/uuid', first));
    const other = await get(url, '/uuid', second);
    assert.equal(
      other.status,
      200,
      'the second client, behind two trusted proxies, has its own bucket',
    );
    assert.equal(rateLimitOf(other).remaining, 1);
    assert.equal(rateLimitOf(await get(url, '/uuid')).remaining, 1, 'the proxy itself: another');
    // A backend is told the same chain: the client, then the trusted proxy.
    const forwarded = await get(url, APP_PATH, { ...bearer(await tokenFor('erin')), ...first });
    assert.equal(forwarded.status, 200, forwarded.text);
    assert.match(
      String(apps.requests.at(-1)!.headers['x-forwarded-for']),
      /^203\.0\.113\.1, .*127\.0\.0\.1$/,
    );
  });

  test("TRUST_PROXY listing other proxies: this peer's X-Forwarded-For is ignored", async (t) => {
    const { url } = await gatewayFor(t, { RATE_LIMIT_ANON_PER_MIN: '2', TRUST_PROXY: '10.9.9.9' });
    assert.equal((await get(url, '/uuid', { 'x-forwarded-for': '203.0.113.1' })).status, 200);
    assert.equal((await get(url, '/uuid', { 'x-forwarded-for': '203.0.113.2' })).status, 200);
    assertTooMany(await get(url, '/uuid', { 'x-forwarded-for': '203.0.113.3' }));
    assertTooMany(await get(url, '/uuid'));
    // Nor is it passed on to a backend: the peer is the client.
    const forwarded = await get(url, APP_PATH, {
      ...bearer(await tokenFor('erin')),
      'x-forwarded-for': '203.0.113.4',
    });
    assert.equal(forwarded.status, 200, forwarded.text);
    assert.match(
      String(apps.requests.at(-1)!.headers['x-forwarded-for']),
      /^(::ffff:)?127\.0\.0\.1$/,
    );
  });

  test('RATE_LIMIT_CLIENTS: a named client address has a budget of its own size', async (t) => {
    const { url } = await gatewayFor(t, {
      RATE_LIMIT_ANON_PER_MIN: '2',
      RATE_LIMIT_CLIENTS: '127.0.0.0/8,::1',
      RATE_LIMIT_CLIENT_PER_MIN: '5',
    });
    const remaining = [];
    for (let i = 0; i < 5; i++) {
      const answer = await get(url, '/uuid');
      assert.equal(answer.status, 200);
      assert.equal(rateLimitOf(answer).limit, 5);
      remaining.push(rateLimitOf(answer).remaining);
    }
    assert.deepEqual(remaining, [4, 3, 2, 1, 0]);
    assertTooMany(await get(url, '/uuid'));
    const other = await gatewayFor(t, {
      RATE_LIMIT_ANON_PER_MIN: '2',
      RATE_LIMIT_CLIENTS: '192.0.2.10',
    });
    assert.equal(rateLimitOf(await get(other.url, '/uuid')).limit, 2, 'an address not named');
  });

  test('without TRUST_PROXY a spoofed X-Forwarded-For does not get a fresh bucket', async (t) => {
    const { url } = await gatewayFor(t, { RATE_LIMIT_ANON_PER_MIN: '3' });
    for (let i = 0; i < 3; i++) assert.equal((await get(url, '/uuid')).status, 200);
    assertTooMany(await get(url, '/uuid', { 'x-forwarded-for': '198.51.100.7' }));
    assertTooMany(await get(url, '/uuid', { 'x-forwarded-for': '198.51.100.8, 127.0.0.1' }));
  });
});

describe('exemptions, defaults and metrics', () => {
  test('/livez, /readyz and /metrics never answer 429 and carry no RateLimit headers', async (t) => {
    const { url } = await gatewayFor(t, { RATE_LIMIT_ANON_PER_MIN: '1' });
    assert.equal((await get(url, '/uuid')).status, 200);
    assertTooMany(await get(url, '/uuid'));
    for (let round = 0; round < 3; round++) {
      for (const path of ['/livez', '/readyz', '/metrics']) {
        const answer = await get(url, path);
        assert.equal(answer.status, 200, `${path}: ${answer.text.slice(0, 200)}`);
        for (const name of [...rateLimitHeaderNames, 'retry-after']) {
          assert.equal(answer.headers.get(name), null, `${path} should not carry ${name}`);
        }
      }
    }
    assertTooMany(await get(url, '/uuid'));
  });

  test('defaults: 150 per user, 10 per address', async (t) => {
    const { url } = await gatewayFor(t);
    const user = await get(url, APP_PATH, bearer(await tokenFor('erin')));
    assert.equal(user.status, 200, user.text);
    // 100 per minute: the spent token is back in 0.6 s.
    assert.deepEqual(rateLimitOf(user), { limit: 150, remaining: 149, reset: 1 });
    const anonymous = await get(url, '/uuid');
    assert.equal(anonymous.status, 200);
    assert.deepEqual(rateLimitOf(anonymous), { limit: 10, remaining: 9, reset: 6 });
  });

  test('429s are counted in gateway_rate_limit_rejections_total by caller', async (t) => {
    const { url } = await gatewayFor(t, {
      RATE_LIMIT_ANON_PER_MIN: '1',
      RATE_LIMIT_BURST: '1',
      RATE_LIMIT_USER_PER_MIN: '1',
    });
    const frank = bearer(await tokenFor('frank'));
    assert.equal(await metric(url, 'gateway_rate_limit_rejections_total'), 0);
    assert.equal((await get(url, APP_PATH, frank)).status, 200);
    assertTooMany(await get(url, APP_PATH, frank));
    assertTooMany(await get(url, APP_PATH, frank));
    assert.equal((await get(url, '/uuid')).status, 200);
    assertTooMany(await get(url, '/uuid'));
    assert.equal(await metric(url, 'gateway_rate_limit_rejections_total', { caller: 'user' }), 2);
    assert.equal(
      await metric(url, 'gateway_rate_limit_rejections_total', { caller: 'anonymous' }),
      1,
    );
    assert.equal(await metric(url, 'gateway_http_requests_total', { status: '429' }), 3);
  });
});

describe('Redis unreachable from the start', () => {
  test('keeps serving with local counters, still limits, and counts the fallbacks', async (t) => {
    const cases = redisCases(
      t,
      'unreachable from the start (nothing listening): requests served with local counters and still limited (429 once the bucket is spent), none waiting on Redis, each counted as a fallback',
    );
    const { url } = await gatewayFor(t, {
      REDIS_URL: 'redis://127.0.0.1:1',
      RATE_LIMIT_BURST: '3',
      RATE_LIMIT_USER_PER_MIN: '1',
    });
    const grace = bearer(await tokenFor('grace'));
    const answers = [];
    for (let i = 0; i < 4; i++) {
      cases.tried += 1;
      answers.push(await get(url, APP_PATH, grace));
    }
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 429],
    );
    assert.deepEqual(
      answers.map((a) => rateLimitOf(a).remaining),
      [2, 1, 0, 0],
    );
    assertTooMany(answers[3]!);
    const slowest = Math.max(...answers.map((a) => a.ms));
    assert.ok(
      slowest < 1_000,
      `no request should wait on the absent Redis (slowest ${slowest.toFixed(0)} ms)`,
    );
    t.diagnostic(`slowest request with Redis absent: ${slowest.toFixed(1)} ms`);
    assert.equal(
      await metric(url, 'gateway_rate_limit_store_fallbacks_total'),
      4,
      'every decision was taken locally',
    );
    cases.settle();
  });
});

/**
 * A TCP proxy in front of Redis that can delay Redis's answers (a Redis farther away), stall
 * (stop relaying, connections left open) or close with its connections (Redis gone).
 */
async function startRedisProxy(target: URL, options: { replyDelayMs?: number } = {}) {
  const sockets = new Set<Socket>();
  let stalled = false;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      const delayMs = from === upstream ? (options.replyDelayMs ?? 0) : 0;
      from.on('data', (chunk) => {
        const relay = () => {
          if (!stalled && !to.destroyed) to.write(chunk);
        };
        if (delayMs > 0) setTimeout(relay, delayMs);
        else relay();
      });
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
      from.on('error', () => to.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    get connections() {
      return sockets.size / 2;
    },
    stall: () => {
      stalled = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

describe(
  'shared budget through Redis',
  { skip: redisUrl ? false : 'REDIS_URL is not set (set REDIS_URL=redis://127.0.0.1:6379 to run)' },
  () => {
    let redis: Redis;
    const prefixes: string[] = [];
    const newPrefix = () => {
      const prefix = `test:${randomUUID()}:`;
      prefixes.push(prefix);
      return prefix;
    };

    /** Tokens left in a user's shared bucket; the key must exist. */
    const sharedTokens = async (prefix: string, username: string) => {
      const tokens = await redis.hget(`${prefix}user:${username}`, 'tokens');
      assert.ok(tokens !== null, `no bucket for ${username} in Redis under ${prefix}`);
      return Number(tokens);
    };

    before(() => {
      redis = new Redis(redisUrl!, { lazyConnect: false, maxRetriesPerRequest: 1 });
    });

    after(async () => {
      for (const prefix of prefixes) {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(...keys);
      }
      redis.disconnect();
    });

    test('two instances enforce one budget per user', async (t) => {
      const prefix = newPrefix();
      const env = {
        REDIS_URL: redisUrl,
        REDIS_KEY_PREFIX: prefix,
        RATE_LIMIT_BURST: '6',
        RATE_LIMIT_USER_PER_MIN: '1',
      };
      const [one, two] = [await gatewayFor(t, env), await gatewayFor(t, env)];
      const heidi = bearer(await tokenFor('heidi'));

      const answers = [];
      for (let i = 0; i < 8; i++)
        answers.push(await get(i % 2 === 0 ? one.url : two.url, APP_PATH, heidi));
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200, 200, 200, 200, 429, 429],
      );
      assert.deepEqual(
        answers.slice(0, 6).map((a) => rateLimitOf(a).remaining),
        [5, 4, 3, 2, 1, 0],
        "each instance sees the other one's spending",
      );
      assertTooMany(answers[6]!);
      assertTooMany(answers[7]!);
      assertTooMany(await get(one.url, APP_PATH, heidi));
      assertTooMany(await get(two.url, APP_PATH, heidi));

      const ivan = await get(two.url, APP_PATH, bearer(await tokenFor('ivan')));
      assert.equal(ivan.status, 200, 'another user has a budget of their own');
      assert.equal(rateLimitOf(ivan).remaining, 5);

      for (const instance of [one, two]) {
        assert.equal(
          await metric(instance.url, 'gateway_rate_limit_store_fallbacks_total'),
          0,
          'every decision came from Redis',
        );
      }
      const keys = (await redis.keys(`${prefix}*`)).sort();
      assert.deepEqual(keys, [`${prefix}user:heidi`, `${prefix}user:ivan`]);
      const state = await redis.hgetall(`${prefix}user:heidi`);
      assert.ok(
        Number(state.tokens) < 1,
        `heidi's shared bucket is empty (tokens ${state.tokens})`,
      );
      const ttl = await redis.pttl(`${prefix}user:heidi`);
      assert.ok(
        ttl > 0 && ttl <= 6 * 60_000 + 1_000,
        `the key expires once the bucket would be full again (pttl ${ttl})`,
      );
    });

    test('a freshly started instance draws on Redis from its first request', async (t) => {
      // Redis answers 100 ms late, so the gateway listens before its Redis connection is ready.
      const prefix = newPrefix();
      const proxy = await startRedisProxy(new URL(redisUrl!), { replyDelayMs: 100 });
      t.after(() => proxy.close());
      // A generous command timeout: what is tested is the wait for the connection, not a busy machine's latency.
      const { url } = await gatewayFor(t, {
        REDIS_URL: proxy.url,
        REDIS_KEY_PREFIX: prefix,
        RATE_LIMIT_BURST: '3',
        RATE_LIMIT_USER_PER_MIN: '1',
        REDIS_COMMAND_TIMEOUT_MS: '1000',
      });
      const first = await get(url, APP_PATH, bearer(await tokenFor('leo')));
      assert.equal(first.status, 200, first.text);
      assert.equal(rateLimitOf(first).remaining, 2);
      t.diagnostic(
        `first request while the Redis connection was being set up: ${first.ms.toFixed(0)} ms`,
      );
      assert.equal(
        await metric(url, 'gateway_rate_limit_store_fallbacks_total'),
        0,
        'not counted locally as if Redis were down',
      );
      const tokens = await sharedTokens(prefix, 'leo');
      assert.ok(tokens >= 2 && tokens < 2.1, `spent through Redis (tokens ${tokens})`);
    });

    test('Redis going away mid-run: served with local counters, counted, without hanging', async (t) => {
      const cases = redisCases(
        t,
        'going away mid-run (its connections closed): requests served at once from a fresh local bucket, still limited (429 once it is spent), each counted as a fallback, nothing reaching Redis meanwhile',
      );
      const prefix = newPrefix();
      const proxy = await startRedisProxy(new URL(redisUrl!));
      t.after(() => proxy.close());
      const { url } = await gatewayFor(t, {
        REDIS_URL: proxy.url,
        REDIS_KEY_PREFIX: prefix,
        RATE_LIMIT_BURST: '4',
        RATE_LIMIT_USER_PER_MIN: '1',
        REDIS_COMMAND_TIMEOUT_MS: '1000',
      });
      const judy = bearer(await tokenFor('judy'));
      const fallbacks = () => metric(url, 'gateway_rate_limit_store_fallbacks_total');

      for (const expected of [3, 2]) {
        const answer = await get(url, APP_PATH, judy);
        assert.equal(answer.status, 200);
        assert.equal(rateLimitOf(answer).remaining, expected);
      }
      assert.equal(await fallbacks(), 0);
      const tokensBefore = await sharedTokens(prefix, 'judy');
      assert.ok(
        tokensBefore >= 2 && tokensBefore < 2.1,
        `spent through Redis (tokens ${tokensBefore})`,
      );
      assert.equal(proxy.connections, 1);

      await proxy.close();
      const answers = [];
      for (let i = 0; i < 5; i++) {
        cases.tried += 1;
        answers.push(await get(url, APP_PATH, judy));
      }
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200, 200, 429],
        'a fresh local bucket of capacity 4 takes over',
      );
      const slowest = Math.max(...answers.map((a) => a.ms));
      assert.ok(
        slowest < 1_000,
        `no request hangs on the lost Redis (slowest ${slowest.toFixed(0)} ms)`,
      );
      t.diagnostic(`slowest request after Redis went away: ${slowest.toFixed(1)} ms`);
      assert.equal(await fallbacks(), 5);
      assert.equal(
        await sharedTokens(prefix, 'judy'),
        tokensBefore,
        'nothing reached Redis meanwhile',
      );
      cases.settle();
    });

    test('Redis hanging mid-run (connection open, no answers): served locally within the command timeout', async (t) => {
      const prefix = newPrefix();
      const proxy = await startRedisProxy(new URL(redisUrl!));
      t.after(() => proxy.close());
      const timeoutMs = 400;
      const cases = redisCases(
        t,
        `hanging mid-run (connection open, no answers): requests served with local counters within the command timeout (REDIS_COMMAND_TIMEOUT_MS, ${timeoutMs} ms), still limited, each counted as a fallback`,
      );
      const { url } = await gatewayFor(t, {
        REDIS_URL: proxy.url,
        REDIS_KEY_PREFIX: prefix,
        RATE_LIMIT_BURST: '2',
        RATE_LIMIT_USER_PER_MIN: '1',
        REDIS_COMMAND_TIMEOUT_MS: String(timeoutMs),
      });
      const kim = bearer(await tokenFor('kim'));
      assert.equal((await get(url, APP_PATH, kim)).status, 200);
      assert.ok((await sharedTokens(prefix, 'kim')) < 1.1, 'spent through Redis');
      assert.equal(await metric(url, 'gateway_rate_limit_store_fallbacks_total'), 0);

      proxy.stall();
      const answers = [];
      for (let i = 0; i < 3; i++) {
        cases.tried += 1;
        answers.push(await get(url, APP_PATH, kim));
      }
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 429],
      );
      const slowest = Math.max(...answers.map((a) => a.ms));
      assert.ok(
        slowest < timeoutMs + 1_000,
        `no request hangs on the stalled Redis (slowest ${slowest.toFixed(0)} ms)`,
      );
      t.diagnostic(
        `request latency with Redis stalled: ${answers.map((a) => a.ms.toFixed(0)).join(', ')} ms`,
      );
      assert.equal(await metric(url, 'gateway_rate_limit_store_fallbacks_total'), 3);
      cases.settle();
    });

    test('Redis gone and back, then hung and back: local counters meanwhile, Redis again after, no restart', async (t) => {
      const cases = redisCases(
        t,
        'refusing connections, then blackholed, each then back: requests decided locally meanwhile, within the command timeout, and /readyz 503 naming Redis; decided in Redis again and ready again once it is back, without a restart',
      );
      /** One of the test's cases: a request sent from the first fault on. */
      const counted = <T>(request: () => Promise<T>) => {
        cases.tried += 1;
        return request();
      };
      const prefix = newPrefix();
      const proxy = await startTcpProxy({
        host: new URL(redisUrl!).hostname,
        port: Number(new URL(redisUrl!).port || 6379),
      });
      t.after(() => proxy.close());
      const { url } = await gatewayFor(t, {
        REDIS_URL: `redis://${proxy.host}:${proxy.port}`,
        REDIS_KEY_PREFIX: prefix,
        RATE_LIMIT_BURST: '100',
        RATE_LIMIT_USER_PER_MIN: '1',
        REDIS_COMMAND_TIMEOUT_MS: '300',
      });
      const mona = bearer(await tokenFor('mona'));
      const fallbacks = () => metric(url, 'gateway_rate_limit_store_fallbacks_total');
      const served = async () => {
        const answer = await get(url, APP_PATH, mona);
        assert.equal(answer.status, 200, answer.text);
        return answer;
      };
      /** Requests until one is decided by Redis again (the fallback count stands still): how long that took. */
      const backOnRedis = async () => {
        const started = performance.now();
        await eventually(
          async () => {
            const before = await fallbacks();
            await counted(served);
            return (await fallbacks()) === before;
          },
          10_000,
          'a decision taken in Redis again',
        );
        return performance.now() - started;
      };

      await served();
      assert.equal(await fallbacks(), 0);
      const spent = await sharedTokens(prefix, 'mona');

      for (const outage of ['refuse', 'blackhole'] as const) {
        if (outage === 'refuse') await proxy.refuse();
        else proxy.blackhole();
        const fallbacksBefore = await fallbacks();
        const during = [await counted(served), await counted(served)];
        assert.equal(await fallbacks(), fallbacksBefore + 2, `${outage}: both decided locally`);
        const slowest = Math.max(...during.map((answer) => answer.ms));
        assert.ok(slowest < 300 + 1_000, `${outage}: slowest ${Math.round(slowest)} ms`);
        const ready = await counted(() => get(url, '/readyz'));
        assert.equal(ready.status, 503, `${outage}: /readyz names Redis`);
        assert.equal(JSON.parse(ready.text).reason, 'Not ready: redis');
        cases.settle();

        await proxy.restore();
        const recovered = await backOnRedis();
        t.diagnostic(
          `Redis ${outage}d: slowest request ${Math.round(slowest)} ms; back on Redis ${Math.round(recovered)} ms after the restore`,
        );
        assert.ok(
          (await sharedTokens(prefix, 'mona')) < spent,
          `${outage}: the shared bucket is spent again`,
        );
        assert.equal(
          (await counted(() => get(url, '/readyz'))).status,
          200,
          `${outage}: ready again`,
        );
        cases.settle();
      }
    });
  },
);

describe('FallbackBuckets', () => {
  /** A shared store that fails or answers on demand, counting the calls that reach it. */
  function flakyStore() {
    const state = { up: false, calls: 0 };
    const healthy = new MemoryBuckets();
    const store: BucketStore = {
      take: async (key, policy) => {
        state.calls++;
        if (!state.up) throw new Error('store down');
        return healthy.take(key, policy);
      },
      close: async () => {},
    };
    return { state, store };
  }
  const policy = { capacity: 100, refillPerMinute: 60 };
  const quietLog = { info() {}, warn() {} } as unknown as FastifyBaseLogger;

  test('after a failure the shared store is skipped until the retry interval passes, then used again', async () => {
    const { state, store } = flakyStore();
    let fallbacks = 0;
    const clock = { now: 1_000_000 };
    const buckets = new FallbackBuckets(
      store,
      new MemoryBuckets(() => clock.now),
      quietLog,
      () => fallbacks++,
      200,
      () => clock.now,
    );
    for (let i = 0; i < 5; i++) assert.equal((await buckets.take('k', policy)).allowed, true);
    assert.equal(state.calls, 1, 'only the first call waited on the failing store');
    assert.equal(fallbacks, 5, 'every local decision is counted');
    state.up = true;
    clock.now += 199;
    await buckets.take('k', policy);
    assert.equal(state.calls, 1, 'not retried before the interval has passed');
    assert.equal(fallbacks, 6);
    clock.now += 1;
    await buckets.take('k', policy);
    assert.equal(state.calls, 2, 'retried once the interval passed');
    await buckets.take('k', policy);
    assert.equal(state.calls, 3, 'back on the shared store');
    assert.equal(fallbacks, 6);
  });
});

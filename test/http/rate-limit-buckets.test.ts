// The token-bucket stores behind rate limiting (spec "Limits" 1), one behavioural suite run on
// MemoryBuckets and on RedisBuckets (the Lua script) with an injected clock: spending, the exact
// refill rate, the capacity cap after a long idle spell, free refusals, a clock stepping back, and
// the key's expiry; plus the production path of the script, which reads Redis's own clock.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { MemoryBuckets, type BucketPolicy, type BucketStore } from '../../src/http/rate-limit.ts';
import { RedisBuckets } from '../../src/http/rate-limit-redis.ts';
import { requiredInCi } from '../support/gateway.ts';

const redisUrl = requiredInCi('REDIS_URL');
const redisSkip = redisUrl
  ? false
  : 'REDIS_URL is not set (set REDIS_URL=redis://127.0.0.1:6379 to run)';

/** A fresh store (its own keys) whose clock the test sets; `close` also removes what it stored. */
interface Clocked {
  clock: { now: number };
  buckets: BucketStore;
  close(): Promise<void>;
}

const stores: { name: string; skip: string | false; make(): Clocked | Promise<Clocked> }[] = [
  {
    name: 'MemoryBuckets',
    skip: false,
    make() {
      const clock = { now: 1_000_000 };
      const buckets = new MemoryBuckets(() => clock.now);
      return { clock, buckets, close: () => buckets.close() };
    },
  },
  {
    name: 'RedisBuckets',
    skip: redisSkip,
    async make() {
      const clock = { now: Date.now() };
      const prefix = `test:buckets:${randomUUID()}:`;
      const buckets = await RedisBuckets.connect(redisUrl!, prefix, 2_000, () => clock.now);
      const close = async () => {
        const keys = await buckets.redis.keys(`${prefix}*`);
        if (keys.length > 0) await buckets.redis.del(...keys);
        await buckets.close();
      };
      return { clock, buckets, close };
    },
  },
];

const policy: BucketPolicy = { capacity: 5, refillPerMinute: 60 }; // one token per second

async function take(store: Clocked, key: string, count: number, bucketPolicy = policy) {
  const decisions = [];
  for (let i = 0; i < count; i++) decisions.push(await store.buckets.take(key, bucketPolicy));
  return decisions;
}

for (const { name, skip, make } of stores) {
  describe(`${name} (injected clock)`, { skip }, () => {
    let store: Clocked;
    before(async () => {
      store = await make();
    });
    after(() => store?.close());

    test('capacity is consumed exactly, then refused with Retry-After and Reset', async () => {
      const decisions = await take(store, 'spend', 5);
      assert.deepEqual(
        decisions.map((d) => [
          d.allowed,
          d.limit,
          d.remaining,
          d.resetSeconds,
          d.retryAfterSeconds,
        ]),
        [
          [true, 5, 4, 1, 0],
          [true, 5, 3, 2, 0],
          [true, 5, 2, 3, 0],
          [true, 5, 1, 4, 0],
          [true, 5, 0, 5, 0],
        ],
      );
      assert.deepEqual(await store.buckets.take('spend', policy), {
        allowed: false,
        limit: 5,
        remaining: 0,
        resetSeconds: 5,
        retryAfterSeconds: 1,
      });
    });

    test('refills at exactly the configured rate', async () => {
      await take(store, 'refill', 5);
      store.clock.now += 999;
      assert.equal(
        (await take(store, 'refill', 1))[0]!.allowed,
        false,
        '999 ms is not yet a whole token',
      );
      store.clock.now += 1;
      assert.deepEqual((await take(store, 'refill', 1))[0], {
        allowed: true,
        limit: 5,
        remaining: 0,
        resetSeconds: 5,
        retryAfterSeconds: 0,
      });
      store.clock.now += 500;
      const [half] = await take(store, 'refill', 1);
      assert.equal(half!.allowed, false);
      assert.equal(half!.retryAfterSeconds, 1, 'half a token left to wait rounds up to 1 s');
      assert.equal(half!.resetSeconds, 5, '4.5 s to full rounds up to 5 s');
      store.clock.now += 1_500; // two whole tokens since the last one was spent
      assert.deepEqual(
        (await take(store, 'refill', 3)).map((d) => [d.allowed, d.remaining]),
        [
          [true, 1],
          [true, 0],
          [false, 0],
        ],
      );
    });

    test('a long idle spell refills to capacity and no further: no burst beyond it', async () => {
      await take(store, 'idle', 5);
      store.clock.now += 60 * 60_000; // an hour: 3600 tokens' worth of refill
      const burst = await take(store, 'idle', 7);
      assert.deepEqual(
        burst.map((d) => [d.allowed, d.remaining]),
        [
          [true, 4],
          [true, 3],
          [true, 2],
          [true, 1],
          [true, 0],
          [false, 0],
          [false, 0],
        ],
      );
      assert.equal(burst[0]!.resetSeconds, 1);
    });

    test('a fresh bucket starts full, not beyond', async () => {
      assert.deepEqual(
        (await take(store, 'fresh', 6)).map((d) => d.allowed),
        [true, true, true, true, true, false],
      );
    });

    test('remaining never goes negative and refusals cost nothing', async () => {
      await take(store, 'debt', 5);
      for (const refused of await take(store, 'debt', 20)) {
        assert.equal(refused.allowed, false);
        assert.equal(refused.remaining, 0);
      }
      store.clock.now += 1_000;
      assert.equal(
        (await take(store, 'debt', 1))[0]!.allowed,
        true,
        'twenty refusals did not push the bucket into debt',
      );
    });

    test('a clock stepping back neither drains nor refills the bucket', async () => {
      await take(store, 'back', 3); // 2 left
      store.clock.now -= 30_000;
      assert.deepEqual(
        (await take(store, 'back', 3)).map((d) => [d.allowed, d.remaining]),
        [
          [true, 1],
          [true, 0],
          [false, 0],
        ],
      );
      store.clock.now += 30_000 + 1_000; // one second after the step back
      assert.equal((await take(store, 'back', 1))[0]!.allowed, true);
    });

    test('slow refill gives a long Retry-After; keys are independent', async () => {
      const slow: BucketPolicy = { capacity: 2, refillPerMinute: 1 };
      const [, , refused] = await take(store, 'slow', 3, slow);
      assert.equal(refused?.allowed, false);
      assert.equal(refused?.retryAfterSeconds, 60);
      assert.equal(refused?.resetSeconds, 120);
      assert.equal((await take(store, 'other', 1, slow))[0]!.remaining, 1);
    });
  });
}

describe('RedisBuckets in Redis', { skip: redisSkip }, () => {
  let redis: Redis;
  const prefix = `test:buckets:${randomUUID()}:`;
  let buckets: RedisBuckets;
  before(async () => {
    redis = new Redis(redisUrl!, { maxRetriesPerRequest: 1 });
    buckets = await RedisBuckets.connect(redisUrl!, prefix);
  });
  after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await buckets.close();
  });

  /** Redis's clock, epoch ms. */
  const redisNow = async () => {
    const [seconds, micros] = await redis.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  };

  test("without an injected clock the script refills by Redis's own clock", async () => {
    // A bucket emptied 1.5 s ago by Redis's clock: one whole token is back, no more.
    await redis.hset(`${prefix}timed`, 'tokens', '0', 'at', String((await redisNow()) - 1_500));
    const decisions = [await buckets.take('timed', policy), await buckets.take('timed', policy)];
    assert.deepEqual(
      decisions.map((d) => d.allowed),
      [true, false],
    );
    const tokens = Number(await redis.hget(`${prefix}timed`, 'tokens'));
    assert.ok(tokens >= 0.5 && tokens < 0.6, `half a token left (${tokens})`);
  });

  test('a bucket stamped in the future (an instance or replica clock ahead) is not drained', async () => {
    await redis.hset(`${prefix}ahead`, 'tokens', '3', 'at', String((await redisNow()) + 60_000));
    const decision = await buckets.take('ahead', policy);
    assert.equal(decision.allowed, true);
    assert.equal(decision.remaining, 2);
  });

  test('the key expires once the bucket would be full again', async () => {
    for (let i = 0; i < 3; i++) await buckets.take('expiry', policy);
    const ttl = await redis.pttl(`${prefix}expiry`);
    // Three tokens at one per second: full in 3 s, plus the script's 1 s margin.
    assert.ok(ttl > 3_000 && ttl <= 4_000, `pttl ${ttl}`);
  });
});

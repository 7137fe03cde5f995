import { once } from 'node:events';
import type { Redis } from 'ioredis';
import { decide, type BucketPolicy, type BucketStore, type Decision } from './rate-limit.ts';

/**
 * The shared token buckets in Redis (REDIS_URL), split from rate-limit.ts so that a gateway
 * without Redis never loads ioredis (bench/README.md "Start-up"): `RedisBuckets.connect` imports it.
 * The bucket arithmetic and the clocks are described in rate-limit.ts.
 */

// KEYS[1] bucket; ARGV capacity, refill per ms, and (only with an injected clock) now in epoch ms.
// Returns {allowed, tokens as string}.
const takeScript = `
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if not now then
  local t = redis.call('TIME')
  now = t[1] * 1000 + math.floor(t[2] / 1000)
end
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = capacity
if state[1] then
  tokens = math.min(capacity, tonumber(state[1]) + math.max(0, now - tonumber(state[2])) * per_ms)
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / per_ms) + 1000)
return {allowed, tostring(tokens)}
`;

type TakeCommand = (
  key: string,
  capacity: number,
  perMs: number,
  ...now: number[]
) => Promise<[number, string]>;

/** ioredis states in which a connection is still being (re)established. */
const connectingStates: ReadonlySet<string> = new Set(['wait', 'connecting', 'connect']);

export class RedisBuckets implements BucketStore {
  /** The script command, bound once (not per request). */
  private readonly takeToken: TakeCommand;

  /**
   * Loads ioredis and connects to `url`.
   * @param timeoutMs how long a command may take (REDIS_COMMAND_TIMEOUT_MS); also how long a request
   *   waits for a connection being (re)established. Past it, the request is served locally.
   * @param now a clock for tests; without one the script uses Redis's (see rate-limit.ts).
   */
  static async connect(
    url: string,
    prefix: string,
    timeoutMs = 250,
    now?: () => number,
  ): Promise<RedisBuckets> {
    const { Redis } = await import('ioredis');
    const redis = new Redis(url, {
      // Fail fast while Redis is away so callers fall back instead of queueing.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: timeoutMs,
      connectTimeout: 1000,
      lazyConnect: false,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    return new RedisBuckets(redis, prefix, timeoutMs, now);
  }

  readonly redis: Redis;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly now?: () => number;
  private constructor(redis: Redis, prefix: string, timeoutMs: number, now?: () => number) {
    this.redis = redis;
    this.prefix = prefix;
    this.timeoutMs = timeoutMs;
    this.now = now;
    this.redis.on('error', () => {
      // Reported through the fallback path; ioredis keeps reconnecting on its own.
    });
    this.redis.defineCommand('takeToken', { numberOfKeys: 1, lua: takeScript });
    this.takeToken = (this.redis as unknown as { takeToken: TakeCommand }).takeToken.bind(
      this.redis,
    );
  }

  private connecting?: Promise<void>;

  /**
   * Without an offline queue, commands sent before the connection is ready fail at once: right
   * after start every instance would count locally (and report an outage). So wait briefly, all
   * callers on one shared listener, for a connection in progress; if it fails, the command fails.
   */
  private async ready(): Promise<void> {
    if (!connectingStates.has(this.redis.status)) return;
    this.connecting ??= once(this.redis, 'ready', { signal: AbortSignal.timeout(this.timeoutMs) })
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.connecting = undefined;
      });
    await this.connecting;
  }

  async take(key: string, policy: BucketPolicy): Promise<Decision> {
    await this.ready();
    const clock = this.now ? [this.now()] : [];
    const [allowed, tokens] = await this.takeToken(
      this.prefix + key,
      policy.capacity,
      policy.refillPerMinute / 60_000,
      ...clock,
    );
    return decide(Number(tokens), allowed === 1, policy);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }

  /** Redis answers a PING within the command timeout (a connection being made is waited for as by take). */
  async ping(): Promise<void> {
    await this.ready();
    await this.redis.ping();
  }
}

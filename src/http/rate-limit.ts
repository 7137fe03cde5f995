import { once } from 'node:events';
import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { FastifyBaseLogger } from 'fastify';
import { isClusterMessage, sendToPrimary, type BucketTake } from '../common/cluster-ipc.js';

/**
 * Token-bucket rate limiting (spec "Limits" 1): a bucket of `capacity` tokens per key, refilled
 * continuously at `refillPerMinute`. rate-limiter-flexible offers fixed and sliding windows only,
 * so the bucket arithmetic is ours; Redis runs it atomically (one Lua script, Redis's own clock)
 * so every gateway instance draws on the same budget.
 *
 * Clocks: each store takes an optional `now` (epoch ms) so tests can move time instead of sleeping.
 * In production RedisBuckets has none and the script reads Redis's TIME: one clock for every
 * instance, so instances whose clocks disagree neither over-refill nor drain a shared bucket.
 * Elapsed time is never negative (a clock stepped back, a failover to a Redis whose clock is behind).
 */
export interface BucketPolicy {
  capacity: number;
  refillPerMinute: number;
}

export interface Decision {
  allowed: boolean;
  limit: number;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until the next token, when refused. */
  retryAfterSeconds: number;
}

export interface BucketStore {
  take(key: string, policy: BucketPolicy): Promise<Decision>;
  /** The same take answered at once, by stores that live in this process (no promise per request). */
  takeNow?(key: string, policy: BucketPolicy): Decision;
  close(): Promise<void>;
  /** Resolves when the shared store answers (readiness); absent on stores that live in this process. */
  ping?(): Promise<void>;
}

function decide(tokensAfter: number, allowed: boolean, policy: BucketPolicy): Decision {
  const perSecond = policy.refillPerMinute / 60;
  return {
    allowed,
    limit: policy.capacity,
    remaining: Math.max(0, Math.floor(tokensAfter)),
    resetSeconds: Math.ceil((policy.capacity - tokensAfter) / perSecond),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokensAfter) / perSecond)),
  };
}

export class MemoryBuckets implements BucketStore {
  private readonly buckets = new LRUCache<string, { tokens: number; at: number }>({ max: 100_000 });

  constructor(private readonly now: () => number = Date.now) {}

  takeNow(key: string, policy: BucketPolicy): Decision {
    const now = this.now();
    const perMs = policy.refillPerMinute / 60_000;
    const bucket = this.buckets.get(key);
    let tokens = bucket
      ? Math.min(policy.capacity, bucket.tokens + Math.max(0, now - bucket.at) * perMs)
      : policy.capacity;
    const allowed = tokens >= 1;
    if (allowed) tokens -= 1;
    // Updated in place: a new object per request would outlive young collections (the LRU holds
    // it) and fill the old generation, whose collections are what lengthens the latency tail.
    if (bucket) {
      bucket.tokens = tokens;
      bucket.at = now;
    } else this.buckets.set(key, { tokens, at: now });
    return decide(tokens, allowed, policy);
  }

  async take(key: string, policy: BucketPolicy): Promise<Decision> {
    return this.takeNow(key, policy);
  }

  async close(): Promise<void> {}
}

/**
 * A worker's buckets when WORKERS>1 and Redis is absent: the primary keeps them (MemoryBuckets)
 * and answers takes over IPC, matched by id, so a user has one budget whichever worker serves them.
 * The takes of one event-loop turn go as one message (sent when the turn's I/O is done, by
 * setImmediate) and come back as one: under load a round trip serves many requests instead of
 * costing each request its own. Should the primary be gone, takes fail and FallbackBuckets counts
 * locally.
 */
export class PrimaryBuckets implements BucketStore {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve(decision: Decision): void; reject(error: Error): void }
  >();
  /** Takes of this turn not yet sent. */
  private queued: BucketTake[] = [];
  private readonly onMessage = (message: unknown) => {
    if (!isClusterMessage(message) || message.gateway !== 'taken') return;
    for (const { id, decision } of message.decisions) {
      const waiter = this.pending.get(id);
      this.pending.delete(id);
      waiter?.resolve(decision as Decision);
    }
  };
  private readonly flush = () => {
    const takes = this.queued;
    this.queued = [];
    if (!sendToPrimary({ gateway: 'take', takes }))
      for (const { id } of takes) {
        this.pending.get(id)?.reject(new Error('the primary process is gone'));
        this.pending.delete(id);
      }
  };
  private readonly onDisconnect = () => this.failAll(new Error('the primary process is gone'));

  constructor() {
    process.on('message', this.onMessage);
    process.once('disconnect', this.onDisconnect);
  }

  take(key: string, policy: BucketPolicy): Promise<Decision> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.queued.push({ id, key, policy }) === 1) setImmediate(this.flush);
    });
  }

  private failAll(error: Error): void {
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }

  async close(): Promise<void> {
    process.off('message', this.onMessage);
    process.off('disconnect', this.onDisconnect);
    this.queued = [];
    this.failAll(new Error('rate limiter closed'));
  }
}

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
  readonly redis: Redis;
  /** The script command, bound once (not per request). */
  private readonly takeToken: TakeCommand;

  /**
   * @param timeoutMs how long a command may take (REDIS_COMMAND_TIMEOUT_MS); also how long a request
   *   waits for a connection being (re)established. Past it, the request is served locally.
   * @param now a clock for tests; without one the script uses Redis's (see the module comment).
   */
  constructor(
    url: string,
    private readonly prefix: string,
    private readonly timeoutMs = 250,
    private readonly now?: () => number,
  ) {
    this.redis = new Redis(url, {
      // Fail fast while Redis is away so callers fall back instead of queueing.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: timeoutMs,
      connectTimeout: 1000,
      lazyConnect: false,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
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

/**
 * Uses the shared store while it answers and local buckets while it doesn't, so an outage of
 * Redis degrades to per-instance limits instead of refusing or unthrottling traffic.
 */
export class FallbackBuckets implements BucketStore {
  private degraded = false;
  /** While degraded, the shared store is retried once this time has passed (epoch ms). */
  private retryAt = 0;

  constructor(
    private readonly shared: BucketStore,
    private readonly local: BucketStore,
    private readonly log: FastifyBaseLogger,
    private readonly onFallback: () => void,
    /** A store that hangs costs its timeout per call; after a failure, skip it this long. */
    private readonly retryIntervalMs = 1_000,
    private readonly now: () => number = Date.now,
  ) {}

  async take(key: string, policy: BucketPolicy): Promise<Decision> {
    if (!this.degraded || this.now() >= this.retryAt) {
      try {
        const decision = await this.shared.take(key, policy);
        if (this.degraded) {
          this.degraded = false;
          this.log.info('rate-limit store reachable again; using shared counters');
        }
        return decision;
      } catch (error) {
        this.retryAt = this.now() + this.retryIntervalMs;
        if (!this.degraded) {
          this.degraded = true;
          this.log.warn({ err: error }, 'rate-limit store unreachable; using local counters');
        }
      }
    }
    this.onFallback();
    return this.local.take(key, policy);
  }

  async close(): Promise<void> {
    await Promise.all([this.shared.close(), this.local.close()]);
  }

  /** The shared store's answer: readiness reports its outage even while requests fall back. */
  async ping(): Promise<void> {
    await this.shared.ping?.();
  }
}

export function rateLimitHeaders(decision: Decision): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
  };
  if (!decision.allowed) headers['retry-after'] = String(decision.retryAfterSeconds);
  return headers;
}

import { LRUCache } from 'lru-cache';
import type { FastifyBaseLogger } from 'fastify';
import { isClusterMessage, sendToPrimary, type BucketTake } from '../common/cluster-ipc.ts';

/**
 * Token-bucket rate limiting (spec "Limits" 1): a bucket of `capacity` tokens per key, refilled
 * continuously at `refillPerMinute`. rate-limiter-flexible offers fixed and sliding windows only,
 * so the bucket arithmetic is ours; Redis runs it atomically (one Lua script, Redis's own clock)
 * so every gateway instance draws on the same budget (RedisBuckets, in rate-limit-redis.ts: ioredis
 * is loaded only with REDIS_URL).
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

export function decide(tokensAfter: number, allowed: boolean, policy: BucketPolicy): Decision {
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
  // At most 100,000 buckets, counted through maxSize: `max` would allocate all 100,000 slots up front.
  private readonly buckets = new LRUCache<string, { tokens: number; at: number }>({
    maxSize: 100_000,
    sizeCalculation: () => 1,
  });

  private readonly now: () => number;
  constructor(now: () => number = Date.now) {
    this.now = now;
  }

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

/**
 * Uses the shared store while it answers and local buckets while it doesn't, so an outage of
 * Redis degrades to per-instance limits instead of refusing or unthrottling traffic.
 */
export class FallbackBuckets implements BucketStore {
  private degraded = false;
  /** While degraded, the shared store is retried once this time has passed (epoch ms). */
  private retryAt = 0;

  private readonly shared: BucketStore;
  private readonly local: BucketStore;
  private readonly log: FastifyBaseLogger;
  private readonly onFallback: () => void;
  private readonly retryIntervalMs;
  private readonly now: () => number;
  constructor(
    shared: BucketStore,
    local: BucketStore,
    log: FastifyBaseLogger,
    onFallback: () => void,
    /** A store that hangs costs its timeout per call; after a failure, skip it this long. */
    retryIntervalMs = 1_000,
    now: () => number = Date.now,
  ) {
    this.shared = shared;
    this.local = local;
    this.log = log;
    this.onFallback = onFallback;
    this.retryIntervalMs = retryIntervalMs;
    this.now = now;
  }

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

/** The RateLimit-* headers of a decision (and Retry-After when it refuses), set on `reply`. */
export function setRateLimitHeaders(
  reply: { header(name: string, value: string): unknown },
  decision: Decision,
): void {
  // Set one by one, not gathered in an object first: this runs for nearly every request.
  reply.header('ratelimit-limit', String(decision.limit));
  reply.header('ratelimit-remaining', String(decision.remaining));
  reply.header('ratelimit-reset', String(decision.resetSeconds));
  if (!decision.allowed) reply.header('retry-after', String(decision.retryAfterSeconds));
}

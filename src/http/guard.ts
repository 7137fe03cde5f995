import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayConfig } from '../config/index.ts';
import { matchedRoute } from './matched-route.ts';
import { AuthError, authorize, extractToken, type AuthLevel, type TokenVerifier } from './auth.ts';
import type { Identity } from '../common/identity.ts';
import type { Metrics } from './metrics.ts';
import type { SeenUsers } from './seen-users.ts';
import {
  setRateLimitHeaders,
  type BucketPolicy,
  type BucketStore,
  type Decision,
} from './rate-limit.ts';
import { gatewayError } from '../common/errors.ts';
import { allowList } from './address-allow-list.ts';
import { addressBudgetName } from '../common/client-address.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; routes that don't say require a user. */
    auth?: AuthLevel;
    /** `false` exempts the route from rate limiting (health, metrics). */
    rateLimit?: boolean;
  }
  interface FastifyRequest {
    identity?: Identity;
  }
}

export interface GuardDeps {
  config: GatewayConfig;
  verifier: TokenVerifier;
  buckets: BucketStore;
  metrics: Metrics;
  seenUsers: SeenUsers;
}

/**
 * Every matched request passes three steps, in this order: authenticate (read and verify a token,
 * if the route reads credentials), throttle (per user when identified, else per client address,
 * `request.ip`, which TRUST_PROXY makes the client before a trusted proxy, so failed logins spend
 * the anonymous budget), authorize (the route's auth level).
 * Unmatched paths skip all three and get their 404 first.
 */
export function registerGuard(app: FastifyInstance, deps: GuardDeps): void {
  const { config, verifier, buckets, metrics, seenUsers } = deps;
  const userPolicy: BucketPolicy = {
    capacity: config.rateLimit.burst,
    refillPerMinute: config.rateLimit.userPerMin,
  };
  const anonPolicy: BucketPolicy = {
    capacity: config.rateLimit.anonPerMin,
    refillPerMinute: config.rateLimit.anonPerMin,
  };
  // A named client (RATE_LIMIT_CLIENTS: a web UI's server, calling for every signed-out visitor)
  // has a larger budget of its own, under the same key as any address.
  const clientPolicy: BucketPolicy = {
    capacity: config.rateLimit.clientPerMin,
    refillPerMinute: config.rateLimit.clientPerMin,
  };
  const isNamedClient =
    config.rateLimit.clients.length > 0 ? allowList(config.rateLimit.clients) : () => false;

  /**
   * The guard's three steps, each answered at once when it can be (a token verified before, an
   * in-process bucket, a user already on record) and chained on a promise only when it cannot:
   * under load nearly every request is the first kind, and an async step costs a promise and a
   * microtask each. Throws (or rejects) with the request's refusal.
   */
  function guard(request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined {
    const level = matchedRoute(request).auth ?? 'user';
    const token = level === 'none' ? undefined : extractToken(request.headers);
    if (token === undefined) return throttle(request, reply, level, undefined);
    const known = verifier.verifiedBefore(token, request.raw.socket);
    if (known) {
      request.identity = known.identity;
      return throttle(request, reply, level, undefined);
    }
    return verifier.verify(token).then(
      (verified) => {
        request.identity = verified.identity;
        return throttle(request, reply, level, undefined);
      },
      (error: unknown) => {
        // A bad token is refused after throttling, so failed logins spend the anonymous budget.
        if (error instanceof AuthError) return throttle(request, reply, level, error);
        throw error;
      },
    );
  }

  function throttle(
    request: FastifyRequest,
    reply: FastifyReply,
    level: AuthLevel,
    authFailure: AuthError | undefined,
  ): Promise<void> | undefined {
    if (matchedRoute(request).rateLimit === false)
      return admit(request, reply, level, authFailure, undefined);
    // An IPv6 client by its /64: one subscriber's network, not 2^64 budgets of its own.
    const key = request.identity
      ? `user:${request.identity.username}`
      : `addr:${addressBudgetName(request.ip)}`;
    const policy = request.identity
      ? userPolicy
      : isNamedClient(request.ip)
        ? clientPolicy
        : anonPolicy;
    if (buckets.takeNow)
      return admit(request, reply, level, authFailure, buckets.takeNow(key, policy));
    return buckets
      .take(key, policy)
      .then((decision) => admit(request, reply, level, authFailure, decision));
  }

  function admit(
    request: FastifyRequest,
    reply: FastifyReply,
    level: AuthLevel,
    authFailure: AuthError | undefined,
    decision: Decision | undefined,
  ): Promise<void> | undefined {
    if (decision) {
      setRateLimitHeaders(reply, decision);
      if (!decision.allowed) {
        metrics.rateLimitRejections.inc({ caller: request.identity ? 'user' : 'anonymous' });
        throw gatewayError(
          'ERR_TOO_MANY_REQUESTS',
          `Rate limit exceeded; retry in ${decision.retryAfterSeconds} s.`,
        );
      }
    }
    try {
      if (authFailure) throw authFailure;
      authorize(level, request.identity, config.auth);
    } catch (error) {
      if (error instanceof AuthError) metrics.authFailures.inc({ reason: error.failure });
      throw error;
    }
    return request.identity ? seenUsers.record(request.identity) : undefined;
  }

  app.decorateRequest('identity', undefined);
  // Callback-style (see guard): the hook waits only when a step had to.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.is404) return done();
    let pending: Promise<void> | undefined;
    try {
      pending = guard(request, reply);
    } catch (error) {
      return done(error as Error);
    }
    if (pending) pending.then(() => done(), done);
    else done();
  });
}

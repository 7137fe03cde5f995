import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { GatewayConfig } from '../config.js';
import { AuthError, authorize, extractToken, type AuthLevel, type TokenVerifier } from './auth.js';
import type { Identity } from '../common/identity.js';
import type { Metrics } from './metrics.js';
import type { SeenUsers } from './seen-users.js';
import { rateLimitHeaders, type BucketPolicy, type BucketStore } from './rate-limit.js';
import { gatewayError } from '../common/errors.js';

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
 * so failed logins spend the anonymous budget), authorize (the route's auth level).
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

  async function authenticate(
    request: FastifyRequest,
    level: AuthLevel,
  ): Promise<AuthError | undefined> {
    if (level === 'none') return undefined;
    const token = extractToken(request.headers);
    if (token === undefined) return undefined;
    try {
      request.identity = (await verifier.verify(token)).identity;
      return undefined;
    } catch (error) {
      if (error instanceof AuthError) return error;
      throw error;
    }
  }

  app.decorateRequest('identity', undefined);
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) return;
    const routeConfig = request.routeOptions.config;
    const level = routeConfig.auth ?? 'user';
    const authFailure = await authenticate(request, level);

    if (routeConfig.rateLimit !== false) {
      const caller = request.identity ? 'user' : 'anonymous';
      const decision = request.identity
        ? await buckets.take(`user:${request.identity.username}`, userPolicy)
        : await buckets.take(`addr:${request.ip}`, anonPolicy);
      reply.headers(rateLimitHeaders(decision));
      if (!decision.allowed) {
        metrics.rateLimitRejections.inc({ caller });
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
    if (request.identity) await seenUsers.record(request.identity);
  });
}

// Tag operations: liveness, readiness and Prometheus metrics (exempt from rate limits).
import type { FastifyInstance } from 'fastify';
import type { BackendName } from '../common/backend-names.ts';
import type { GatewayConfig } from '../config/index.ts';
import type { Metrics } from '../http/metrics.ts';
import type { Forwarder } from '../http/proxy.ts';
import type { Store } from '../store/database.ts';
import { errorTable } from '../common/errors.ts';
import { dependencyChecks } from './shared/dependency-checks.ts';

export interface OperationsDeps {
  store: Store;
  forwarder: Forwarder;
  metrics: Metrics;
  /** Backends with a configured URL: readiness requires each to answer. */
  remoteBackends: BackendName[];
  /** Answers when the shared rate-limit store (Redis, with REDIS_URL set) does: readiness requires it. */
  pingRedis?: () => Promise<void>;
  /** Answers when the S3 bucket of file bytes (BLOB_STORE_URL) does: readiness requires it. */
  pingBlobStore?: () => Promise<void>;
  /** readinessTimeoutMs: longest wait for each check (READINESS_TIMEOUT_MS), a stalled dependency fails its check, not the probe. */
  config: Pick<GatewayConfig, 'readinessTimeoutMs'>;
}

export async function operationsRoutes(app: FastifyInstance, deps: OperationsDeps): Promise<void> {
  const config = { auth: 'none' as const, rateLimit: false };

  app.get('/livez', {
    config,
    schema: {
      tags: ['operations'],
      summary: 'Liveness: the process is serving requests',
      security: [],
      response: { 200: { type: 'object', properties: { status: { type: 'string' } } } },
    },
    handler: async () => ({ status: 'ok' }),
  });

  app.get('/readyz', {
    config,
    schema: {
      tags: ['operations'],
      summary:
        'Readiness: the database, Redis and the S3 bucket of file bytes (when configured) and every configured backend answer, each within READINESS_TIMEOUT_MS',
      security: [],
      response: {
        200: {
          type: 'object',
          properties: {
            status: { type: 'string' },
            checks: { type: 'object', additionalProperties: { type: 'string' } },
          },
        },
        503: {
          type: 'object',
          properties: {
            error_code: { type: 'string' },
            reason: { type: 'string' },
            checks: { type: 'object', additionalProperties: { type: 'string' } },
          },
        },
      },
    },
    handler: async (_request, reply) => {
      const checks = await dependencyChecks(deps);
      const names = Object.keys(checks);
      const failing = names.filter((name) => checks[name] !== 'ok');
      if (failing.length === 0) return { status: 'ready', checks };
      return reply.code(errorTable.ERR_UNAVAILABLE.status).send({
        error_code: 'ERR_UNAVAILABLE',
        reason: `Not ready: ${failing.join(', ')}`,
        checks,
      });
    },
  });

  app.get('/metrics', {
    config,
    schema: {
      tags: ['operations'],
      summary: 'Prometheus metrics',
      security: [],
      response: {
        200: {
          description: 'Prometheus text exposition format',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
      },
    },
    handler: async (_request, reply) =>
      reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  });
}

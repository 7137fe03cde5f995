// Tag operations: liveness, readiness and Prometheus metrics (exempt from rate limits).
import type { FastifyInstance } from 'fastify';
import type { BackendName } from '../backends/catalog.js';
import type { Metrics } from '../http/metrics.js';
import type { Forwarder } from '../http/proxy.js';
import type { Store } from '../store/database.js';

export interface OperationsDeps {
  store: Store;
  forwarder: Forwarder;
  metrics: Metrics;
  /** Backends with a configured URL: readiness requires each to answer. */
  remoteBackends: BackendName[];
}

const probeTimeoutMs = 2_000;

async function check(probe: () => Promise<void>): Promise<string> {
  try {
    await probe();
    return 'ok';
  } catch (error) {
    return `unavailable: ${(error as Error).message}`;
  }
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
      summary: 'Readiness: the database and every configured backend answer',
      security: [],
      response: {
        200: { type: 'object', properties: { status: { type: 'string' }, checks: { type: 'object', additionalProperties: { type: 'string' } } } },
        503: {
          type: 'object',
          properties: { error_code: { type: 'string' }, reason: { type: 'string' }, checks: { type: 'object', additionalProperties: { type: 'string' } } },
        },
      },
    },
    handler: async (_request, reply) => {
      const names = ['database', ...deps.remoteBackends];
      const results = await Promise.all([
        check(deps.store.ping),
        ...deps.remoteBackends.map((backend) =>
          check(async () => {
            // Any HTTP answer proves the backend is reachable; only transport failures count.
            const response = await deps.forwarder.request(backend, 'GET', '/', {}, undefined, AbortSignal.timeout(probeTimeoutMs));
            await response.body.dump();
          }),
        ),
      ]);
      const checks = Object.fromEntries(names.map((name, index) => [name, results[index]!]));
      const failing = names.filter((name) => checks[name] !== 'ok');
      if (failing.length === 0) return { status: 'ready', checks };
      return reply.code(503).send({ error_code: 'ERR_UNAVAILABLE', reason: `Not ready: ${failing.join(', ')}`, checks });
    },
  });

  app.get('/metrics', {
    config,
    schema: {
      tags: ['operations'],
      summary: 'Prometheus metrics',
      security: [],
      response: { 200: { description: 'Prometheus text exposition format', type: 'string' } },
    },
    handler: async (_request, reply) =>
      reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  });
}

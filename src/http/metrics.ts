import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per gateway instance, so several instances can live in one process (tests). */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: 'gateway_http_requests_total',
      help: 'Requests answered, by route template, method and status',
      labelNames: ['route', 'method', 'status'] as const,
      registers: [registry],
    }),
    requestDuration: new Histogram({
      name: 'gateway_http_request_duration_seconds',
      help: 'Time from request to response, by route template and method',
      labelNames: ['route', 'method'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    backendDuration: new Histogram({
      name: 'gateway_backend_request_duration_seconds',
      help: 'Time until a backend answered with headers, by backend and status (or error kind)',
      labelNames: ['backend', 'status'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    rateLimitRejections: new Counter({
      name: 'gateway_rate_limit_rejections_total',
      help: 'Requests refused with 429, by kind of caller',
      labelNames: ['caller'] as const,
      registers: [registry],
    }),
    rateLimitFallbacks: new Counter({
      name: 'gateway_rate_limit_store_fallbacks_total',
      help: 'Rate-limit decisions taken locally because the shared store (Redis) failed',
      registers: [registry],
    }),
    authFailures: new Counter({
      name: 'gateway_auth_failures_total',
      help: 'Requests refused by authentication or authorization, by reason',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

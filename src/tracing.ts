// OpenTelemetry tracing, loaded only when it is configured (TracingSettings): the SDK, the OTLP/HTTP
// exporter and the maintained instrumentations (undici for every backend call, embedded or
// remote; pg; ioredis; amqplib; the AWS SDK; @fastify/otel for a span per request). Every module of
// theirs is imported here, inside startTracing, so that a gateway without tracing loads none of them.
import { createRequire } from 'node:module';
import { finished, type Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context, Span, Tracer } from '@opentelemetry/api';
import type { Sampler } from '@opentelemetry/sdk-trace-node';
import type { FastifyRequest } from 'fastify';
import { installTracing, type SpanAttributes, type Tracing } from './common/tracing.ts';
import type { TracingSettings } from './config/index.ts';

export interface TracingOptions {
  /** Where a failing exporter is reported, at most once a minute. */
  warn(details: object, message: string): void;
  /**
   * Packages this process uses whose instrumentation patches them when they are required (pg with
   * DATABASE_URL, ioredis with REDIS_URL): required here, under the hooks, whether or not something
   * imported them already.
   */
  preload: readonly string[];
}

/** Routes asked every few seconds by probes and scrapers: a span each would bury the traces that matter. */
const untracedRoutes = new Set(['/livez', '/readyz', '/metrics']);

/**
 * A path without its query: a backend call's carries the caller's identity parameters (user,
 * email), a client's whatever it sent; spans keep the route and the user (`enduser.id`) instead.
 */
function withoutQuery(path: string): string {
  const query = path.indexOf('?');
  return query < 0 ? path : path.slice(0, query);
}

/** Longest wait at shutdown for the spans still held to be sent. */
const flushLimitMs = 2_000;

/** Least time between two warnings of a failing exporter: a collector that is down is one line a minute. */
const warnEveryMs = 60_000;

interface Running {
  users: number;
  stop(): Promise<void>;
}

let running: Promise<Running> | undefined;

/**
 * Starts tracing for this process, or joins it when a gateway of the process already did (tests
 * build several); the answer releases it, and the last release flushes the spans still held and
 * stops the SDK.
 */
export async function startTracing(
  settings: TracingSettings,
  options: TracingOptions,
): Promise<() => Promise<void>> {
  running ??= load(settings, options);
  const current = await running;
  current.users++;
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    if (--current.users > 0) return;
    running = undefined;
    await current.stop();
  };
}

async function load(settings: TracingSettings, options: TracingOptions): Promise<Running> {
  const [
    api,
    { setGlobalErrorHandler },
    { resourceFromAttributes },
    sdk,
    { OTLPTraceExporter },
    { registerInstrumentations },
    { UndiciInstrumentation },
    { PgInstrumentation },
    { IORedisInstrumentation },
    { AmqplibInstrumentation },
    { AwsInstrumentation },
    { FastifyOtelInstrumentation },
  ] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/instrumentation'),
    import('@opentelemetry/instrumentation-undici'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@opentelemetry/instrumentation-amqplib'),
    import('@opentelemetry/instrumentation-aws-sdk'),
    import('@fastify/otel'),
  ]);

  // A collector that is down or refuses spans drops them; the gateway carries on, and says so rarely.
  let lastWarning = -Infinity;
  setGlobalErrorHandler((error) => {
    const now = performance.now();
    if (now - lastWarning < warnEveryMs) return;
    lastWarning = now;
    options.warn(
      { err: error, endpoint: settings.tracesUrl },
      'spans could not be exported; dropping them (warned at most once a minute)',
    );
  });

  const ratio = new sdk.TraceIdRatioBasedSampler(settings.samplerRatio);
  const samplers: Record<TracingSettings['sampler'], Sampler> = {
    always_on: new sdk.AlwaysOnSampler(),
    always_off: new sdk.AlwaysOffSampler(),
    traceidratio: ratio,
    parentbased_always_on: new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() }),
    parentbased_always_off: new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() }),
    parentbased_traceidratio: new sdk.ParentBasedSampler({ root: ratio }),
  };
  const provider = new sdk.NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
    sampler: samplers[settings.sampler],
    spanProcessors: [
      new sdk.BatchSpanProcessor(new OTLPTraceExporter({ url: settings.tracesUrl }), {
        scheduledDelayMillis: settings.batchDelayMs,
      }),
    ],
  });
  // The AsyncLocalStorage context manager and the W3C trace-context and baggage propagators.
  provider.register();

  const fastify = new FastifyOtelInstrumentation({
    // One span per request (and one for its handler, which carries the request's context into
    // it), not one per hook.
    instrumentHooks: false,
    ignorePaths: ({ url }) => untracedRoutes.has(url),
    requestHook: (span, request) => {
      span.updateName(
        request.routeOptions.url ? `${request.method} ${request.routeOptions.url}` : request.method,
      );
      span.setAttribute('url.path', withoutQuery(request.url));
    },
  });
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new UndiciInstrumentation({
        requestHook: (span, request) =>
          span.setAttributes({
            'url.full': `${request.origin}${withoutQuery(request.path)}`,
            'url.query': '',
          }),
      }),
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation(),
      new AmqplibInstrumentation(),
      new AwsInstrumentation(),
      fastify,
    ],
  });
  // The require hooks see a package required, not one imported as ESM (the gateway's `import()`):
  // required here, it is patched in place, and an import before or after is the same module.
  const require = createRequire(import.meta.url);
  for (const name of options.preload) require(name);

  const tracer = provider.getTracer('platform-gateway');
  installTracing(tracingWith(tracer, api, fastify.plugin()));

  return {
    users: 0,
    async stop() {
      installTracing(undefined);
      unregister();
      // Spans the collector has not taken by then are dropped (its failure was warned of already):
      // a collector that is down must not hold the shutdown.
      await Promise.race([
        provider.shutdown().catch(() => {}),
        sleep(flushLimitMs, undefined, { ref: false }),
      ]);
      api.trace.disable();
      api.context.disable();
      api.propagation.disable();
    },
  };
}

const noSpan = { setAttributes: () => undefined };

type Api = typeof import('@opentelemetry/api');

function tracingWith(tracer: Tracer, api: Api, fastifyPlugin: Tracing['fastifyPlugin']): Tracing {
  const failed = (span: Span, error: unknown) => {
    span.recordException(error as Error);
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: (error as Error)?.message });
  };
  return {
    fastifyPlugin,
    currentContext: () => api.context.active(),
    inContext: (context, work) => api.context.with(context as Context, work),
    inSpan(name, attributes, work, options) {
      if (options?.childOnly && !api.trace.getActiveSpan()) return work(noSpan);
      return tracer.startActiveSpan(name, { attributes }, (span) => {
        let result: ReturnType<typeof work>;
        try {
          result = work(span);
        } catch (error) {
          failed(span, error);
          span.end();
          throw error;
        }
        if (result instanceof Promise) {
          return result.then(
            (value: unknown) => {
              span.end();
              return value;
            },
            (error: unknown) => {
              failed(span, error);
              span.end();
              throw error;
            },
          ) as typeof result;
        }
        span.end();
        return result;
      });
    },
    overStream<S extends Readable>(name: string, attributes: SpanAttributes, stream: S): S {
      const span = tracer.startSpan(name, { attributes });
      finished(stream, (error) => {
        if (error && error.name !== 'AbortError') failed(span, error);
        span.end();
      });
      return stream;
    },
    setRequestAttributes(request: FastifyRequest, attributes: SpanAttributes) {
      const traced = request as FastifyRequest & { opentelemetry?: () => { span?: Span } };
      traced.opentelemetry?.().span?.setAttributes(attributes);
    },
  };
}

// OpenTelemetry tracing as the rest of the code sees it: nothing at all unless it is configured.
// src/tracing.ts loads the SDK and installs a Tracing here when OTEL_EXPORTER_OTLP_ENDPOINT is set;
// until then every helper below runs its work as it is, and no OpenTelemetry module is loaded.
import type { Readable } from 'node:stream';
import type { Attributes } from '@opentelemetry/api';
import type { FastifyPluginCallback, FastifyRequest } from 'fastify';

export type SpanAttributes = Attributes;

/** What work in a span may add to it once it knows more (the bytes a transfer moved, say). */
export interface SpanHandle {
  setAttributes(attributes: SpanAttributes): unknown;
}

export interface SpanOptions {
  /**
   * Only within a trace: work that no request, or other traced work, started (migrations at
   * start, timers) makes no span of its own, as the pg and ioredis instrumentations are set.
   */
  childOnly?: boolean;
}

const noSpan: SpanHandle = { setAttributes: () => undefined };

/** What the SDK, once loaded, offers the code that makes spans of its own. */
export interface Tracing {
  /**
   * Runs `work` in a new span, a child of the active one, which is active for whatever `work`
   * starts; the span ends when `work` returns or its promise settles, a failure recorded on it.
   */
  inSpan<T>(
    name: string,
    attributes: SpanAttributes,
    work: (span: SpanHandle) => T,
    options?: SpanOptions,
  ): T;
  /** The active context (its span), for work queued now that runs later in another's turn. */
  currentContext(): unknown;
  /** Runs `work` in a context currentContext gave: its spans join that trace. */
  inContext<T>(context: unknown, work: () => T): T;
  /** A span that lasts as long as `stream` flows: it ends when the stream ends, fails or closes. */
  overStream<S extends Readable>(name: string, attributes: SpanAttributes, stream: S): S;
  /** Sets attributes on the span of a request that @fastify/otel follows (the user, once known). */
  setRequestAttributes(request: FastifyRequest, attributes: SpanAttributes): void;
  /** @fastify/otel's plugin: a span per request of the Fastify instance it is registered on. */
  fastifyPlugin: FastifyPluginCallback;
}

let installed: Tracing | undefined;

/** Installs (or with undefined removes) the process's tracing: src/tracing.ts alone calls it. */
export function installTracing(tracing: Tracing | undefined): void {
  installed = tracing;
}

/** The process's tracing, when it is on. */
export function activeTracing(): Tracing | undefined {
  return installed;
}

/** `work` in a span of its own when tracing is on; otherwise just `work()`. */
export function inSpan<T>(
  name: string,
  attributes: SpanAttributes,
  work: (span: SpanHandle) => T,
  options?: SpanOptions,
): T {
  return installed ? installed.inSpan(name, attributes, work, options) : work(noSpan);
}

/** `stream` followed by a span when tracing is on; otherwise the stream as it is. */
export function spanOverStream<S extends Readable>(
  name: string,
  attributes: SpanAttributes,
  stream: S,
): S {
  return installed ? installed.overStream(name, attributes, stream) : stream;
}

/**
 * The active trace context when tracing is on (undefined when off), for work queued now and done
 * later by another (an AMQP message published from the publisher's queue): inContext runs it there.
 */
export function currentContext(): unknown {
  return installed?.currentContext();
}

/** `work` in a context currentContext gave, its spans in that trace; otherwise just `work()`. */
export function inContext<T>(context: unknown, work: () => T): T {
  return installed && context !== undefined ? installed.inContext(context, work) : work();
}

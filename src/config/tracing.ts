// OpenTelemetry tracing (docs/operations.md, "Tracing"): OpenTelemetry's own variables (the SDK
// configuration specification), read here so that a mistake is refused at start like any other
// setting; the SDK is given the values, not the environment.
import { boolean, ConfigError, integer, text, url, type Env } from './variables.ts';

/** The samplers OTEL_TRACES_SAMPLER may name (the OpenTelemetry specification's, less the remote ones). */
export const traceSamplers = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

export type TraceSampler = (typeof traceSamplers)[number];

export interface TracingSettings {
  /**
   * Where spans are sent, OTLP over HTTP (JSON): OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, or
   * OTEL_EXPORTER_OTLP_ENDPOINT with `/v1/traces` appended, as the specification says.
   */
  tracesUrl: string;
  /** The `service.name` of every span (OTEL_SERVICE_NAME, default `platform-gateway`). */
  serviceName: string;
  /** Which traces are kept (OTEL_TRACES_SAMPLER, default `parentbased_always_on`). */
  sampler: TraceSampler;
  /** The share of traces a `traceidratio` sampler keeps, 0 to 1 (OTEL_TRACES_SAMPLER_ARG, default 1). */
  samplerRatio: number;
  /** Longest wait before ended spans are sent, in a batch (OTEL_BSP_SCHEDULE_DELAY, ms, default 5000). */
  batchDelayMs: number;
}

/** On when an OTLP endpoint is set and OTEL_SDK_DISABLED is not true; undefined means off. */
export function tracingSettings(env: Env): TracingSettings | undefined {
  if (boolean(env, 'OTEL_SDK_DISABLED', false)) return undefined;
  const protocols = ['http:', 'https:'];
  const traces = url(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', protocols);
  const base = url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', protocols);
  if (!traces && !base) return undefined;
  const sampler = (text(env, 'OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on').toLowerCase();
  if (!(traceSamplers as readonly string[]).includes(sampler))
    throw new ConfigError(
      'OTEL_TRACES_SAMPLER',
      `must be one of ${traceSamplers.join(', ')}, got "${sampler}"`,
    );
  const rawRatio = text(env, 'OTEL_TRACES_SAMPLER_ARG') ?? '1';
  const ratio = /^\d+(\.\d+)?$/.test(rawRatio) ? Number(rawRatio) : NaN;
  if (!(ratio >= 0 && ratio <= 1))
    throw new ConfigError(
      'OTEL_TRACES_SAMPLER_ARG',
      `must be a number from 0 to 1, got "${rawRatio}"`,
    );
  return {
    tracesUrl: traces ? traces.toString() : `${base!.toString().replace(/\/+$/, '')}/v1/traces`,
    serviceName: text(env, 'OTEL_SERVICE_NAME') ?? 'platform-gateway',
    sampler: sampler as TraceSampler,
    samplerRatio: ratio,
    batchDelayMs: integer(env, 'OTEL_BSP_SCHEDULE_DELAY', 5_000, 1, 600_000),
  };
}

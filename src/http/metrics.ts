import {
  Counter,
  Histogram,
  Registry,
  collectDefaultMetrics,
  type CounterConfiguration,
  type HistogramConfiguration,
  type LabelValues,
  type Aggregator,
} from 'prom-client';

type LabelValue = string | number;

/**
 * Label values to a series, one Map level per label, so that finding a request's series builds no
 * key string: prom-client's own `inc`/`observe` validate the label object and join its names and
 * values into a key on every call, which cost ≈ 1 µs for a request's three updates
 * (bench/README.md, third pass).
 */
class SeriesIndex<S> {
  private readonly root = new Map<LabelValue | undefined, unknown>();
  /** Every series made, in the order first used (the order they are exported in). */
  readonly made: S[] = [];

  private readonly labelNames: readonly string[];
  private readonly make: (labels: Record<string, string>) => S;
  constructor(labelNames: readonly string[], make: (labels: Record<string, string>) => S) {
    this.labelNames = labelNames;
    this.make = make;
  }

  /** The series of these label values (in labelNames order), made on first use. */
  find(values: ReadonlyArray<LabelValue | undefined>): S {
    let level = this.root;
    const last = this.labelNames.length - 1;
    for (let index = 0; index < last; index++) {
      let next = level.get(values[index]) as Map<LabelValue | undefined, unknown> | undefined;
      if (!next) level.set(values[index], (next = new Map()));
      level = next;
    }
    let series = level.get(values[last]) as S | undefined;
    if (series === undefined) {
      // Label values as prom-client keeps them (strings; an absent label left out), in labelNames order.
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, index) => {
        if (values[index] !== undefined) labels[name] = String(values[index]);
      });
      level.set(values[last], (series = this.make(labels)));
      this.made.push(series);
    }
    return series;
  }

  /** The series of a label object (prom-client's calling convention, off the request path). */
  of(labels: Record<string, LabelValue | undefined> | undefined): S {
    return this.find(this.labelNames.map((name) => labels?.[name]));
  }
}

/** One labelled series of a counter: counts kept as a number, handed to prom-client at scrape time. */
export class CounterSeries {
  pending = 0;
  readonly labels: Record<string, string>;

  constructor(labels: Record<string, string>) {
    this.labels = labels;
  }
  inc(): void {
    this.pending += 1;
  }
}

/**
 * A prom-client Counter whose hot series are counted in plain numbers (`series(...).inc()`) and
 * added to it when it is read (prom-client's `collect`, run before every scrape and `get()`).
 */
export class SeriesCounter<T extends string> extends Counter<T> {
  private readonly index: SeriesIndex<CounterSeries>;

  constructor(configuration: CounterConfiguration<T>) {
    super({
      ...configuration,
      collect: () => {
        for (const series of this.index.made) {
          if (series.pending === 0) continue;
          // Integers: the total is the same as counting one by one.
          this.inc(series.labels as LabelValues<T>, series.pending);
          series.pending = 0;
        }
      },
    });
    this.index = new SeriesIndex(
      configuration.labelNames ?? [],
      (labels) => new CounterSeries(labels),
    );
  }

  /** The series of these label values, in `labelNames` order. */
  series(...values: LabelValue[]): CounterSeries {
    return this.index.find(values);
  }
}

/** One labelled series of a histogram: bucket counts, sum and count, updated in place. */
export class HistogramSeries {
  readonly counts: number[];
  sum = 0;
  count = 0;

  readonly labels: Record<string, string>;
  private readonly upperBounds: readonly number[];

  constructor(labels: Record<string, string>, upperBounds: readonly number[]) {
    this.labels = labels;
    this.upperBounds = upperBounds;
    this.counts = upperBounds.map(() => 0);
  }

  observe(value: number): void {
    // prom-client's own check and message.
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const bounds = this.upperBounds;
    for (let index = 0; index < bounds.length; index++)
      if (value <= bounds[index]!) {
        this.counts[index]! += 1;
        break;
      }
    this.sum += value;
    this.count += 1;
  }
}

interface ExportedValue {
  labels: Record<string, string | number>;
  sharedLabels: Record<string, string>;
  value: number;
  metricName: string;
  /** As prom-client: null on a bucket, undefined on the sum and count. */
  exemplar: null | undefined;
}

/**
 * A prom-client Histogram whose series live in HistogramSeries (`series(...).observe(v)`), exported
 * in the shape prom-client's own histogram exports (the same text at /metrics, the same `get()`).
 * `observe(labels, value)`, `zero` and `reset` work as prom-client's.
 */
export class SeriesHistogram<T extends string> extends Histogram<T> {
  private index: SeriesIndex<HistogramSeries>;
  private readonly bounds: number[];
  private readonly labelNamesInOrder: readonly string[];
  private readonly exported: { name: string; help: string; type: string; aggregator: Aggregator };

  constructor(configuration: HistogramConfiguration<T>) {
    super(configuration);
    this.labelNamesInOrder = configuration.labelNames ?? [];
    this.exported = {
      name: configuration.name,
      help: configuration.help,
      type: 'histogram',
      aggregator: configuration.aggregator ?? 'sum',
    };
    this.bounds = [...(configuration.buckets ?? [])].sort((a, b) => a - b);
    this.index = this.emptyIndex();
    // prom-client assigns `observe` per instance in its constructor: replaced the same way.
    (this as { observe: (labels: unknown, value?: number) => void }).observe = (labels, value) => {
      if (typeof labels === 'number') this.index.of(undefined).observe(labels);
      else this.index.of(labels as Record<string, LabelValue>).observe(value!);
    };
  }

  /** The series of these label values, in `labelNames` order. */
  series(...values: LabelValue[]): HistogramSeries {
    return this.index.find(values);
  }

  override zero(labels: LabelValues<T>): void {
    this.index.of(labels as Record<string, LabelValue>);
  }

  /** A new index, holding no series. */
  private emptyIndex(): SeriesIndex<HistogramSeries> {
    return new SeriesIndex(
      this.labelNamesInOrder,
      (labels) => new HistogramSeries(labels, this.bounds),
    );
  }

  override reset(): void {
    // New series objects: a request holding an old one adds to series no longer exported.
    this.index = this.emptyIndex();
  }

  /** What /metrics prints (prom-client's registry reads this when a metric has it). */
  async getForPromString() {
    const { name } = this.exported;
    const bucketName = `${name}_bucket`;
    const values: ExportedValue[] = [];
    const pair = (
      labels: Record<string, string | number>,
      value: number,
      metricName: string,
      shared: Record<string, string>,
      exemplar: null | undefined = undefined,
    ): ExportedValue => ({ labels, sharedLabels: shared, value, metricName, exemplar });
    for (const series of this.index.made) {
      let cumulative = 0;
      this.bounds.forEach((bound, index) => {
        cumulative += series.counts[index]!;
        values.push(pair({ le: bound }, cumulative, bucketName, series.labels, null));
      });
      values.push(
        pair({ le: '+Inf' }, series.count, bucketName, series.labels, null),
        pair({}, series.sum, `${name}_sum`, series.labels),
        pair({}, series.count, `${name}_count`, series.labels),
      );
    }
    return { ...this.exported, values };
  }

  override async get(): ReturnType<Histogram<T>['get']> {
    const data = await this.getForPromString();
    // Typed with a `collect` that prom-client's own `get()` leaves out as well.
    return {
      ...data,
      // prom-client's splayLabels: the series' labels merged into each value's own.
      values: data.values.map(({ sharedLabels, labels, ...rest }) => ({
        ...rest,
        labels: Object.assign(labels, sharedLabels) as LabelValues<T>,
      })),
    } as unknown as Awaited<ReturnType<Histogram<T>['get']>>;
  }
}

/** One registry per gateway instance, so several instances can live in one process (tests). */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new SeriesCounter({
      name: 'gateway_http_requests_total',
      help: 'Requests answered, by route template, method and status',
      labelNames: ['route', 'method', 'status'] as const,
      registers: [registry],
    }),
    requestDuration: new SeriesHistogram({
      name: 'gateway_http_request_duration_seconds',
      help: 'Time from request to response, by route template and method',
      labelNames: ['route', 'method'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    backendDuration: new SeriesHistogram({
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

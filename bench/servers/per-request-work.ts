// The work the gateway does on every request besides answering it — a request id, a rate-limit
// take and its three headers, a JSON log line, two metrics — each part written as cheaply as this
// file can: no hooks but the two a server needs, no logger object per request, counts in plain
// numbers. The floor references (fastify-uuid-floor.ts, forwarder-floor.ts) add it to the bare
// servers, so a run shows how near the targets any server doing this work could come on the
// machine of the moment, and how near the gateway is to that (bench/README.md "Eighth pass").
import { randomUUID } from 'node:crypto';
import { destination } from 'pino';

/** Tokens in every bucket: the benchmark's raised limits (bench/run.ts `raisedLimits`). */
const capacity = 1_000_000;
const refillPerMs = capacity / 60_000;
const capacityText = String(capacity);

/** Upper bounds (seconds) of the request-duration histogram, as the gateway's. */
const bounds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Series {
  count: number;
  sum: number;
  buckets: number[];
}

export class PerRequestWork {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly series = new Map<string, Series>();
  // pino's own destination in buffer mode, 8 KiB writes: the gateway's standard output.
  private readonly out = destination({
    dest: process.env.LOG_FILE ?? 1,
    sync: false,
    contentMode: 'buffer',
    minLength: 8192,
    periodicFlush: 200,
  });
  private readonly linePrefix = `,"pid":${process.pid},"hostname":"bench","reqId":"`;

  readonly requestId = (): string => randomUUID();

  /** Takes one token from `key`'s bucket; the three `RateLimit-*` header values. */
  take(key: string): [limit: string, remaining: string, reset: string] {
    const now = Date.now();
    let bucket = this.buckets.get(key);
    if (bucket === undefined) this.buckets.set(key, (bucket = { tokens: capacity, at: now }));
    bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.at) * refillPerMs) - 1;
    bucket.at = now;
    return [capacityText, String(Math.floor(bucket.tokens)), '1'];
  }

  /** The request's log line and its two metrics (a count and a duration), once it is answered. */
  finish(
    requestId: string,
    method: string,
    route: string,
    url: string,
    status: number,
    ms: number,
    user: string | undefined,
  ): void {
    this.out.write(
      Buffer.from(
        '{"level":30,"time":' +
          Date.now() +
          this.linePrefix +
          requestId +
          '","method":"' +
          method +
          '","route":"' +
          route +
          '","url":"' +
          url +
          '","status":' +
          status +
          ',"durationMs":' +
          Math.round(ms * 10) / 10 +
          (user === undefined ? '' : ',"user":"' + user + '"') +
          ',"msg":"request completed"}\n',
      ) as unknown as string,
    );
    let series = this.series.get(route);
    if (series === undefined)
      this.series.set(route, (series = { count: 0, sum: 0, buckets: bounds.map(() => 0) }));
    const seconds = ms / 1000;
    series.count++;
    series.sum += seconds;
    for (let index = 0; index < bounds.length; index++)
      if (seconds <= bounds[index]!) {
        series.buckets[index]!++;
        break;
      }
  }
}

// A fixed-rate (open-loop) load generator in its own process, for the half-load rows: requests are
// sent on a schedule whatever the answers do, and each latency is counted from the moment its
// request was due (a slow answer delays no later measurement: no coordinated omission), in
// microseconds — autocannon's histogram rounds to whole milliseconds, too coarse for "p99 added
// ≤ 1 ms". Options as JSON in argv[2]: { url, headers, connections, rate, seconds }; the result,
// as JSON, on stdout: { requests, rps, p50, p99 (ms, fractional), errors }.
import { Pool } from 'undici';

interface Options {
  url: string;
  headers: Record<string, string>;
  connections: number;
  rate: number;
  seconds: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as Options;
const target = new URL(options.url);
const pool = new Pool(target.origin, { connections: options.connections });
const path = target.pathname + target.search;
const intervalMs = 1000 / options.rate;

/** Sends `total` requests on the schedule; resolves with their latencies (ms) and the elapsed time. */
async function schedule(total: number) {
  const latencies = new Float64Array(total);
  let sent = 0;
  let answered = 0;
  let errors = 0;
  const startedAt = performance.now();
  await new Promise<void>((resolve) => {
    const send = (index: number, dueAt: number) => {
      pool
        .request({ method: 'GET', path, headers: options.headers })
        .then(async (answer) => {
          await answer.body.dump();
          if (answer.statusCode >= 300) errors++;
        })
        .catch(() => errors++)
        .finally(() => {
          latencies[index] = performance.now() - dueAt;
          if (++answered === total) resolve();
        });
    };
    // Every millisecond, send what has fallen due since the last tick (timers are ms-grained).
    const timer = setInterval(() => {
      const now = performance.now();
      while (sent < total && startedAt + sent * intervalMs <= now) {
        send(sent, startedAt + sent * intervalMs);
        sent++;
      }
      if (sent === total) clearInterval(timer);
    }, 1);
  });
  return { latencies, errors, elapsedS: (performance.now() - startedAt) / 1000 };
}

// One second unrecorded first: this process's own start (compiling, JIT, opening connections)
// would otherwise be counted as the server's latency.
await schedule(Math.round(options.rate));
const total = Math.round(options.rate * options.seconds);
const { latencies, errors, elapsedS } = await schedule(total);
await pool.close();

const sorted = Array.from(latencies).sort((a, b) => a - b);
const quantile = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
process.stdout.write(
  JSON.stringify({
    requests: total,
    rps: Math.round(total / elapsedS),
    p50: Math.round(quantile(0.5) * 1000) / 1000,
    p99: Math.round(quantile(0.99) * 1000) / 1000,
    errors,
  }),
);

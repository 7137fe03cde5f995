// What the benchmark scripts (run.ts, files.ts, scale.ts) share: child processes started on a
// free port and stopped, the load generator run in a child process, /proc readings of CPU and
// memory, and the last run's table written between markers of bench/README.md.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** `node` arguments that run a TypeScript file of bench/. */
export const benchScript = (script: string) => [path.join(root, 'bench', script)];

/** A timestamp fit for a file name. */
export const stamp = new Date().toISOString().replace(/[:.]/g, '-');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Milliseconds from now until `url` answers (any status), polling; fails if the child exits. */
export async function answersAfter(
  url: string,
  child: ChildProcess,
  limitMs = 30_000,
  pollMs = 5,
): Promise<number> {
  const start = performance.now();
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${url}: the server exited (${child.exitCode ?? child.signalCode})`);
    try {
      await (await fetch(url)).arrayBuffer();
      return performance.now() - start;
    } catch {
      if (performance.now() - start > limitMs)
        throw new Error(`${url}: no answer in ${limitMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }
}

/** SIGTERM, then waits for the exit (nothing when it has exited already). */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Runs a command to its end and returns its stdout; a non-zero exit fails. */
export async function runChild(command: string, args: string[]): Promise<string> {
  const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${command} exited with ${code}`);
  return out;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  /** Non-2xx answers, socket errors and timeouts. */
  errors: number;
}

/** One autocannon run in a child process (bench/load.ts): the load never shares the server's process. */
export async function autocannonInChild(options: Record<string, unknown>): Promise<LoadResult> {
  const out = await runChild(process.execPath, [
    ...benchScript('load.ts'),
    JSON.stringify(options),
  ]);
  const result = JSON.parse(out) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
    timeouts: number;
  };
  return {
    requests: result.requests.total,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

/** User + system CPU seconds used so far by these processes (gone ones count nothing). */
export function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    } catch {
      // a worker that has gone
    }
  }
  return ticks / ticksPerSecond;
}

/** A `Vm…` figure of /proc/<pid>/status in MiB, summed over the processes. */
export function memoryMiB(pids: number[], field: 'VmHWM' | 'VmRSS'): number {
  let kib = 0;
  for (const pid of pids) {
    try {
      const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
        readFileSync(`/proc/${pid}/status`, 'utf8'),
      );
      kib += Number(match?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return Math.round((kib / 1024) * 10) / 10;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Writes bench/results/<prefix><stamp>.{json,md} and, unless `readme` is false, puts the table
 * between `<!-- bench:<marker> -->` and `<!-- /bench:<marker> -->` in bench/README.md.
 */
export function writeResults(
  prefix: string,
  marker: string,
  report: unknown,
  table: string,
  readme = true,
): void {
  const results = path.join(root, 'bench', 'results');
  mkdirSync(results, { recursive: true });
  writeFileSync(
    path.join(results, `${prefix}${stamp}.json`),
    JSON.stringify(report, null, 2) + '\n',
  );
  writeFileSync(path.join(results, `${prefix}${stamp}.md`), table);
  if (!readme) return;
  const file = path.join(root, 'bench', 'README.md');
  const begin = `<!-- bench:${marker} -->`;
  const end = `<!-- /bench:${marker} -->`;
  const text = readFileSync(file, 'utf8');
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from >= 0 && to > from)
    writeFileSync(
      file,
      text.slice(0, from + begin.length) + '\n\n' + table + '\n' + text.slice(to),
    );
}

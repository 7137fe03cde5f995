/**
 * `npm run bench`: the gateway side by side with what it is measured against, every server in its
 * own child process and the load generated from another (wrk when installed, else autocannon in a
 * child process). Rows, all on the same tiny backend (bench/servers/backend.ts):
 *   backend direct · nginx proxy_pass (keep-alive upstream; skipped when nginx is missing) ·
 *   a bare node:http + undici forwarder · the gateway's passthrough with everything on (JWT check,
 *   rate limits raised, LOG_LEVEL=info to a file, metrics, identity parameters) · the gateway's
 *   own GET /uuid · a bare Fastify GET /uuid · the floors: the bare forwarder and bare Fastify's
 *   /uuid each plus the gateway's per-request work written as cheaply as it can be
 *   (servers/per-request-work.ts): the ceiling that work leaves each target on the machine.
 * Then the passthrough with tracing on, every request traced and one in a hundred, exporting to a
 * sink that discards the spans (servers/otlp-sink.ts), its rate over the tracing-off passthrough's.
 * Then the same proxies at half the gateway's maximum rate (p99 added latency), the gateway's cold
 * start to its first answer and idle RSS with the embedded backends, and with BENCH_PROFILE=1 a
 * CPU profile of the gateway under passthrough load (top self-time frames). The comparisons behind
 * the targets (passthrough / bare forwarder, /uuid / bare Fastify, each with its floor; p99 added at
 * half load) are measured BENCH_ROUNDS times in alternation and their ratios are the medians
 * (alternatedRounds).
 * Writes bench/results/<timestamp>.{json,md} and rewrites the marked table in bench/README.md.
 * Settings: BENCH_SECONDS (5), BENCH_CONNECTIONS (32), BENCH_ROUNDS (3), BENCH_LOADER
 * (wrk|autocannon), BENCH_PROFILE, BENCH_ONLY=start (only the cold-start rows, printed and written
 * to bench/results/, README untouched).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { signEmbeddedToken } from '../src/http/keys.ts';
import {
  answersAfter,
  autocannonInChild,
  cpuSeconds,
  freePort,
  median,
  memoryMiB,
  root,
  runChild,
  stamp,
  stopChild,
  benchScript,
  writeResults,
} from './harness.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const profiling = process.env.BENCH_PROFILE === '1';
/** Rounds of the comparisons behind the targets' ratios (see alternatedRounds). */
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
/** `value` rounded to `digits` decimals (figures kept in the JSON as the tables show them). */
const roundTo = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
const only = process.env.BENCH_ONLY;
if (only !== undefined && only !== 'start')
  throw new Error(`BENCH_ONLY=${only}: the only choice is "start" (the cold-start rows)`);
const appPath = '/apps/de/00000000-0000-0000-0000-000000000001';

function which(command: string, extra: string[] = []): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${command}`])
    .stdout.toString()
    .trim();
  return found || extra.find((candidate) => existsSync(candidate));
}

const wrk = process.env.BENCH_LOADER === 'autocannon' ? undefined : which('wrk');
const nginx = which('nginx', ['/usr/sbin/nginx']);
const notes: string[] = [];

// ---------------------------------------------------------------- processes

interface Server {
  name: string;
  child: ChildProcess;
  url: string;
  /** The process and, for nginx, its workers. */
  pids(): number[];
}

const started: Server[] = [];

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

async function start(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string>,
  probePath = '/',
  output: number | 'ignore' = 'ignore',
): Promise<Server & { readyMs: number }> {
  const port = await freePort();
  const child = spawn(command, args, {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      ...env,
    },
    stdio: ['ignore', output, output === 'ignore' ? 'inherit' : output],
  });
  const url = `http://127.0.0.1:${port}`;
  const server: Server = {
    name,
    child,
    url,
    pids: () => [child.pid!, ...childrenOf(child.pid!)],
  };
  started.push(server);
  const readyMs = await answersAfter(url + probePath, child);
  return { ...server, readyMs };
}

const stop = (server: Server) => stopChild(server.child);

// ---------------------------------------------------------------- /proc readings

// ---------------------------------------------------------------- load

interface Load {
  loader: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

function wrkMs(text: string): number {
  const match = /([\d.]+)(us|ms|s)/.exec(text);
  if (!match) return NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

async function withWrk(url: string, headers: Record<string, string>): Promise<Load> {
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => [
    '-H',
    `${name}: ${value}`,
  ]);
  const out = await runChild(wrk!, [
    '-t1',
    `-c${connections}`,
    `-d${seconds}s`,
    '--latency',
    ...headerArgs,
    url,
  ]);
  const line = (pattern: RegExp) => pattern.exec(out)?.[1] ?? '';
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(
    out,
  );
  return {
    loader: 'wrk',
    requests: Number(line(/(\d+) requests in/)),
    rps: Math.round(Number(line(/Requests\/sec:\s+([\d.]+)/))),
    p50: wrkMs(line(/^\s+50%\s+(\S+)/m)),
    p99: wrkMs(line(/^\s+99%\s+(\S+)/m)),
    errors:
      Number(line(/Non-2xx or 3xx responses: (\d+)/) || 0) +
      (socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
  };
}

async function withAutocannon(
  url: string,
  headers: Record<string, string>,
  duration = seconds,
): Promise<Load> {
  return {
    loader: 'autocannon',
    ...(await autocannonInChild({ url, headers, connections, duration })),
  };
}

/** A fixed-rate run (bench/fixed-rate.ts, its own process): µs-grained latencies from each request's due time. */
async function withFixedRate(
  url: string,
  headers: Record<string, string>,
  rate: number,
): Promise<Load> {
  const options = { url, headers, connections, rate, seconds };
  const out = await runChild(process.execPath, [
    ...benchScript('fixed-rate.ts'),
    JSON.stringify(options),
  ]);
  const result = JSON.parse(out) as Omit<Load, 'loader'>;
  return { loader: `fixed rate @${rate}/s`, ...result };
}

/** A bare server and the gateway; with a third, the bare server's floor (servers/per-request-work.ts). */
type Pair = [bare: Row, gateway: Row];
type Trio = [bare: Row, gateway: Row, floor: Row];

interface Row extends Load {
  row: string;
  /** Server CPU (user + system) per answered request, microseconds. */
  cpuUsPerRequest: number;
  peakRssMiB: number;
}

async function measure(
  row: string,
  server: Server,
  urlPath: string,
  headers: Record<string, string> = {},
  overallRate?: number,
): Promise<Row> {
  const url = server.url + urlPath;
  // one warm-up second, so JIT and connection pools are ready
  await withAutocannon(url, headers, 1).catch(() => undefined);
  const before = cpuSeconds(server.pids());
  const load =
    overallRate !== undefined
      ? await withFixedRate(url, headers, overallRate)
      : wrk
        ? await withWrk(url, headers)
        : await withAutocannon(url, headers);
  const cpu = cpuSeconds(server.pids()) - before;
  const result: Row = {
    row,
    ...load,
    cpuUsPerRequest: load.requests ? roundTo((cpu / load.requests) * 1e6, 1) : NaN,
    peakRssMiB: memoryMiB(server.pids(), 'VmHWM'),
  };
  console.error(
    `${row}: ${result.rps} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ${result.cpuUsPerRequest} µs CPU/req, errors ${result.errors}`,
  );
  return result;
}

/**
 * Measurements taken in turn, `rounds` times, the order reversed each round (a b c, c b a, a b c):
 * on a shared machine whose speed drifts from minute to minute (seen here: the same server's CPU
 * per request doubling within ten minutes), rows measured a minute apart can differ by more than
 * any change under test, while rows measured back to back share the machine's state of the moment.
 * `first` is round 1, already measured (the table's rows); returns every round's rows, in the
 * order of `measures`.
 */
async function alternatedRounds<T extends Row[]>(
  first: T,
  ...measures: Array<() => Promise<Row>>
): Promise<T[]> {
  const all: T[] = [first];
  for (let round = 2; round <= rounds; round++) {
    const order = measures.map((_, index) => index);
    if (round % 2 === 0) order.reverse();
    const taken: Row[] = [];
    for (const index of order) taken[index] = await measures[index]!();
    all.push(taken as T);
  }
  return all;
}

// ---------------------------------------------------------------- the servers

function nginxConf(dir: string, port: number, backendUrl: string): string {
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  return `${user}worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log ${dir}/nginx-access.log;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream backend {
    server ${new URL(backendUrl).host};
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://backend;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`;
}

async function startNginx(dir: string, backendUrl: string): Promise<Server> {
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  writeFileSync(conf, nginxConf(dir, port, backendUrl));
  const child = spawn(nginx!, ['-p', dir, '-c', conf, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const server: Server = {
    name: 'nginx',
    child,
    url: `http://127.0.0.1:${port}`,
    pids: () => [child.pid!, ...childrenOf(child.pid!)],
  };
  started.push(server);
  await answersAfter(server.url + appPath, child);
  return server;
}

const raisedLimits = {
  RATE_LIMIT_USER_PER_MIN: '1000000',
  RATE_LIMIT_BURST: '1000000',
  RATE_LIMIT_ANON_PER_MIN: '1000000',
};

async function startGateway(
  dataDir: string,
  env: Record<string, string>,
  nodeFlags: string[] = [],
): Promise<Server & { readyMs: number }> {
  const log = openSync(path.join(dataDir, 'gateway.log'), 'a');
  return start(
    'gateway',
    process.execPath,
    [...nodeFlags, path.join(root, 'dist', 'main.js')],
    { GATEWAY_DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
    '/',
    log,
  );
}

interface ColdStart {
  startMs: number[];
  /** User + system CPU of the gateway process from spawn until its first answer, ms. */
  startCpuMs: number[];
  idleRssMiB: number[];
}

/** Cold start: a fresh data directory, all embedded backends, spawn until `GET /` answers. */
async function coldStart(scratch: string, runs = 3): Promise<ColdStart> {
  const result: ColdStart = { startMs: [], startCpuMs: [], idleRssMiB: [] };
  for (let i = 0; i < runs; i++) {
    const dataDir = mkdtempSync(path.join(scratch, 'cold-'));
    const gateway = await startGateway(dataDir, {});
    // Read at once: the CPU time is what the start cost, less noisy than wall time on a shared machine.
    result.startCpuMs.push(Math.round(cpuSeconds(gateway.pids()) * 1000));
    result.startMs.push(Math.round(gateway.readyMs));
    await new Promise((resolve) => setTimeout(resolve, 2000)); // settle: what an idle gateway holds
    result.idleRssMiB.push(memoryMiB(gateway.pids(), 'VmRSS'));
    await stop(gateway);
  }
  return result;
}

function coldStartRows(cold: ColdStart): string[] {
  return [
    `| cold start to first answer, embedded backends (ms, median of ${cold.startMs.length}: ${cold.startMs.join(', ')}) | ${fmt(median(cold.startMs))} | ≤ 1500 |`,
    `| CPU (user + system) until that answer (ms, median: ${cold.startCpuMs.join(', ')}) | ${fmt(median(cold.startCpuMs))} | — |`,
    `| idle RSS after start, embedded backends (MiB, median: ${cold.idleRssMiB.join(', ')}) | ${fmt(median(cold.idleRssMiB), 1)} | ≤ 120 |`,
  ];
}

// ---------------------------------------------------------------- the profile

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/**
 * Top self-time frames of a .cpuprofile, as percentages of the non-idle samples taken after
 * `skipUs` (the start-up: module loading and schema compilation are not the request path).
 */
function topFrames(
  file: string,
  skipUs: number,
  count = 20,
): Array<{ frame: string; selfPercent: number }> {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let busy = 0;
  let elapsed = 0;
  profile.samples.forEach((id, index) => {
    elapsed += profile.timeDeltas[index] ?? 0;
    if (elapsed < skipUs) return;
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') return;
    const where = frame.url
      ? `${frame.url.replace(`file://${root}/`, '').replace(/.*node_modules\//, '')}:${frame.lineNumber + 1}`
      : '';
    const key = `${frame.functionName || '(anonymous)'} ${where}`.trim();
    const delta = profile.timeDeltas[index] ?? 0;
    self.set(key, (self.get(key) ?? 0) + delta);
    busy += delta;
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([frame, time]) => ({ frame, selfPercent: roundTo((time / busy) * 100, 1) }));
}

// ---------------------------------------------------------------- report

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

function markdown(report: Report): string {
  const lines = [
    `Run ${report.when} · node ${report.node} · ${report.cpus} CPUs, load average ${report.loadAverage.join(' → ')} (shared machine: indicative figures) · ` +
      `${report.connections} connections, ${report.seconds} s per row · full load by ${report.fullLoader}, half load by bench/fixed-rate.ts`,
    '',
    '| row | req/s | p50 ms | p99 ms | CPU µs/req | peak RSS MiB | errors |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...report.rows.map(
      (r) =>
        `| ${r.row} | ${r.rps} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.cpuUsPerRequest, 1)} | ${fmt(r.peakRssMiB, 1)} | ${r.errors} |`,
    ),
    '',
    `Half load: ${report.halfRate} req/s (half the gateway passthrough's maximum, the median of its rounds) for every proxy, sent on a fixed schedule by bench/fixed-rate.ts (latency from each request's due time, µs-grained):`,
    '',
    '| row | p50 ms | p99 ms | p99 added over backend ms | CPU µs/req |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...report.halfLoad.map(
      (r) =>
        `| ${r.row} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.p99 - report.halfLoad[0]!.p99, 2)} | ${fmt(r.cpuUsPerRequest, 1)} |`,
    ),
    '',
    '| ratio | value | target (issue 20) |',
    '| --- | ---: | --- |',
    `| gateway passthrough / nginx (req/s) | ${fmt(report.ratios.gatewayOverNginx, 2)} | ≥ 0.3 (aim 0.5) |`,
    `| gateway passthrough / bare forwarder (req/s; median of ${rounds} alternated rounds: ${report.rounds.gatewayOverBare.join(', ')}) | ${fmt(report.ratios.gatewayOverBare, 2)} | ≥ 0.9 |`,
    `| gateway /uuid / bare Fastify /uuid (req/s; median of ${rounds} alternated rounds: ${report.rounds.uuidOverFastify.join(', ')}) | ${fmt(report.ratios.uuidOverFastify, 2)} | ≥ 0.8 |`,
    `| floor: bare forwarder + the gateway's per-request work / bare forwarder (req/s; rounds: ${report.rounds.bareFloorOverBare.join(', ')}) | ${fmt(report.ratios.bareFloorOverBare, 2)} | — (the ceiling the work leaves the ≥ 0.9 target) |`,
    `| gateway passthrough / its floor (req/s; rounds: ${report.rounds.gatewayOverBareFloor.join(', ')}) | ${fmt(report.ratios.gatewayOverBareFloor, 2)} | — |`,
    `| floor: bare Fastify /uuid + the gateway's per-request work / bare Fastify /uuid (req/s; rounds: ${report.rounds.fastifyFloorOverFastify.join(', ')}) | ${fmt(report.ratios.fastifyFloorOverFastify, 2)} | — (the ceiling the work leaves the ≥ 0.8 target) |`,
    `| gateway /uuid / its floor (req/s; rounds: ${report.rounds.uuidOverFastifyFloor.join(', ')}) | ${fmt(report.ratios.uuidOverFastifyFloor, 2)} | — |`,
    `| gateway passthrough, WORKERS=2 / WORKERS=1 (req/s; WORKERS=1: the median of its rounds) | ${fmt(report.ratios.twoWorkersOverOne, 2)} | a gain (issue 20 item 4) |`,
    `| gateway GET /uuid, WORKERS=2 / WORKERS=1 (req/s; WORKERS=1: the median of its rounds) | ${fmt(report.ratios.uuidTwoWorkersOverOne, 2)} | a gain (issue 20 item 4) |`,
    `| p99 added at half load, gateway − bare forwarder (ms; median of ${rounds} alternated rounds: ${report.rounds.halfLoadP99AddedOverBare.join(', ')}) | ${fmt(report.ratios.halfLoadP99AddedOverBare, 2)} | ≤ 1 |`,
    `| gateway passthrough, tracing on at 100 % / tracing off (req/s; off: the median of its rounds) | ${fmt(report.ratios.tracingFullOverOff, 2)} | — (issue 42 item 2: the cost, stated) |`,
    `| gateway passthrough, tracing on at 1 % / tracing off (req/s; off: the median of its rounds) | ${fmt(report.ratios.tracingOnePercentOverOff, 2)} | — (issue 42 item 2: the cost, stated) |`,
    ...coldStartRows(report.coldStart),
  ];
  if (report.notes.length) lines.push('', ...report.notes.map((note) => `- ${note}`));
  if (report.profile) {
    lines.push(
      '',
      `CPU profile of the gateway under passthrough load, start-up left out (self time, % of busy samples; ${report.profile.file}, not committed):`,
      '',
      '| frame | self % |',
      '| --- | ---: |',
      ...report.profile.top.map(
        (f) => `| \`${f.frame.replace(/\|/g, '\\|')}\` | ${f.selfPercent} |`,
      ),
    );
  }
  return lines.join('\n') + '\n';
}

interface Report {
  when: string;
  node: string;
  cpus: number;
  /** 1-minute load average when the run began and when it ended. */
  loadAverage: number[];
  connections: number;
  seconds: number;
  fullLoader: string;
  rows: Row[];
  halfRate: number;
  halfLoad: Row[];
  ratios: {
    gatewayOverNginx: number;
    gatewayOverBare: number;
    uuidOverFastify: number;
    /** The floors (servers/per-request-work.ts) over their bare servers, and the gateway over its floor. */
    bareFloorOverBare: number;
    gatewayOverBareFloor: number;
    fastifyFloorOverFastify: number;
    uuidOverFastifyFloor: number;
    halfLoadP99AddedOverBare: number;
    twoWorkersOverOne: number;
    uuidTwoWorkersOverOne: number;
    /** The passthrough with tracing on (every request traced; one in a hundred) over it with tracing off. */
    tracingFullOverOff: number;
    tracingOnePercentOverOff: number;
  };
  /** Each round's value of the ratios measured in alternation (alternatedRounds); `ratios` holds their medians. */
  rounds: {
    gatewayOverBare: number[];
    uuidOverFastify: number[];
    bareFloorOverBare: number[];
    gatewayOverBareFloor: number[];
    fastifyFloorOverFastify: number[];
    uuidOverFastifyFloor: number[];
    halfLoadP99AddedOverBare: number[];
  };
  coldStart: ColdStart;
  notes: string[];
  profile?: { file: string; top: Array<{ frame: string; selfPercent: number }> };
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const built = spawnSync(process.execPath, ['scripts/build.mjs', '--if-changed'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('the build failed');
  if (!wrk)
    notes.push(
      process.env.BENCH_LOADER === 'autocannon'
        ? 'Full load by autocannon (BENCH_LOADER=autocannon).'
        : 'wrk is not installed: full load by autocannon in a child process (bench/install.sh installs wrk).',
    );
  if (!nginx)
    notes.push(
      'nginx is not installed: its row is skipped (bench/install.sh installs Debian nginx-light).',
    );

  const loadAtStart = roundTo(loadavg()[0]!, 2);
  const scratch = mkdtempSync(path.join(tmpdir(), 'gateway-bench-'));
  if (only === 'start') {
    try {
      await startOnly(scratch, loadAtStart);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    return;
  }
  try {
    const backend = await start('backend', process.execPath, benchScript('servers/backend.ts'), {});
    const forwarder = await start(
      'forwarder',
      process.execPath,
      benchScript('servers/forwarder.ts'),
      {
        BACKEND_URL: backend.url,
      },
    );
    const fastify = await start(
      'fastify',
      process.execPath,
      benchScript('servers/fastify-uuid.ts'),
      {},
      '/uuid',
    );
    // The floors: the bare servers plus the gateway's per-request work (servers/per-request-work.ts).
    const forwarderFloor = await start(
      'forwarder floor',
      process.execPath,
      benchScript('servers/forwarder-floor.ts'),
      { BACKEND_URL: backend.url, LOG_FILE: path.join(scratch, 'forwarder-floor.log') },
    );
    const fastifyFloor = await start(
      'fastify floor',
      process.execPath,
      benchScript('servers/fastify-uuid-floor.ts'),
      { LOG_FILE: path.join(scratch, 'fastify-floor.log') },
      '/uuid',
    );
    const proxy = nginx
      ? await startNginx(mkdtempSync(path.join(scratch, 'nginx-')), backend.url)
      : undefined;
    const dataDir = mkdtempSync(path.join(scratch, 'gateway-'));
    const token = await signEmbeddedToken(dataDir, { username: 'bench', ttlSeconds: 3600 });
    const auth = { authorization: `Bearer ${token}` };
    const gatewayEnv = { ...raisedLimits, APPS_URL: backend.url };
    const gateway = await startGateway(dataDir, gatewayEnv);
    const probe = await fetch(gateway.url + appPath, { headers: auth });
    if (probe.status !== 200)
      throw new Error(`gateway passthrough answered ${probe.status}: ${await probe.text()}`);

    const bare = () => measure('bare forwarder (node:http + undici)', forwarder, appPath);
    const bareFloor = () =>
      measure(
        "bare forwarder + the gateway's per-request work (floor)",
        forwarderFloor,
        appPath,
        auth,
      );
    const passthrough = () =>
      measure('gateway passthrough (everything on)', gateway, appPath, auth);
    const gatewayUuid = () => measure('gateway GET /uuid', gateway, '/uuid');
    const fastifyUuid = () => measure('bare Fastify GET /uuid', fastify, '/uuid');
    const fastifyFloorUuid = () =>
      measure(
        "bare Fastify GET /uuid + the gateway's per-request work (floor)",
        fastifyFloor,
        '/uuid',
      );
    const rows: Row[] = [];
    rows.push(await measure('backend direct', backend, appPath));
    if (proxy) rows.push(await measure('nginx proxy_pass (keep-alive)', proxy, appPath));
    const bareRow = await bare();
    const bareFloorRow = await bareFloor();
    const gatewayRow = await passthrough();
    const gatewayUuidRow = await gatewayUuid();
    const fastifyRow = await fastifyUuid();
    const fastifyFloorRow = await fastifyFloorUuid();
    rows.push(bareRow, bareFloorRow, gatewayRow, gatewayUuidRow, fastifyRow, fastifyFloorRow);
    const find = (prefix: string) => rows.find((r) => r.row.startsWith(prefix));

    // The targets' comparisons again, in alternation (see alternatedRounds), each with its floor.
    const passthroughRounds = await alternatedRounds(
      [bareRow, gatewayRow, bareFloorRow] as Trio,
      bare,
      passthrough,
      bareFloor,
    );
    const uuidRounds = await alternatedRounds(
      [fastifyRow, gatewayUuidRow, fastifyFloorRow] as Trio,
      fastifyUuid,
      gatewayUuid,
      fastifyFloorUuid,
    );

    // The gateway's req/s, the medians of their rounds: one row's rate can be far off.
    const passthroughRps = median(passthroughRounds.map(([, gateway]) => gateway.rps));
    const uuidRps = median(uuidRounds.map(([, gateway]) => gateway.rps));
    const halfRate = Math.max(100, Math.round(passthroughRps / 2));
    const halfBare = () =>
      measure('bare forwarder (node:http + undici)', forwarder, appPath, {}, halfRate);
    const halfPassthrough = () =>
      measure('gateway passthrough (everything on)', gateway, appPath, auth, halfRate);
    const halfLoad: Row[] = [];
    halfLoad.push(await measure('backend direct', backend, appPath, {}, halfRate));
    if (proxy)
      halfLoad.push(await measure('nginx proxy_pass (keep-alive)', proxy, appPath, {}, halfRate));
    const halfBareRow = await halfBare();
    const halfPassthroughRow = await halfPassthrough();
    halfLoad.push(halfBareRow, halfPassthroughRow);
    const paired = {
      passthrough: passthroughRounds,
      uuid: uuidRounds,
      halfLoad: await alternatedRounds(
        [halfBareRow, halfPassthroughRow] as Pair,
        halfBare,
        halfPassthrough,
      ),
    };
    await stop(gateway);

    // Tracing on (docs/operations.md, "Tracing"), every span exported to a sink that discards them:
    // the passthrough's cost with every request traced, and with one in a hundred.
    const sink = await start(
      'otlp sink',
      process.execPath,
      benchScript('servers/otlp-sink.ts'),
      {},
    );
    const tracingRows: Row[] = [];
    for (const [label, sampling] of [
      ['100 %', { OTEL_TRACES_SAMPLER: 'always_on' }],
      ['1 %', { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.01' }],
    ] as const) {
      const traced = await startGateway(dataDir, {
        ...gatewayEnv,
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
        ...sampling,
      });
      tracingRows.push(
        await measure(`gateway passthrough, tracing on at ${label}`, traced, appPath, auth),
      );
      await stop(traced);
    }
    rows.push(...tracingRows);
    await stop(sink);

    // All cores: the same passthrough served by two worker processes on one port (WORKERS=2).
    // The load generator and the backend share the machine's cores with them (wrk -t1 and one
    // backend process: on two cores nothing can be pinned apart), so the gain is a lower bound.
    const twoWorkers = await startGateway(dataDir, { ...gatewayEnv, WORKERS: '2' });
    rows.push(
      await measure('gateway passthrough, WORKERS=2 (everything on)', twoWorkers, appPath, auth),
    );
    rows.push(await measure('gateway GET /uuid, WORKERS=2', twoWorkers, '/uuid'));
    await stop(twoWorkers);

    let profile: Report['profile'];
    if (profiling) {
      const profileDir = path.join(scratch, 'profile');
      const spawnAt = performance.now();
      const profiled = await startGateway(dataDir, gatewayEnv, [
        '--cpu-prof',
        `--cpu-prof-dir=${profileDir}`,
      ]);
      const loadAt = performance.now();
      await measure('gateway passthrough (profiled)', profiled, appPath, auth);
      await stop(profiled);
      const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
      if (file) {
        const kept = path.join(root, 'bench', 'results', `profile-${stamp}.cpuprofile`);
        mkdirSync(path.dirname(kept), { recursive: true });
        writeFileSync(kept, readFileSync(path.join(profileDir, file)));
        profile = {
          file: path.relative(root, kept),
          top: topFrames(kept, (loadAt - spawnAt) * 1000),
        };
      } else notes.push('BENCH_PROFILE=1 but the gateway wrote no profile.');
    }

    for (const server of [
      backend,
      forwarder,
      fastify,
      forwarderFloor,
      fastifyFloor,
      ...(proxy ? [proxy] : []),
    ])
      await stop(server);
    const cold = await coldStart(scratch);

    const rps = ([a, b]: Pair | Trio) => b.rps / a.rps;
    const floorRps = ([a, , floor]: Trio) => floor.rps / a.rps;
    const overFloorRps = ([, b, floor]: Trio) => b.rps / floor.rps;
    const p99Added = ([a, b]: Pair) => b.p99 - a.p99;
    const report: Report = {
      when: new Date().toISOString(),
      node: process.version,
      cpus: Number(execFileSync('nproc').toString().trim()),
      loadAverage: [loadAtStart, roundTo(loadavg()[0]!, 2)],
      connections,
      seconds,
      fullLoader: wrk ? 'wrk -t1' : 'autocannon (child process)',
      rows,
      halfRate,
      halfLoad,
      ratios: {
        gatewayOverNginx: proxy ? gatewayRow.rps / find('nginx')!.rps : NaN,
        gatewayOverBare: median(paired.passthrough.map(rps)),
        uuidOverFastify: median(paired.uuid.map(rps)),
        bareFloorOverBare: median(paired.passthrough.map(floorRps)),
        gatewayOverBareFloor: median(paired.passthrough.map(overFloorRps)),
        fastifyFloorOverFastify: median(paired.uuid.map(floorRps)),
        uuidOverFastifyFloor: median(paired.uuid.map(overFloorRps)),
        twoWorkersOverOne: find('gateway passthrough, WORKERS=2')!.rps / passthroughRps,
        uuidTwoWorkersOverOne: find('gateway GET /uuid, WORKERS=2')!.rps / uuidRps,
        halfLoadP99AddedOverBare: median(paired.halfLoad.map(p99Added)),
        tracingFullOverOff: tracingRows[0]!.rps / passthroughRps,
        tracingOnePercentOverOff: tracingRows[1]!.rps / passthroughRps,
      },
      rounds: {
        gatewayOverBare: paired.passthrough.map(rps).map((value) => roundTo(value, 2)),
        uuidOverFastify: paired.uuid.map(rps).map((value) => roundTo(value, 2)),
        bareFloorOverBare: paired.passthrough.map(floorRps).map((value) => roundTo(value, 2)),
        gatewayOverBareFloor: paired.passthrough
          .map(overFloorRps)
          .map((value) => roundTo(value, 2)),
        fastifyFloorOverFastify: paired.uuid.map(floorRps).map((value) => roundTo(value, 2)),
        uuidOverFastifyFloor: paired.uuid.map(overFloorRps).map((value) => roundTo(value, 2)),
        halfLoadP99AddedOverBare: paired.halfLoad.map(p99Added).map((value) => roundTo(value, 2)),
      },
      coldStart: cold,
      notes,
      profile,
    };
    const table = markdown(report);
    writeResults('', 'last-run', report, table);
    process.stdout.write('\n' + table);
  } finally {
    for (const server of started) await stop(server).catch(() => undefined);
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** BENCH_ONLY=start: the cold-start rows alone, to iterate on start-up; bench/README.md is left as is. */
async function startOnly(scratch: string, loadAtStart: number): Promise<void> {
  const runs = Number(process.env.BENCH_START_RUNS ?? 3);
  const cold = await coldStart(scratch, runs);
  const table = [
    `Run ${new Date().toISOString()} · node ${process.version} · load average ${loadAtStart} → ${roundTo(loadavg()[0]!, 2)} · cold start only (BENCH_ONLY=start)`,
    '',
    '| measure | value | target (issue 20) |',
    '| --- | ---: | --- |',
    ...coldStartRows(cold),
    '',
  ].join('\n');
  const report = { when: new Date().toISOString(), node: process.version, coldStart: cold };
  writeResults('start-', 'last-run', report, table, false);
  process.stdout.write('\n' + table);
}

main().catch((error: unknown) => {
  console.error(error);
  for (const server of started) server.child.kill('SIGTERM');
  process.exit(1);
});

/**
 * `npm run bench:jobs` (issue 44 item 4; not part of `npm test`): analyses on each job engine
 * (`JOB_EXECUTOR` local, docker, slurm; BENCH_JOB_ENGINES chooses, default all three), a trivial
 * tool each time, the gateway in a process of its own and the submissions and polls from this one:
 *
 * - single: BENCH_JOB_SINGLE analyses one after another (default 5), the time from `POST
 *   /analyses` to the analysis's listing saying Running, and to Completed (the median);
 * - burst: BENCH_JOBS analyses submitted at once (default 100), all of them followed to their end:
 *   how many completed, failed or went missing, whether any was recorded as ending twice, the
 *   time to the last end and the throughput, and the gateway's CPU seconds and peak memory.
 *
 * An engine that does not run here (no Docker engine, no Slurm cluster: scripts/job-engines/
 * start.sh starts both) is reported as skipped, with why. The table goes to bench/results/ and
 * between the `bench:jobs` markers of bench/README.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { signEmbeddedToken } from '../src/http/keys.ts';
import {
  answersAfter,
  cpuSeconds,
  freePort,
  median,
  memoryMiB,
  root,
  stopChild,
  writeResults,
} from './harness.ts';

type Engine = 'local' | 'docker' | 'slurm';

const engines = (process.env.BENCH_JOB_ENGINES ?? 'local,docker,slurm')
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean) as Engine[];
const singles = Number(process.env.BENCH_JOB_SINGLE ?? 5);
const burst = Number(process.env.BENCH_JOBS ?? 100);
/** The loopback registry scripts/job-engines/docker.sh serves the test image from. */
const registry = process.env.BENCH_DOCKER_REGISTRY ?? '127.0.0.1:5000';
const pollMs = 20;

interface Row {
  engine: string;
  'to Running ms': number | string;
  'to Completed ms': number | string;
  burst: string;
  'burst s': number | string;
  'jobs/s': number | string;
  'gateway CPU s': number | string;
  'gateway peak MiB': number | string;
}

/** Why `engine` cannot run here, or undefined when it can. */
function unavailable(engine: Engine): string | undefined {
  if (engine === 'docker') {
    const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], {
      encoding: 'utf8',
    });
    return info.status === 0
      ? undefined
      : 'no Docker engine answers (scripts/job-engines/start.sh)';
  }
  if (engine === 'slurm') {
    const ping = spawnSync('scontrol', ['ping'], { encoding: 'utf8' });
    return ping.status === 0 && /UP/.test(ping.stdout)
      ? undefined
      : 'no Slurm controller answers (scripts/job-engines/start.sh)';
  }
  return spawnSync('bwrap', ['--version']).status === 0 ? undefined : 'bubblewrap is missing';
}

async function benchEngine(engine: Engine): Promise<Row> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `bench-jobs-${engine}-`));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['src/main.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      HOST: '127.0.0.1',
      GATEWAY_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_USER_PER_MIN: '1000000',
      RATE_LIMIT_BURST: '1000000',
      JOB_EXECUTOR: engine,
      DOCKER_REGISTRY: registry,
      MAX_CONCURRENT_JOBS: String(Math.max(burst, singles) + 10),
      TOOL_EXECUTABLES_ALLOW: '/bin/,/usr/bin/',
      ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await answersAfter(`${url}/`, child, 60_000, 20);
    const user = await signEmbeddedToken(dataDir, { username: 'bench', ttlSeconds: 3600 });
    const admin = await signEmbeddedToken(dataDir, {
      username: 'bench-admin',
      roles: ['de-admin'],
      ttlSeconds: 3600,
    });
    const call = async (token: string, method: string, route: string, json?: unknown) => {
      const response = await fetch(`${url}${route}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
      const text = await response.text();
      if (response.status >= 300) throw new Error(`${method} ${route}: ${response.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    };
    await call(user, 'GET', '/secured/filesystem/root');
    await call(admin, 'GET', '/secured/filesystem/root');
    // The trivial tool: `true` on the host (local, slurm), the test image's on Docker.
    const tool = await call(user, 'POST', '/tools', {
      name: engine === 'docker' ? 'sh' : 'true',
      description: 'does nothing',
      version: '1',
      type: 'executable',
      ...(engine === 'docker'
        ? {
            container: {
              image: { name: 'platform/busybox', tag: '1', url: '', osg_image_path: '' },
              entrypoint: '/bin/true',
            },
          }
        : { location: '/bin', container: { image: { name: 'host' } } }),
    });
    await call(admin, 'PATCH', `/admin/tools/${tool.id}`, {});
    const app = await call(user, 'POST', '/apps/de', {
      name: `nothing on ${engine}`,
      tools: [{ id: tool.id }],
      groups: [{ label: 'Parameters', parameters: [] }],
    });
    const home = '/platform/home/bench';
    const submit = (name: string) =>
      call(user, 'POST', '/analyses', {
        system_id: 'de',
        app_id: app.id,
        name,
        output_dir: home,
        config: {},
      }) as Promise<{ id: string }>;
    /** Every analysis of the bench user by id: its status. */
    const statuses = async () => {
      const { analyses } = await call(user, 'GET', '/analyses?limit=100000');
      return new Map<string, string>(
        (analyses as { id: string; status: string }[]).map((row) => [row.id, row.status]),
      );
    };
    const ended = (status: string | undefined) =>
      status === 'Completed' || status === 'Failed' || status === 'Canceled';

    const toRunning: number[] = [];
    const toCompleted: number[] = [];
    for (let n = 0; n < singles; n++) {
      const started = performance.now();
      const { id } = await submit(`single ${n}`);
      let running: number | undefined;
      for (;;) {
        const status = (await statuses()).get(id);
        if (running === undefined && (status === 'Running' || ended(status)))
          running = performance.now() - started;
        if (ended(status)) {
          if (status !== 'Completed') throw new Error(`${engine}: a single analysis ${status}`);
          toCompleted.push(performance.now() - started);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
      toRunning.push(running!);
    }

    const cpuBefore = cpuSeconds([child.pid!]);
    const burstStarted = performance.now();
    const submitted = await Promise.all(
      Array.from({ length: burst }, (_, n) => submit(`burst ${n}`).then(({ id }) => id)),
    );
    let last = new Map<string, string>();
    for (;;) {
      last = await statuses();
      if (submitted.every((id) => ended(last.get(id)))) break;
      if (performance.now() - burstStarted > 600_000) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const burstSeconds = (performance.now() - burstStarted) / 1000;
    const cpu = cpuSeconds([child.pid!]) - cpuBefore;
    const peak = memoryMiB([child.pid!], 'VmHWM');
    const count = (status: string) => submitted.filter((id) => last.get(id) === status).length;
    const missing = submitted.filter((id) => !last.has(id)).length;
    // Each analysis's own history records its end once.
    let endedTwice = 0;
    for (const id of submitted) {
      const { steps } = await call(user, 'GET', `/analyses/${id}/history`);
      const ends = (steps as { updates: { status: string }[] }[])
        .flatMap((step) => step.updates)
        .filter((update) => ended(update.status)).length;
      if (ends > 1) endedTwice++;
    }
    return {
      engine,
      'to Running ms': Math.round(median(toRunning)),
      'to Completed ms': Math.round(median(toCompleted)),
      burst: `${count('Completed')} completed, ${count('Failed')} failed, ${missing} missing, ${endedTwice} ended twice, of ${burst}`,
      'burst s': Math.round(burstSeconds * 10) / 10,
      'jobs/s': Math.round((burst / burstSeconds) * 10) / 10,
      'gateway CPU s': Math.round(cpu * 10) / 10,
      'gateway peak MiB': peak,
    };
  } finally {
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const rows: Row[] = [];
for (const engine of engines) {
  const why = unavailable(engine);
  if (why) {
    rows.push({
      engine,
      'to Running ms': '-',
      'to Completed ms': '-',
      burst: `skipped: ${why}`,
      'burst s': '-',
      'jobs/s': '-',
      'gateway CPU s': '-',
      'gateway peak MiB': '-',
    });
    continue;
  }
  console.error(`bench:jobs: ${engine}…`);
  rows.push(await benchEngine(engine));
}
const columns = Object.keys(rows[0] ?? {}) as (keyof Row)[];
const table = [
  `| ${columns.join(' | ')} |`,
  `|${columns.map(() => '---').join('|')}|`,
  ...rows.map((row) => `| ${columns.map((column) => String(row[column])).join(' | ')} |`),
].join('\n');
console.log(table);
writeResults('jobs-', 'jobs', { singles, burst, rows }, `${table}\n`);

/**
 * `npm run bench:scale`: the gateway's data routes at 1k, 10k and 100k items (SCALE_SIZES), a page
 * of 100, on SQLite and, when DATABASE_URL is set, on PostgreSQL (in a database of its own,
 * `bench_scale`, made afresh for every size and dropped afterwards; no other database is touched).
 * For each engine and size: a fresh data directory (and database), seeded straight through the
 * store in batched inserts in one transaction — N files in one folder of the user's home (each
 * with its owner's grant, the search's name index kept by migration 026's triggers), N of them
 * marked as favourites, N notifications (a third of them seen) — then the built gateway
 * (`node dist/main.js`) started on it as its own process, and each route loaded from another
 * process (autocannon, bench/load.ts) at a modest fixed concurrency, after every route has been
 * warmed for 1 s (and each again for 1 s right before its row). Reports p50/p99 per route,
 * engine and size; writes bench/results/scale-<timestamp>.{json,md} and rewrites the marked
 * section of bench/README.md.
 * Settings: SCALE_SIZES (1000,10000,100000), SCALE_SECONDS (3), SCALE_CONNECTIONS (4),
 * SCALE_ENGINES (sqlite,postgres), SCALE_DATABASE (bench_scale).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { signEmbeddedToken } from '../src/http/keys.ts';
import { seed, user } from './scale-seed.ts';
import {
  answersAfter,
  autocannonInChild,
  freePort,
  root,
  stopChild,
  writeResults,
  type LoadResult,
} from './harness.ts';

const sizes = (process.env.SCALE_SIZES ?? '1000,10000,100000').split(',').map(Number);
const seconds = Number(process.env.SCALE_SECONDS ?? 3);
const connections = Number(process.env.SCALE_CONNECTIONS ?? 4);
const engines = (process.env.SCALE_ENGINES ?? 'sqlite,postgres').split(',');
/** The warm-up of every route before any row, and of each route right before its own row. */
const warmUpSeconds = 1;

// ---------------------------------------------------------------- processes and load

interface Target {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

async function autocannon(
  url: string,
  headers: Record<string, string>,
  target: Target,
  duration: number,
): Promise<LoadResult> {
  return autocannonInChild({
    url: url + target.path,
    method: target.method,
    headers: target.body ? { ...headers, 'content-type': 'application/json' } : headers,
    body: target.body ? JSON.stringify(target.body) : undefined,
    connections,
    duration,
  });
}

// ---------------------------------------------------------------- PostgreSQL database of its own

function databaseAt(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin(base: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseAt(base, 'postgres') });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

// SCALE_DATABASE names it otherwise, for two runs on one server (it is dropped with force).
const benchDatabase = process.env.SCALE_DATABASE ?? 'bench_scale';
if (!/^[a-z_][a-z0-9_]*$/.test(benchDatabase))
  throw new Error('SCALE_DATABASE must be a plain lower-case identifier');

/** Settings of the gateway's store passed on to it when set, for a before and after of one. */
const storeSettings = ['DATABASE_PREPARED_STATEMENTS', 'DATABASE_RANDOM_PAGE_COST'];

async function freshDatabase(base: string): Promise<string> {
  await admin(base, `drop database if exists ${benchDatabase} with (force)`);
  await admin(base, `create database ${benchDatabase}`);
  return databaseAt(base, benchDatabase);
}

// ---------------------------------------------------------------- the routes

function routes(folder: string, n: number): Array<{ route: string; target: Target }> {
  const dir = (query: string) =>
    `/secured/filesystem/paged-directory?path=${encodeURIComponent(folder)}&limit=100&${query}`;
  return [
    {
      route: 'paged-directory, first page by name',
      target: { method: 'GET', path: dir('sort-col=NAME&sort-dir=ASC&offset=0') },
    },
    {
      route: 'paged-directory, first page by date modified desc',
      target: { method: 'GET', path: dir('sort-col=DATEMODIFIED&sort-dir=DESC&offset=0') },
    },
    {
      route: 'paged-directory, middle page by name',
      target: { method: 'GET', path: dir(`sort-col=NAME&sort-dir=ASC&offset=${n / 2}`) },
    },
    {
      route: 'favorites listing, first page by name',
      target: {
        method: 'GET',
        path: '/secured/favorites/filesystem?limit=100&offset=0&sort-col=NAME&sort-dir=ASC',
      },
    },
    {
      route: 'notifications, first page newest first',
      target: {
        method: 'GET',
        path: '/secured/notifications/messages?limit=100&offset=0&sortField=timestamp&sortDir=DESC',
      },
    },
    {
      route: 'notifications, filter=analysis, first page',
      target: {
        method: 'GET',
        path: '/secured/notifications/messages?limit=100&offset=0&filter=analysis',
      },
    },
    {
      route: 'notifications count-messages',
      target: { method: 'GET', path: '/secured/notifications/count-messages' },
    },
    {
      route: 'search, a rare term (1 hit)',
      target: {
        method: 'POST',
        path: '/secured/filesystem/search',
        body: {
          query: {
            all: [{ type: 'label', args: { label: `sample-${String(n / 2).padStart(6, '0')}` } }],
          },
          size: 100,
        },
      },
    },
    {
      route: 'search, a common word (n/7 hits), first 100',
      target: {
        method: 'POST',
        path: '/secured/filesystem/search',
        body: { query: { all: [{ type: 'label', args: { label: 'variants' } }] }, size: 100 },
      },
    },
    {
      route: 'search, a common word, first 100 by date modified (newest first)',
      target: {
        method: 'POST',
        path: '/secured/filesystem/search',
        body: {
          query: { all: [{ type: 'label', args: { label: 'variants' } }] },
          size: 100,
          sort: [{ field: 'dateModified', order: 'descending' }],
        },
      },
    },
    { route: 'bootstrap', target: { method: 'GET', path: '/secured/bootstrap' } },
  ];
}

// ---------------------------------------------------------------- one engine at one size

interface Row extends LoadResult {
  engine: string;
  size: number;
  route: string;
  /** Set when the route does not answer 200 at this size: its status and error code. */
  failure?: string;
}

async function runOne(engine: string, n: number, baseUrl: string | undefined): Promise<Row[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'scale-bench-'));
  const databaseUrl = baseUrl ? await freshDatabase(baseUrl) : undefined;
  let gateway: ChildProcess | undefined;
  try {
    const { folder, seedSeconds } = await seed(dataDir, databaseUrl, n);
    console.error(`${engine} ${n}: seeded in ${seedSeconds.toFixed(1)} s`);
    const port = await freePort();
    const log = openSync(path.join(dataDir, 'gateway.log'), 'a');
    gateway = spawn(process.execPath, [path.join(root, 'dist', 'main.js')], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        PORT: String(port),
        GATEWAY_DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_USER_PER_MIN: '1000000',
        RATE_LIMIT_BURST: '1000000',
        RATE_LIMIT_ANON_PER_MIN: '1000000',
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        // The store's own settings, to compare them (DATABASE_PREPARED_STATEMENTS=0, say).
        ...Object.fromEntries(
          storeSettings.flatMap((name) =>
            process.env[name] === undefined ? [] : [[name, process.env[name]!]],
          ),
        ),
      },
      stdio: ['ignore', log, log],
    });
    const url = `http://127.0.0.1:${port}`;
    await answersAfter(url + '/', gateway, 60_000, 20);
    const token = await signEmbeddedToken(dataDir, { username: user, ttlSeconds: 3600 });
    const auth = { authorization: `Bearer ${token}` };
    const rows: Row[] = [];
    const measured = routes(folder, n);
    // Every route warmed before any is measured: the first route measured after a start otherwise
    // also pays for compiling the code all routes share (its p50 was often the run's highest).
    for (const { target } of measured) await autocannon(url, auth, target, warmUpSeconds);
    for (const { route, target } of measured) {
      const probe = await fetch(url + target.path, {
        method: target.method,
        headers: target.body ? { ...auth, 'content-type': 'application/json' } : auth,
        body: target.body ? JSON.stringify(target.body) : undefined,
      });
      const text = await probe.text();
      if (probe.status !== 200) {
        // A route that fails at this size is reported as failing, not measured.
        const failure = `${probe.status} ${(JSON.parse(text) as { error_code?: string }).error_code ?? ''}`;
        console.error(`${engine} ${n} ${route}: ${failure} ${text.slice(0, 200)}`);
        rows.push({
          engine,
          size: n,
          route,
          requests: 0,
          rps: 0,
          p50: NaN,
          p99: NaN,
          errors: 0,
          failure,
        });
        continue;
      }
      await autocannon(url, auth, target, warmUpSeconds); // and again, right before its row
      const load = await autocannon(url, auth, target, seconds);
      console.error(
        `${engine} ${n} ${route}: p50 ${load.p50} ms, p99 ${load.p99} ms, ${load.rps} req/s, errors ${load.errors}`,
      );
      rows.push({ engine, size: n, route, ...load });
    }
    return rows;
  } finally {
    if (gateway) await stopChild(gateway);
    rmSync(dataDir, { recursive: true, force: true });
    if (baseUrl) await admin(baseUrl, `drop database if exists ${benchDatabase} with (force)`);
  }
}

// ---------------------------------------------------------------- report

interface Report {
  when: string;
  node: string;
  cpus: number;
  loadAverage: number[];
  connections: number;
  seconds: number;
  sizes: number[];
  rows: Row[];
}

const target = (route: string) => (route === 'bootstrap' ? 15 : 20);

function markdown(report: Report): string {
  const lines = [
    `Run ${report.when} · node ${report.node} · ${report.cpus} CPUs, load average ${report.loadAverage.join(' → ')} (shared machine: indicative figures) · ` +
      `autocannon in a child process, ${report.connections} connections, ${report.seconds} s per row (after every route was warmed ${warmUpSeconds} s, and again right before its row) · p50 / p99 in ms (autocannon rounds to whole ms)`,
    '',
  ];
  for (const engine of [...new Set(report.rows.map((row) => row.engine))]) {
    const rows = report.rows.filter((row) => row.engine === engine);
    const sizes = [...new Set(rows.map((row) => row.size))];
    lines.push(
      `| ${engine} | ${sizes.map((size) => `${size.toLocaleString('en')} items`).join(' | ')} | target p50 |`,
      `| --- | ${sizes.map(() => '---:').join(' | ')} | ---: |`,
    );
    for (const route of [...new Set(rows.map((row) => row.route))]) {
      const cells = sizes.map((size) => {
        const row = rows.find((r) => r.route === route && r.size === size);
        if (!row) return '—';
        if (row.failure) return `fails: ${row.failure.trim()}`;
        if (row.requests === 0) return `no answer in ${report.seconds} s`;
        return `${row.p50} / ${row.p99}${row.errors ? ` (${row.errors} errors)` : ''}`;
      });
      lines.push(`| ${route} | ${cells.join(' | ')} | ≤ ${target(route)} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const built = spawnSync(process.execPath, ['scripts/build.mjs', '--if-changed'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('the build failed');
  const loadAtStart = Math.round(loadavg()[0]! * 100) / 100;
  const rows: Row[] = [];
  const plan: Array<[string, string | undefined]> = [];
  if (engines.includes('sqlite')) plan.push(['SQLite', undefined]);
  if (engines.includes('postgres') && process.env.DATABASE_URL)
    plan.push(['PostgreSQL', process.env.DATABASE_URL]);
  for (const [engine, baseUrl] of plan)
    for (const n of sizes) rows.push(...(await runOne(engine, n, baseUrl)));

  const report: Report = {
    when: new Date().toISOString(),
    node: process.version,
    cpus: Number(spawnSync('nproc').stdout.toString().trim()),
    loadAverage: [loadAtStart, Math.round(loadavg()[0]! * 100) / 100],
    connections,
    seconds,
    sizes,
    rows,
  };
  const table = markdown(report);
  writeResults('scale-', 'scale-last-run', report, table);
  process.stdout.write('\n' + table);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

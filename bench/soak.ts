/**
 * `npm run soak` (issue 45 item 8; not part of `npm test`): many users, each sending twice the
 * rate its token bucket allows, for a while, with reads and writes mixed, against gateways in
 * processes of their own, the load from this one:
 *
 * - `single`: one gateway on SQLite and its local data store;
 * - `pair`: two gateways on one PostgreSQL database (a fresh one, DATABASE_URL's server), one Redis
 *   (REDIS_URL, a prefix of their own) and one S3 store (s3rver, in this process), each user's
 *   requests alternating between them: one budget across both.
 *
 * Each user makes one request every 60 / (2 × SOAK_PER_MIN) s: a write every fourth (`POST
 * /secured/fileio/saveas` of a file of its own, unique content), else a read (the home folder's
 * listing, or the last file it wrote, compared with what it wrote). What is checked:
 *
 * - accepted (2xx) against refused (429) per user, against a token bucket of the same capacity
 *   and refill run over the times the requests were sent: within ±2 % for every user;
 * - no 5xx, no other status, no failed connection;
 * - every write answered 200 read back intact afterwards, through a gateway started again on the
 *   same store without limits (so also after a restart).
 *
 * Settings: SOAK_USERS (50), SOAK_SECONDS (60), SOAK_PER_MIN (60, the users' refill per minute),
 * SOAK_BURST (10, their bucket's capacity), SOAK_MODES (`single,pair`; `pair` needs DATABASE_URL
 * and REDIS_URL). Exit status 1 when a check failed. The table goes to bench/results/ and between
 * the `soak` markers of bench/README.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Agent, fetch } from 'undici';
import { Redis } from 'ioredis';
import { signEmbeddedToken } from '../src/http/keys.ts';
import { startS3, type TestS3 } from '../test/support/s3.ts';
import {
  answersAfter,
  cpuSeconds,
  freePort,
  memoryMiB,
  root,
  stopChild,
  writeResults,
} from './harness.ts';

const users = Number(process.env.SOAK_USERS ?? 50);
const seconds = Number(process.env.SOAK_SECONDS ?? 60);
const perMinute = Number(process.env.SOAK_PER_MIN ?? 60);
const burst = Number(process.env.SOAK_BURST ?? 10);
const modes = (process.env.SOAK_MODES ?? 'single,pair')
  .split(',')
  .map((mode) => mode.trim())
  .filter(Boolean);
/** How far each user's accepted count may be from the bucket's. */
const tolerance = 0.02;

interface Gateway {
  url: string;
  child: ChildProcess;
}

/** Starts src/main.ts on a free port with `env` (over PATH and HOME), once it answers. */
async function startGateway(env: Record<string, string>): Promise<Gateway> {
  const port = await freePort();
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await answersAfter(`${url}/livez`, child, 60_000, 20);
  return { url, child };
}

/** What one user saw: each request's send time and status, and the files it was told it saved. */
interface UserLog {
  sentAt: number[];
  statuses: number[];
  saved: Map<string, string>;
  /** Reads of its own last file that came back with other bytes than it wrote. */
  mismatches: number;
  latencies: number[];
}

/** How many of requests sent at `times` (ms) a full bucket of `capacity`, refilled at `perMin`, takes. */
export function bucketAccepts(times: number[], capacity: number, perMin: number): number {
  const perMs = perMin / 60_000;
  let tokens = capacity;
  let last = times[0] ?? 0;
  let accepted = 0;
  for (const at of times) {
    tokens = Math.min(capacity, tokens + (at - last) * perMs);
    last = at;
    if (tokens >= 1) {
      tokens -= 1;
      accepted += 1;
    }
  }
  return accepted;
}

/** The first few answers that were neither 2xx nor 429, to say what went wrong. */
const unexpected: string[] = [];

/**
 * The users' connections: at most this many to each gateway, as many clients behind one address
 * would have (a request waits for a free one here, counted from when it was due).
 */
const dispatcher = new Agent({ connections: 128, keepAliveTimeout: 30_000 });

/** Drives the load: every user at twice its rate for `seconds`, across `gateways` in turn. */
async function drive(gateways: Gateway[], tokens: string[]): Promise<UserLog[]> {
  const intervalMs = 60_000 / (2 * perMinute);
  const logs: UserLog[] = tokens.map(() => ({
    sentAt: [],
    statuses: [],
    saved: new Map(),
    mismatches: 0,
    latencies: [],
  }));
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    tokens.map(async (token, user) => {
      const log = logs[user]!;
      const home = `/platform/home/soak${user}`;
      /** The last file the gateway acknowledged writing, which reads ask for. */
      let last: { path: string; content: string } | undefined;
      const sent: Promise<void>[] = [];
      // Open loop: each request leaves at its time whether or not the ones before have been
      // answered, so a slow gateway is still sent twice what it allows. Spread over the first
      // interval, so the users' requests do not all leave at once.
      let next = start + (intervalMs * user) / tokens.length;
      for (let n = 0; next < end; n++, next += intervalMs) {
        const wait = next - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const gateway = gateways[n % gateways.length]!;
        const headers: Record<string, string> = { authorization: `Bearer ${token}` };
        let request: { method: string; route: string; body?: string };
        let written: { path: string; content: string } | undefined;
        const read = n % 2 === 0 ? last : undefined;
        if (n === 0) request = { method: 'GET', route: '/secured/filesystem/root' };
        else if (n % 4 === 0) {
          written = { path: `${home}/soak-${n}.txt`, content: `${user}:${n}:${randomUUID()}` };
          headers['content-type'] = 'application/json';
          request = {
            method: 'POST',
            route: '/secured/fileio/saveas',
            body: JSON.stringify({ dest: written.path, content: written.content }),
          };
        } else if (read)
          request = {
            method: 'GET',
            route: `/secured/fileio/download?path=${encodeURIComponent(read.path)}`,
          };
        else
          request = {
            method: 'GET',
            route: `/secured/filesystem/directory?path=${encodeURIComponent(home)}&limit=10`,
          };
        const index = log.sentAt.push(performance.now()) - 1;
        sent.push(
          (async () => {
            const sentAt = log.sentAt[index]!;
            let status: number;
            try {
              const response = await fetch(`${gateway.url}${request.route}`, {
                dispatcher,
                method: request.method,
                headers,
                ...(request.body ? { body: request.body } : {}),
              });
              const text = await response.text();
              status = response.status;
              if ((status >= 500 || (status >= 300 && status !== 429)) && unexpected.length < 5)
                unexpected.push(
                  `${request.method} ${request.route}: ${status} ${text.slice(0, 300)}`,
                );
              if (status === 200 && written) {
                log.saved.set(written.path, written.content);
                last = written;
              }
              if (status === 200 && read && !written && text !== read.content) log.mismatches += 1;
            } catch (error) {
              status = 0;
              if (unexpected.length < 10)
                unexpected.push(
                  `${request.method} ${request.route}: ${(error as Error).message} (${String((error as { cause?: unknown }).cause)})`,
                );
            }
            log.latencies.push(performance.now() - sentAt);
            log.statuses[index] = status;
          })(),
        );
      }
      await Promise.all(sent);
    }),
  );
  return logs;
}

/** Reads back every acknowledged write through `gateway`: how many came back intact. */
async function readBack(gateway: Gateway, tokens: string[], logs: UserLog[]): Promise<number> {
  let intact = 0;
  await Promise.all(
    logs.map(async (log, user) => {
      for (const [file, content] of log.saved) {
        const response = await fetch(
          `${gateway.url}/secured/fileio/download?path=${encodeURIComponent(file)}`,
          { dispatcher, headers: { authorization: `Bearer ${tokens[user]}` } },
        );
        if (response.status === 200 && (await response.text()) === content) intact += 1;
        else await response.arrayBuffer();
      }
    }),
  );
  return intact;
}

interface Row {
  mode: string;
  users: number;
  's (rate/min, burst)': string;
  sent: number;
  accepted: number;
  refused: number;
  '5xx': number;
  'other/failed': number;
  'worst user vs bucket': string;
  'p50 / p99 ms': string;
  'writes acked': number;
  'read back intact': number;
  'gateway CPU s': number;
  'gateway peak MiB': number;
}

function summarise(
  mode: string,
  logs: UserLog[],
  intact: number,
  usage: { cpu: number; peak: number },
): {
  row: Row;
  failures: string[];
} {
  const failures: string[] = [];
  let worst = 0;
  for (const [user, log] of logs.entries()) {
    const accepted = log.statuses.filter((status) => status >= 200 && status < 300).length;
    const expected = bucketAccepts(log.sentAt, burst, perMinute);
    const deviation = Math.abs(accepted - expected) / expected;
    worst = Math.max(worst, deviation);
    if (deviation > tolerance)
      failures.push(`${mode}: user soak${user} had ${accepted} accepted, the bucket ${expected}`);
    if (log.mismatches > 0)
      failures.push(`${mode}: user soak${user} read ${log.mismatches} files back changed`);
  }
  const statuses = logs.flatMap((log) => log.statuses);
  const count = (test: (status: number) => boolean) => statuses.filter(test).length;
  const serverErrors = count((status) => status >= 500);
  const other = count(
    (status) => status !== 429 && (status < 200 || (status >= 300 && status < 500)),
  );
  if (serverErrors > 0) failures.push(`${mode}: ${serverErrors} answers were 5xx`);
  if (other > 0)
    failures.push(`${mode}: ${other} answers were neither 2xx, 429 nor 5xx, or failed`);
  const acked = logs.reduce((sum, log) => sum + log.saved.size, 0);
  if (intact !== acked)
    failures.push(`${mode}: ${acked - intact} acknowledged writes were not read back intact`);
  const latencies = logs.flatMap((log) => log.latencies).sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    row: {
      mode,
      users: logs.length,
      's (rate/min, burst)': `${seconds} (${perMinute}, ${burst})`,
      sent: statuses.length,
      accepted: count((status) => status >= 200 && status < 300),
      refused: count((status) => status === 429),
      '5xx': serverErrors,
      'other/failed': other,
      'worst user vs bucket': `${(worst * 100).toFixed(2)} %`,
      'p50 / p99 ms': `${at(0.5).toFixed(1)} / ${at(0.99).toFixed(1)}`,
      'writes acked': acked,
      'read back intact': intact,
      'gateway CPU s': Number(usage.cpu.toFixed(1)),
      'gateway peak MiB': usage.peak,
    },
    failures,
  };
}

const limits = { RATE_LIMIT_USER_PER_MIN: String(perMinute), RATE_LIMIT_BURST: String(burst) };
const unlimited = { RATE_LIMIT_USER_PER_MIN: '1000000', RATE_LIMIT_BURST: '1000000' };

async function soakSingle(): Promise<{ row: Row; failures: string[] }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'soak-single-'));
  try {
    let gateway = await startGateway({ GATEWAY_DATA_DIR: dataDir, ...limits });
    const tokens = await Promise.all(
      Array.from({ length: users }, (_, user) =>
        signEmbeddedToken(dataDir, { username: `soak${user}`, ttlSeconds: 3600 }),
      ),
    );
    const pid = gateway.child.pid!;
    const cpuBefore = cpuSeconds([pid]);
    const logs = await drive([gateway], tokens);
    const cpuAfter = cpuSeconds([pid]) - cpuBefore;
    const peak = memoryMiB([pid], 'VmHWM');
    await stopChild(gateway.child);
    gateway = await startGateway({ GATEWAY_DATA_DIR: dataDir, ...unlimited });
    const intact = await readBack(gateway, tokens, logs);
    await stopChild(gateway.child);
    return summarise('single (SQLite, local store)', logs, intact, { cpu: cpuAfter, peak });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function soakPair(): Promise<{ row: Row; failures: string[] } | string> {
  const databaseUrl = process.env.DATABASE_URL;
  const redisUrl = process.env.REDIS_URL;
  if (!databaseUrl || !redisUrl) return 'pair: skipped (DATABASE_URL and REDIS_URL must be set)';
  const database = `gateway_soak_${Date.now()}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`create database ${database}`);
  const url = new URL(databaseUrl);
  url.pathname = `/${database}`;
  const prefix = `soak:${randomUUID()}:`;
  const dirs = [0, 1, 2].map(() => mkdtempSync(path.join(tmpdir(), 'soak-pair-')));
  let s3: TestS3 | undefined;
  const started: Gateway[] = [];
  try {
    s3 = await startS3();
    const signingKey = Buffer.from(
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
        type: 'pkcs8',
        format: 'pem',
      }),
    );
    const shared = {
      DATABASE_URL: url.toString(),
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: prefix,
      BLOB_STORE_URL: s3.url('soak'),
      AUTH_SIGNING_KEY: signingKey.toString(),
      SERVICE_TOKEN_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
        type: 'pkcs8',
        format: 'pem',
      }) as string,
      TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    };
    // One after the other: the first runs the migrations.
    for (const dir of dirs.slice(0, 2))
      started.push(await startGateway({ ...shared, ...limits, GATEWAY_DATA_DIR: dir }));
    const tokens = await Promise.all(
      Array.from({ length: users }, (_, user) =>
        signEmbeddedToken(dirs[0]!, { username: `soak${user}`, ttlSeconds: 3600 }, signingKey),
      ),
    );
    const pids = started.map((gateway) => gateway.child.pid!);
    const cpuBefore = cpuSeconds(pids);
    const logs = await drive(started, tokens);
    const cpu = cpuSeconds(pids) - cpuBefore;
    const peak = memoryMiB(pids, 'VmHWM');
    const reader = await startGateway({ ...shared, ...unlimited, GATEWAY_DATA_DIR: dirs[2]! });
    started.push(reader);
    const intact = await readBack(reader, tokens, logs);
    return summarise('pair (PostgreSQL, Redis, S3)', logs, intact, { cpu, peak });
  } finally {
    for (const gateway of started) await stopChild(gateway.child);
    await s3?.close();
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end();
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

const rows: Row[] = [];
const failures: string[] = [];
const notes: string[] = [];
for (const mode of modes) {
  const result =
    mode === 'single'
      ? await soakSingle()
      : mode === 'pair'
        ? await soakPair()
        : `${mode}: unknown mode`;
  if (typeof result === 'string') {
    notes.push(result);
    continue;
  }
  rows.push(result.row);
  failures.push(...result.failures);
  console.log(JSON.stringify(result.row));
}
for (const note of notes) console.log(note);
const columns = Object.keys(rows[0] ?? {}) as (keyof Row)[];
const table = [
  `| ${columns.join(' | ')} |`,
  `|${columns.map(() => '---').join('|')}|`,
  ...rows.map((row) => `| ${columns.map((column) => String(row[column])).join(' | ')} |`),
  ...notes.map((note) => `\n${note}`),
].join('\n');
console.log(table);
// The README's table only from a whole run.
writeResults(
  'soak-',
  'soak',
  { users, seconds, perMinute, burst, rows, failures, notes },
  `${table}\n`,
  failures.length === 0 && notes.length === 0,
);
if (failures.length > 0) {
  for (const failure of failures) console.error(`FAILED ${failure}`);
  for (const answer of unexpected) console.error(`  e.g. ${answer}`);
  process.exitCode = 1;
} else console.log('soak: every check held');

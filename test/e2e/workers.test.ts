// WORKERS=2 (src/cluster.ts): `npm start`'s entry in a child process serves one port from two worker
// processes, each with its own embedded backends, on SQLite (the primary keeps the rate-limit
// buckets and relays notifications) and on PostgreSQL with Redis. Requests reach both workers (the
// x-gateway-worker header says which); a file uploaded through one is downloaded through the
// other; a user's rate limit is exact across both; a notification sent through one reaches a
// stream opened on the other; a worker killed is replaced; SIGTERM ends every process cleanly.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { Client } from 'undici';
import { signEmbeddedToken } from '../../src/http/keys.ts';
import { openEventStream } from '../support/event-stream.ts';
import { multipart, multipartType } from '../support/fileio.ts';
import { startMainProcess, type MainProcess } from '../support/main-process.ts';
import { pgDatabaseUrl } from '../support/postgres.ts';

const BURST = 6;
const q = encodeURIComponent;

/** Nothing alive by that pid any more. */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

interface Setup {
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

const setups: Record<string, { skip?: string; make(): Promise<Setup> }> = {
  'SQLite, no Redis': {
    make: async () => ({ env: {}, cleanup: async () => {} }),
  },
  'PostgreSQL and Redis': {
    skip:
      !process.env.DATABASE_URL || !process.env.REDIS_URL
        ? 'DATABASE_URL and REDIS_URL must be set to run'
        : undefined,
    make: async () => {
      const pgDatabase = await pgDatabaseUrl(process.env.DATABASE_URL!);
      const prefix = `test:workers:${randomUUID()}:`;
      return {
        env: {
          DATABASE_URL: pgDatabase.url,
          REDIS_URL: process.env.REDIS_URL!,
          REDIS_KEY_PREFIX: prefix,
        },
        cleanup: async () => {
          await pgDatabase.drop();
          const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1 });
          const keys = await redis.keys(`${prefix}*`);
          if (keys.length > 0) await redis.del(...keys);
          redis.disconnect();
        },
      };
    },
  },
};

for (const [name, setup] of Object.entries(setups)) {
  describe(`WORKERS=2 on ${name}`, { skip: setup.skip, timeout: 180_000 }, () => {
    let made: Setup;
    let child: MainProcess;
    let dataDir: string;
    /** One keep-alive connection to each worker, by worker id. */
    const clients = new Map<string, Client>();
    let stopped = false;

    before(async () => {
      made = await setup.make();
      dataDir = mkdtempSync(path.join(tmpdir(), 'gateway-workers-'));
      child = await startMainProcess({
        ...made.env,
        WORKERS: '2',
        GATEWAY_DATA_DIR: dataDir,
        RATE_LIMIT_BURST: String(BURST),
        RATE_LIMIT_USER_PER_MIN: '1',
        RATE_LIMIT_ANON_PER_MIN: '100000',
        KEEP_ALIVE_TIMEOUT_MS: '600000',
        NOTIFICATION_STREAM_HEARTBEAT_MS: '500',
      });
      await child.logLine((line) => line.component === 'primary' && line.workers === 2, 120_000);
      // The cluster hands each new connection to the next worker: a few connections reach both.
      for (let attempt = 0; attempt < 10 && clients.size < 2; attempt++) {
        const client = new Client(child.url, { keepAliveTimeout: 600_000 });
        const answer = await client.request({ path: '/uuid', method: 'GET' });
        await answer.body.arrayBuffer();
        const worker = String(answer.headers['x-gateway-worker']);
        if (clients.has(worker)) await client.close();
        else clients.set(worker, client);
      }
    });

    after(async () => {
      await Promise.all([...clients.values()].map((client) => client.destroy()));
      if (!stopped) await child?.stop('SIGKILL');
      await made?.cleanup();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    const auth = async (user: string) => ({
      authorization: `Bearer ${await signEmbeddedToken(dataDir, { username: user })}`,
    });

    /** A request on the connection to worker `worker`; asserts that worker answered. */
    const on = async (
      worker: string,
      request: {
        path: string;
        method?: 'GET' | 'POST';
        headers?: Record<string, string>;
        body?: Buffer | string;
      },
    ) => {
      const answer = await clients.get(worker)!.request({ method: 'GET', ...request });
      const body = Buffer.from(await answer.body.arrayBuffer());
      assert.equal(answer.headers['x-gateway-worker'], worker, 'answered by the worker asked');
      return { status: answer.statusCode, headers: answer.headers, body };
    };

    test('requests reach both workers, each named in x-gateway-worker', () => {
      assert.deepEqual([...clients.keys()].sort(), ['1', '2']);
    });

    test('a file uploaded through one worker is downloaded through the other', async () => {
      const headers = await auth('alice');
      const content = randomBytes(300_000);
      const uploaded = await on('1', {
        path: `/secured/fileio/upload?dest=${q('/platform/home/alice')}`,
        method: 'POST',
        headers: { ...headers, 'content-type': multipartType },
        body: multipart('shared.bin', content),
      });
      assert.equal(uploaded.status, 200, uploaded.body.toString());
      const downloaded = await on('2', {
        path: `/secured/fileio/download?path=${q('/platform/home/alice/shared.bin')}`,
        headers,
      });
      assert.equal(downloaded.status, 200, downloaded.body.toString());
      assert.ok(downloaded.body.equals(content));
    });

    test("a user's rate limit is exact across the workers", async () => {
      const headers = await auth('rita');
      const statuses: number[] = [];
      const remaining: number[] = [];
      for (let i = 0; i < BURST + 2; i++) {
        const answer = await on(i % 2 === 0 ? '1' : '2', { path: '/secured/bootstrap', headers });
        statuses.push(answer.status);
        remaining.push(Number(answer.headers['ratelimit-remaining']));
      }
      assert.deepEqual(statuses, [...Array(BURST).fill(200), 429, 429]);
      assert.deepEqual(
        remaining.slice(0, BURST),
        Array.from({ length: BURST }, (_, i) => BURST - 1 - i),
        "each worker sees the other's spending",
      );
    });

    test('a notification sent through one worker reaches a stream opened on the other', async () => {
      const headers = await auth('yara');
      const stream = await openEventStream(`${child.url}/secured/notifications/stream`, headers);
      try {
        assert.equal(stream.status, 200);
        const streamWorker = stream.headers.get('x-gateway-worker')!;
        const other = streamWorker === '1' ? '2' : '1';
        await stream.next((event) => event.event === 'counts');
        const sent = await on(other, {
          path: '/send-notification',
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            type: 'data',
            user: 'yara',
            subject: `sent through worker ${other}`,
          }),
        });
        assert.equal(sent.status, 200, sent.body.toString());
        const pushed = await stream.next((event) => event.event === 'notification', 10_000);
        assert.equal(pushed.data.message.subject, `sent through worker ${other}`);
      } finally {
        stream.close();
      }
    });

    test('a worker that dies is replaced, and SIGTERM ends every process with exit code 0', async () => {
      const first = await child.logLine((line) => line.worker === 1);
      const second = await child.logLine((line) => line.worker === 2);
      process.kill(Number(first.pid), 'SIGKILL');
      await child.logLine((line) => line.msg === 'a worker exited; starting another');
      const third = await child.logLine(
        (line) => line.worker === 3 && /^Server listening at http/.test(String(line.msg)),
        120_000,
      );
      const { code } = await child.stop('SIGTERM');
      stopped = true;
      assert.equal(code, 0);
      for (const pid of [first.pid, second.pid, third.pid])
        assert.ok(gone(Number(pid)), `pid ${pid} still runs`);
    });
  });
}

// Scale-out across hosts (docs/deployment.md): two gateways with data directories of their own on
// one PostgreSQL database, one Redis and one S3-compatible store (s3rver, started here), agreeing
// on keys given in configuration. A file uploaded through one is downloaded whole (and by range)
// through the other; a notification sent through one is read and streamed through the other; a
// user's rate-limit budget is one budget across both. Figures (upload and download throughput
// through S3) are printed as test diagnostics.
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { signEmbeddedToken } from '../../src/http/keys.ts';
import { openEventStream } from '../support/event-stream.ts';
import { requiredInCi, startGateway, type RunningGateway } from '../support/gateway.ts';
import { pgSchemaUrl } from '../support/postgres.ts';
import { startS3, type TestS3 } from '../support/s3.ts';

const databaseUrl = requiredInCi('DATABASE_URL');
const redisUrl = requiredInCi('REDIS_URL');
const MiB = 1024 * 1024;
const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');
const q = encodeURIComponent;

/** Per-user budget of both gateways together: the rate-limit test spends it from both. */
const BURST = 12;

describe(
  'two gateways on one PostgreSQL, one Redis and one S3 store',
  {
    skip: !databaseUrl || !redisUrl ? 'DATABASE_URL and REDIS_URL must be set to run' : undefined,
  },
  () => {
    let s3: TestS3;
    let schema: Awaited<ReturnType<typeof pgSchemaUrl>>;
    let one: RunningGateway;
    let two: RunningGateway;
    const redisPrefix = `test:scale-out:${randomUUID()}:`;
    // The keys every instance must share, given as configuration (not made in each data directory).
    const signingKey = Buffer.from(
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
        type: 'pkcs8',
        format: 'pem',
      }),
    );
    const serviceTokenKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;

    before(async () => {
      s3 = await startS3();
      schema = await pgSchemaUrl(databaseUrl!);
      const env = {
        DATABASE_URL: schema.url,
        REDIS_URL: redisUrl!,
        REDIS_KEY_PREFIX: redisPrefix,
        BLOB_STORE_URL: s3.url('shared'),
        AUTH_SIGNING_KEY: signingKey.toString(),
        SERVICE_TOKEN_KEY: serviceTokenKey,
        TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        RATE_LIMIT_BURST: String(BURST),
        RATE_LIMIT_USER_PER_MIN: '1',
        NOTIFICATION_STREAM_HEARTBEAT_MS: '500',
      };
      // Started one after the other: the first runs the migrations, the second finds them done.
      one = await startGateway(env);
      two = await startGateway(env);
    });

    after(async () => {
      await one?.close();
      await two?.close();
      await schema?.drop();
      await s3?.close();
      if (redisUrl) {
        const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
        const keys = await redis.keys(`${redisPrefix}*`);
        if (keys.length > 0) await redis.del(...keys);
        redis.disconnect();
      }
    });

    /** A token signed with the shared key; either gateway accepts it. */
    const auth = async (user: string) => ({
      authorization: `Bearer ${await signEmbeddedToken(one.dataDir, { username: user }, signingKey)}`,
    });

    test('the instances have data directories of their own', () => {
      assert.notEqual(one.dataDir, two.dataDir);
    });

    test('a file uploaded through one gateway is downloaded, whole and by range, through the other', async (t) => {
      const headers = await auth('alice');
      const home = '/platform/home/alice';
      const content = randomBytes(24 * MiB + 123); // several multipart parts in S3
      const form = new FormData();
      form.append('file', new Blob([content]), 'big.bin');
      let started = performance.now();
      const uploaded = await fetch(`${one.url}/secured/fileio/upload?dest=${q(home)}`, {
        method: 'POST',
        headers,
        body: form,
      });
      const uploadMs = performance.now() - started;
      assert.equal(uploaded.status, 200, await uploaded.clone().text());
      const stat = (await uploaded.json()) as { file: { 'file-size': number; md5?: string } };
      assert.equal(stat.file['file-size'], content.length);

      started = performance.now();
      const downloaded = await fetch(
        `${two.url}/secured/fileio/download?path=${q(`${home}/big.bin`)}`,
        { headers },
      );
      assert.equal(downloaded.status, 200);
      const bytes = Buffer.from(await downloaded.arrayBuffer());
      const downloadMs = performance.now() - started;
      assert.equal(bytes.length, content.length);
      assert.equal(md5(bytes), md5(content));

      const ranged = await fetch(
        `${two.url}/secured/fileio/download?path=${q(`${home}/big.bin`)}`,
        {
          headers: { ...headers, range: 'bytes=1000-1999' },
        },
      );
      assert.equal(ranged.status, 206);
      assert.ok(Buffer.from(await ranged.arrayBuffer()).equals(content.subarray(1000, 2000)));

      // The bytes are in the bucket, not in either data directory.
      const keys = await s3.keys('shared/objects/');
      assert.equal(keys.length, 1);
      const mibPerSecond = (ms: number) => ((content.length / MiB / ms) * 1000).toFixed(1);
      t.diagnostic(
        `24 MiB through S3 (s3rver on loopback): upload via gateway one ${mibPerSecond(uploadMs)} MiB/s, download via gateway two ${mibPerSecond(downloadMs)} MiB/s`,
      );

      // Deleted through the second gateway: gone from the bucket once the trash is emptied.
      const deleted = await fetch(`${two.url}/secured/filesystem/delete`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ paths: [`${home}/big.bin`] }),
      });
      assert.equal(deleted.status, 200, await deleted.clone().text());
      const emptied = await fetch(`${one.url}/secured/filesystem/trash`, {
        method: 'DELETE',
        headers,
      });
      assert.equal(emptied.status, 200, await emptied.clone().text());
      assert.deepEqual(await s3.keys('shared/objects/'), []);
    });

    test('a notification sent through one gateway is read and streamed through the other', async () => {
      const headers = await auth('yara');
      const stream = await openEventStream(`${two.url}/secured/notifications/stream`, headers);
      try {
        assert.equal(stream.status, 200);
        await stream.next((event) => event.event === 'counts');
        const sent = await fetch(`${one.url}/send-notification`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'data', user: 'yara', subject: 'sent through gateway one' }),
        });
        assert.equal(sent.status, 200);
        const pushed = await stream.next((event) => event.event === 'notification');
        assert.equal(pushed.data.message.subject, 'sent through gateway one');
        const listed = await fetch(`${two.url}/secured/notifications/messages`, { headers });
        const { messages } = (await listed.json()) as {
          messages: { message: { id: string; text: string } }[];
        };
        assert.deepEqual(
          messages.map((n) => n.message.id),
          [pushed.id],
        );
      } finally {
        stream.close();
      }
    });

    test("a user's rate-limit budget is one budget across both gateways", async () => {
      const headers = await auth('rita');
      const statuses: number[] = [];
      const remaining: number[] = [];
      for (let i = 0; i < BURST + 2; i++) {
        const answer = await fetch(`${i % 2 === 0 ? one.url : two.url}/secured/bootstrap`, {
          headers,
        });
        await answer.arrayBuffer();
        statuses.push(answer.status);
        remaining.push(Number(answer.headers.get('ratelimit-remaining')));
      }
      assert.deepEqual(statuses, [...Array(BURST).fill(200), 429, 429]);
      assert.deepEqual(
        remaining.slice(0, BURST),
        Array.from({ length: BURST }, (_, i) => BURST - 1 - i),
        "each gateway sees the other one's spending",
      );
    });
  },
);

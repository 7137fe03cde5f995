// The BlobStore contract (blob-store.ts) on both kinds of store, a local folder and a real
// S3-compatible server (s3rver): writes, reads and ranges, overwrites, deletes and copies, and
// failed or aborted writes leaving nothing behind (the bucket listed, the folder read); then an S3
// store that cannot be reached or never answers failing cleanly, as the store and as JSON through
// the gateway.
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { BlobTooLarge, type BlobStore } from '../../../src/backends/data-info/blob-store.ts';
import { LocalBlobStore } from '../../../src/backends/data-info/blobs.ts';
import { openBlobStore } from '../../../src/backends/data-info/open-blob-store.ts';
import { S3BlobStore } from '../../../src/backends/data-info/s3-blobs.ts';
import { loadConfig } from '../../../src/config/index.ts';
import { GatewayError } from '../../../src/common/errors.ts';
import { startDataStoreGateway, type DataStoreGateway } from '../../support/data-store.ts';
import { tally, testFile } from '../../support/reliability.ts';
import { startS3, type TestS3 } from '../../support/s3.ts';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.ts';

const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');
const MiB = 1024 * 1024;

/** S3 settings for `url` with the smallest part size S3 allows, so 12 MiB is a multipart upload. */
function s3Store(url: string): S3BlobStore {
  const settings = loadConfig({ BLOB_STORE_URL: url }).dataStore.blobStore!;
  return new S3BlobStore({ ...settings, partSizeBytes: 5 * MiB });
}

const bytesOf = async (stream: Readable) => Buffer.concat(await stream.toArray());

interface Kind {
  name: string;
  store: BlobStore;
  /** Every stored thing: object keys or files, temporary ones included. */
  leftovers(): Promise<string[]>;
  close(): Promise<void>;
}

async function localKind(): Promise<Kind> {
  const root = await mkdtemp(path.join(tmpdir(), 'blob-stores-'));
  const store = new LocalBlobStore(root);
  await store.init();
  return {
    name: 'local folder',
    store,
    leftovers: async () =>
      (await readdir(root, { recursive: true, withFileTypes: true }))
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name),
    close: () => rm(root, { recursive: true, force: true }),
  };
}

let s3: TestS3;
before(async () => {
  s3 = await startS3();
});
after(async () => {
  await s3?.close();
});

async function s3Kind(): Promise<Kind> {
  const prefix = `t-${randomUUID()}`;
  const store = s3Store(s3.url(prefix));
  await store.init();
  return {
    name: 's3rver',
    store,
    leftovers: () => s3.keys(`${prefix}/`),
    close: async () => store.destroy(),
  };
}

for (const makeKind of [localKind, s3Kind]) {
  describe(`blob store contract (${makeKind === localKind ? 'local folder' : 's3rver'})`, () => {
    let kind: Kind;
    before(async () => {
      kind = await makeKind();
    });
    after(async () => {
      await kind?.close();
    });

    test('put, get (whole and a range), size, exists, copy and delete', async () => {
      const { store } = kind;
      const id = randomUUID();
      const data = randomBytes(12 * MiB + 7); // several parts on S3
      const written = await store.write(
        id,
        Readable.from([data.subarray(0, 3 * MiB), data.subarray(3 * MiB)]),
      );
      assert.deepEqual(written, { size: data.length, md5: md5(data) });
      assert.ok((await bytesOf(store.read(id))).equals(data));
      assert.ok((await bytesOf(store.read(id, { start: 5, end: 9 }))).equals(data.subarray(5, 10)));
      const open = await store.openRead(id);
      assert.equal(open.size, data.length);
      const tail = { start: data.length - 100, end: data.length - 1 };
      assert.ok((await bytesOf(open.stream(tail))).equals(data.subarray(-100)));
      assert.equal(await store.size(id), data.length);
      assert.equal(await store.exists(id), true);

      const copy = randomUUID();
      await store.copy(id, copy);
      assert.equal(md5(await bytesOf(store.read(copy))), md5(data));

      await store.remove(id);
      await store.remove(id); // missing is no error
      assert.equal(await store.exists(id), false);
      await assert.rejects(store.openRead(id), { code: 'ENOENT' });
      await assert.rejects(store.size(id), { code: 'ENOENT' });
      await assert.rejects(bytesOf(store.read(id)), { code: 'ENOENT' });
      await assert.rejects(store.copy(id, randomUUID()), { code: 'ENOENT' });
      await store.remove(copy);
      assert.deepEqual(await kind.leftovers(), []);
    });

    test('an overwrite replaces the content whole; empty content is stored', async () => {
      const { store } = kind;
      const id = randomUUID();
      await store.write(id, 'first version, rather longer than the second');
      assert.deepEqual(await store.write(id, Buffer.from('second')), {
        size: 6,
        md5: md5(Buffer.from('second')),
      });
      assert.equal((await bytesOf(store.read(id))).toString(), 'second');
      assert.deepEqual(await store.write(id, ''), { size: 0, md5: md5(Buffer.alloc(0)) });
      assert.equal(await store.size(id), 0);
      const stale: string[] = [];
      for await (const batch of store.staleObjects(Date.now() + 1000, 10)) stale.push(...batch);
      assert.deepEqual(stale, [id]);
      await store.remove(id);
    });

    test('a write over the size limit, a failing source and an abort leave nothing, and the old content stands', async () => {
      const { store } = kind;
      const id = randomUUID();
      await store.write(id, 'the old content');

      await assert.rejects(
        store.write(id, Readable.from([randomBytes(6 * MiB), randomBytes(6 * MiB)]), {
          maxBytes: 10 * MiB,
        }),
        BlobTooLarge,
      );

      const failing = new PassThrough();
      failing.write(randomBytes(7 * MiB)); // past the first part on S3: a multipart upload is under way
      const failed = store.write(id, failing);
      setImmediate(() => failing.destroy(new Error('the client went away')));
      await assert.rejects(failed, /the client went away/);

      // Aborted once the first part has been taken in: the source stalls, never ends.
      const stalled = new PassThrough();
      const controller = new AbortController();
      let sent = 0;
      const feed = () => {
        let more = true;
        while (more && sent < 11 * MiB) {
          more = stalled.write(randomBytes(MiB));
          sent += MiB;
        }
        if (sent >= 11 * MiB) controller.abort(new Error('upload aborted by the client'));
        else stalled.once('drain', feed);
      };
      feed();
      await assert.rejects(store.write(id, stalled, { signal: controller.signal }), /aborted/);
      assert.equal(stalled.destroyed, true);

      assert.equal((await bytesOf(store.read(id))).toString(), 'the old content');
      await store.remove(id);
      assert.deepEqual(await kind.leftovers(), []);
    });
  });
}

test('the genome service gets its own place beside the data store, in a folder or under the prefix', () => {
  const settings = loadConfig({ BLOB_STORE_URL: 's3://bucket/base' }).dataStore.blobStore!;
  assert.equal(openBlobStore('/data/store', settings).location, 's3://bucket/base/');
  assert.equal(
    openBlobStore('/data/store', settings, 'genomes').location,
    's3://bucket/base/genomes/',
  );
  assert.equal(openBlobStore('/data/store').location, '/data/store');
  assert.equal(openBlobStore('/data/store', undefined, 'genomes').location, '/data/store/genomes');
});

/** The report's row of a test (docs/reliability.md): the operations or requests tried during the fault. */
const outageCases = (t: { after(fn: () => void): void }, what: string, note?: string) =>
  tally(t, { area: 'faults', what, file: testFile(import.meta.url), ...(note ? { note } : {}) });

describe('an S3 store that cannot be reached', () => {
  test('every operation fails with ERR_BLOB_STORE_UNAVAILABLE, and the process carries on', async (t) => {
    const cases = outageCases(
      t,
      'an S3 object store refusing connections, met by the store itself: writes (small and multipart), reads and deletes each fail with ERR_BLOB_STORE_UNAVAILABLE, the process carries on',
    );
    const down = await startS3('gone-bucket');
    const url = down.url('x');
    await down.close(); // the port is closed now: connections are refused
    const store = s3Store(url);
    const id = randomUUID();
    const unavailable = (error: unknown) =>
      error instanceof GatewayError && error.errorCode === 'ERR_BLOB_STORE_UNAVAILABLE';
    /** One operation, counted: it must fail as unavailable. */
    const refused = async (operation: Promise<unknown>) => {
      cases.tried += 1;
      await assert.rejects(operation, unavailable);
      cases.held += 1;
    };
    await refused(store.write(id, 'bytes'));
    await refused(store.write(id, Readable.from([randomBytes(6 * MiB)])));
    await refused(store.openRead(id));
    await refused(bytesOf(store.read(id)));
    await refused(store.remove(id));
    store.destroy();
  });

  test('a store that accepts connections but never answers times out (timeoutMs) as ERR_BLOB_STORE_UNAVAILABLE', async (t) => {
    const cases = outageCases(
      t,
      'an S3 object store accepting connections and never answering, met by the store itself: a read times out (timeoutMs 200 ms) as ERR_BLOB_STORE_UNAVAILABLE instead of hanging',
    );
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const store = s3Store(
      `s3://k:s@bucket/x?endpoint=http://127.0.0.1:${port}&forcePathStyle=true&timeoutMs=200`,
    );
    try {
      cases.tried += 1;
      await assert.rejects(
        store.openRead(randomUUID()),
        (error) =>
          error instanceof GatewayError && error.errorCode === 'ERR_BLOB_STORE_UNAVAILABLE',
      );
      cases.held += 1;
    } finally {
      store.destroy();
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  test('a missing bucket is ERR_BLOB_STORE', async () => {
    const store = s3Store(s3.url('x').replace(`@${s3.bucket}/`, '@no-such-bucket/'));
    await assert.rejects(
      store.write(randomUUID(), 'bytes'),
      (error) => error instanceof GatewayError && error.errorCode === 'ERR_BLOB_STORE',
    );
    store.destroy();
  });

  test('through the gateway: uploads and downloads answer JSON errors with the code; /readyz says so', async (t) => {
    const cases = outageCases(
      t,
      'an S3 object store gone, through the gateway: /readyz 503 naming it, a download and an upload answer JSON errors with ERR_BLOB_STORE_UNAVAILABLE, the failed upload leaves no file, /livez still 200',
    );
    const own = await startS3('outage-bucket');
    const gw = (await startDataStoreGateway({ env: { BLOB_STORE_URL: own.url('g') } }))!;
    try {
      const home = gw.home('alice');
      await gw.upload('alice', home, 'kept.txt', 'stored while the store was up');
      const stored = await gw.call(
        'alice',
        'GET',
        `/secured/fileio/download?path=${encodeURIComponent(`${home}/kept.txt`)}`,
      );
      assert.equal(stored.text, 'stored while the store was up');
      const ready = await gw.call(null, 'GET', '/readyz');
      assert.equal(ready.status, 200);
      assert.equal(ready.body.checks['blob-store'], 'ok');
      await own.close();

      cases.tried += 1;
      const unready = await gw.call(null, 'GET', '/readyz');
      assert.equal(unready.status, 503);
      assert.match(unready.body.checks['blob-store'], /^unavailable: /);
      cases.held += 1;

      cases.tried += 1;
      const download = await gw.call(
        'alice',
        'GET',
        `/secured/fileio/download?path=${encodeURIComponent(`${home}/kept.txt`)}`,
      );
      assert.ok(download.status >= 500, `status ${download.status}`);
      assert.equal(download.body.error_code, 'ERR_BLOB_STORE_UNAVAILABLE');
      cases.held += 1;
      cases.tried += 1;
      const upload = await gw.uploadThroughGateway('alice', home, 'new.txt', 'never stored');
      assert.ok(upload.status >= 500, `status ${upload.status}`);
      assert.equal(upload.body.error_code, 'ERR_BLOB_STORE_UNAVAILABLE');
      assert.equal(await gw.stat('alice', `${home}/new.txt`), undefined);
      cases.held += 1;
      // The gateway is still up.
      cases.tried += 1;
      assert.equal((await gw.call(null, 'GET', '/livez')).status, 200);
      cases.held += 1;
    } finally {
      await gw.close();
      await own.close().catch(() => {});
    }
  });
});

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`an S3 store gone and back, through one gateway (${engine})`, () => {
    /** The store's own bound (timeoutMs in BLOB_STORE_URL): each S3 request is tried up to 3 times. */
    const timeoutMs = 300;
    let proxy: TcpProxy;
    let gw: DataStoreGateway | undefined;
    const prefix = `outage-${engine}-${randomUUID()}`;

    before(async () => {
      const endpoint = new URL(s3.endpoint);
      proxy = await startTcpProxy({ host: endpoint.hostname, port: Number(endpoint.port) });
      const url = new URL(s3.url(prefix));
      url.searchParams.set('endpoint', `http://${proxy.host}:${proxy.port}`);
      url.searchParams.set('timeoutMs', String(timeoutMs));
      gw = await startDataStoreGateway({
        engine,
        env: { BLOB_STORE_URL: url.toString(), READINESS_TIMEOUT_MS: String(timeoutMs) },
      });
    });
    after(async () => {
      await gw?.close();
      await proxy?.close();
    });

    test('refused, then hung: reads and uploads answer ERR_BLOB_STORE_UNAVAILABLE in bounded time, leave no row, and work again once it is back', async (t) => {
      if (!gw) return t.skip('DATABASE_URL is not set');
      const cases = outageCases(
        t,
        `an S3 object store refusing connections, then hanging (timeoutMs ${timeoutMs} ms), through one gateway: a download, a chunk read and an upload at once each answer ERR_BLOB_STORE_UNAVAILABLE in bounded time, /readyz 503 naming it, no file left by the upload; after each, the same gateway reads, uploads and is ready again`,
        engine,
      );
      const home = gw.home('uma');
      const download = (name: string) =>
        gw!.call(
          'uma',
          'GET',
          `/secured/fileio/download?path=${encodeURIComponent(`${home}/${name}`)}`,
        );
      /** An upload and its download (two of the test's cases once the store is back, when `counted`). */
      const served = async (name: string, content: string, counted = false) => {
        if (counted) cases.tried += 1;
        const upload = await gw!.uploadThroughGateway('uma', home, name, content);
        assert.equal(upload.status, 200, upload.text);
        if (counted) cases.held += 1;
        if (counted) cases.tried += 1;
        const read = await download(name);
        assert.equal(read.status, 200, read.text);
        assert.equal(read.text, content);
        if (counted) cases.held += 1;
      };
      const readChunk = () =>
        gw!.call('uma', 'POST', '/secured/filesystem/read-chunk', {
          json: { path: `${home}/kept.txt`, position: 0, 'chunk-size': 6 },
        });
      /**
       * ERR_BLOB_STORE_UNAVAILABLE within `boundMs`: 503, or 500 on the file I/O routes (spec
       * "Errors" 2: every file I/O error is 500, only its code may be relied on); how long it took.
       */
      const unavailable = async (
        answer: Promise<{ status: number; body: any; text: string }>,
        status: 500 | 503,
        boundMs: number,
        what: string,
      ) => {
        cases.tried += 1;
        const started = performance.now();
        const { status: got, body, text } = await answer;
        const ms = performance.now() - started;
        assert.equal(got, status, `${what}: ${text}`);
        assert.equal(body?.error_code, 'ERR_BLOB_STORE_UNAVAILABLE', `${what}: ${text}`);
        assert.ok(ms < boundMs, `${what} took ${Math.round(ms)} ms`);
        cases.held += 1;
        return Math.round(ms);
      };

      await served('kept.txt', 'stored while the store was up');
      const keysBefore = await s3.keys(`${prefix}/`);
      const report: string[] = [];
      for (const outage of ['refuse', 'blackhole'] as const) {
        if (outage === 'refuse') await proxy.refuse();
        else proxy.blackhole();
        // Refused: three quick attempts. Hung: three attempts of timeoutMs each, and the SDK's back-off.
        const bound = outage === 'refuse' ? 2_000 : 3 * timeoutMs + 2_500;
        // At once, as clients would: a hang holds each for its own bound, not for the others'.
        cases.tried += 1;
        const readiness: ReturnType<DataStoreGateway['call']> = gw.call(null, 'GET', '/readyz');
        const times = await Promise.all([
          unavailable(download('kept.txt'), 500, bound, `${outage}: download`),
          unavailable(readChunk(), 503, bound, `${outage}: read-chunk`),
          unavailable(
            gw.uploadThroughGateway('uma', home, `new-${outage}.txt`, 'never stored'),
            500,
            bound,
            `${outage}: upload`,
          ),
        ]);
        const ready = await readiness;
        assert.equal(await gw.stat('uma', `${home}/new-${outage}.txt`), undefined, 'no row');
        assert.equal(ready.status, 503);
        assert.match(ready.body.checks['blob-store'], /^unavailable: /);
        cases.held += 1;
        report.push(
          `${outage}d: download ${times[0]} ms, read-chunk ${times[1]} ms, upload ${times[2]} ms`,
        );

        await proxy.restore();
        cases.tried += 1;
        assert.equal((await download('kept.txt')).text, 'stored while the store was up');
        cases.held += 1;
        cases.tried += 1;
        assert.equal((await readChunk()).body?.chunk, 'stored');
        cases.held += 1;
        await served(`after-${outage}.txt`, `written after the store ${outage}d`, true);
        cases.tried += 1;
        assert.equal((await gw.call(null, 'GET', '/readyz')).status, 200);
        cases.held += 1;
      }
      // Nothing of the failed uploads reached the bucket: only the files written while it answered.
      assert.equal((await s3.keys(`${prefix}/`)).length, keysBefore.length + 2);
      t.diagnostic(`S3 store (timeoutMs ${timeoutMs}): ${report.join('; ')}`);
    });
  });
}

// `npm run fsck`'s check (src/backends/data-info/fsck.ts) on a local folder and on an S3 bucket
// (s3rver), each on SQLite and PostgreSQL: every kind of difference made by hand (bytes no row
// names, a file whose bytes are gone, a row whose size or MD5 is not its bytes', an unfinished
// write: the folder's, since s3rver cannot list multipart uploads) is reported, repaired as
// docs/operations.md says, and gone from the next check; files overwritten (their bytes in a blob
// of their own) are no difference. A file whose bytes are missing is kept unless told; orphans can
// be set aside instead of removed; on a bucket, which holds no leases, bytes younger than the
// orphan grace period are left alone; a repair is refused while another process holds the folder
// and when the catalog and the bytes have nothing in common. Then the command itself, on SQLite:
// its exit statuses, its JSON, and its refusal while another process holds the folder.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { checkDataStore, type Difference } from '../../../src/backends/data-info/fsck.ts';
import { blobOf } from '../../../src/backends/data-info/object-index.ts';
import { takeStoreLease } from '../../../src/backends/data-info/store-lease.ts';
import { DataStore } from '../../../src/backends/data-info/store.ts';
import { createFile, replaceContent } from '../../../src/backends/data-info/writes.ts';
import { loadConfig } from '../../../src/config/index.ts';
import { openStore } from '../../../src/store/database.ts';
import { hostEngines, type BackendHost } from '../../support/backend-host.ts';
import { nodeCacheEnv } from '../../support/child-env.ts';
import { startS3, type TestS3 } from '../../support/s3.ts';
import { copySqliteTemplate } from '../../support/sqlite-template.ts';
import { blobText } from '../../support/data-info-host.ts';

const home = '/platform/home/alice';
const kinds = ['local folder', 's3rver'] as const;

let s3: TestS3;
before(async () => {
  s3 = await startS3();
});
after(async () => {
  await s3?.close();
});

/** The differences' kinds and what they name (a path, or a blob), sorted. */
const named = (differences: Difference[]) =>
  differences
    .map((difference) => {
      switch (difference.kind) {
        case 'orphan':
          return `orphan ${difference.blob}`;
        case 'unfinished':
          return 'unfinished';
        default:
          return `${difference.kind} ${difference.path}`;
      }
    })
    .sort();

for (const engine of hostEngines)
  for (const kind of kinds)
    describe(`fsck: ${kind} on ${engine.name}`, () => {
      let host: BackendHost | undefined;
      let prefix: string;
      /** A DataStore over the suite's catalog and bytes; `graceMs` its orphan grace period. */
      let store: (graceMs?: number) => DataStore;
      let data: DataStore;

      before(async () => {
        host = await engine.open({ names: [] });
        if (!host) return;
        prefix = `fsck-${randomUUID()}`;
        const blobStore =
          kind === 's3rver'
            ? loadConfig({ BLOB_STORE_URL: s3.url(prefix) }).dataStore.blobStore
            : undefined;
        store = (graceMs = 3_600_000) =>
          new DataStore(host!.store.db, {
            ...host!.config.dataStore,
            orphanGraceMs: graceMs,
            ...(blobStore ? { blobStore } : {}),
          });
        data = store();
        await data.blobs.init(); // its folders, without the lease a gateway's start takes
      });
      after(async () => {
        await host?.close(); // the bucket goes with s3rver
      });

      const file = async (name: string, content: string) =>
        createFile(data, await data.caller('alice'), `${home}/${name}`, content);
      const row = (name: string) => data.catalog.byPath(`${home}/${name}`);

      test('each kind of difference is reported, repaired, and gone from the next check', async (t) => {
        if (!host) return t.skip('DATABASE_URL is not set');
        const kept = await file('kept.txt', 'kept whole');
        const overwritten = await file('overwritten.txt', 'first');
        await replaceContent(data, overwritten, (id) => data.blobs.write(id, 'second, longer'));
        assert.notEqual(blobOf((await row('overwritten.txt'))!), overwritten.id);
        const lost = await file('lost.txt', 'gone');
        await data.blobs.remove(blobOf(lost));
        await file('resized.txt', 'twelve bytes');
        await data.db
          .updateTable('data_objects')
          .set({ size: 99 })
          .where('path', '=', `${home}/resized.txt`)
          .execute();
        const flipped = await file('flipped.txt', 'abcd');
        await data.blobs.write(flipped.id, 'abce'); // the same size, other bytes: a flipped bit
        const orphan = randomUUID();
        await data.blobs.write(orphan, "bytes no row names: a crash's, or an upload's in progress");
        if (kind === 'local folder')
          writeFileSync(path.join(data.options.dir, 'tmp', `${orphan}.${randomUUID()}.tmp`), 'cut');

        const expected = [
          `mismatch ${home}/flipped.txt`,
          `missing ${home}/lost.txt`,
          `mismatch ${home}/resized.txt`,
          `orphan ${orphan}`,
          ...(kind === 'local folder' ? ['unfinished'] : []),
        ].sort();
        const report = await checkDataStore(data, { checksums: true, repair: false });
        assert.deepEqual(named(report.differences), expected);
        assert.equal(report.files, 5);
        assert.equal(report.blobs, 5, 'kept, overwritten (its new blob), resized, flipped, orphan');
        assert.ok(report.differences.every((difference) => !difference.repair));
        const resized = report.differences.find(
          (difference) => difference.kind === 'mismatch' && difference.path.endsWith('resized.txt'),
        );
        assert.deepEqual(resized && 'catalog' in resized && [resized.catalog.size, resized.bytes], [
          99,
          { size: 12 },
        ]);
        const quick = await checkDataStore(data, { checksums: false, repair: false });
        assert.deepEqual(
          named(quick.differences),
          expected.filter((line) => !line.endsWith('flipped.txt')),
          'by size alone, the flipped bytes go unseen',
        );

        // A bucket holds no leases: bytes younger than the grace period may be a write in progress.
        const repaired = await checkDataStore(data, { checksums: true, repair: true });
        const actions = Object.fromEntries(
          repaired.differences.map((difference) => [
            named([difference])[0],
            difference.repair!.action,
          ]),
        );
        assert.deepEqual(actions, {
          [`mismatch ${home}/flipped.txt`]: 'catalog updated',
          [`missing ${home}/lost.txt`]: 'kept',
          [`mismatch ${home}/resized.txt`]: 'catalog updated',
          [`orphan ${orphan}`]: kind === 'local folder' ? 'removed' : 'kept',
          ...(kind === 'local folder' ? { unfinished: 'removed' } : {}),
        });
        const flippedNow = (await row('flipped.txt'))!;
        assert.equal(flippedNow.md5, createHash('md5').update('abce').digest('hex'));
        assert.equal(Number((await row('resized.txt'))!.size), 12);
        assert.equal(await blobText(data, blobOf(flippedNow)), 'abce');

        const left = await checkDataStore(data, { checksums: true, repair: false });
        assert.deepEqual(named(left.differences), [
          `missing ${home}/lost.txt`,
          ...(kind === 's3rver' ? [`orphan ${orphan}`] : []),
        ]);
        assert.ok(
          left.differences.every((difference) => difference.kind !== 'mismatch'),
          'the rows describe their bytes now',
        );

        // Told to: the file whose bytes are gone is deleted; alone (a grace of 0), the orphan goes.
        const told = await checkDataStore(store(0), {
          checksums: true,
          repair: true,
          removeMissing: true,
        });
        assert.equal(told.left, 0);
        assert.equal(await row('lost.txt'), undefined);
        const clean = await checkDataStore(data, { checksums: true, repair: false });
        assert.deepEqual(clean.differences, []);
        assert.equal(await blobText(data, blobOf(kept)), 'kept whole');
        assert.equal(
          await blobText(data, blobOf((await row('overwritten.txt'))!)),
          'second, longer',
        );
      });

      test('orphans set aside: moved to lost+found, out of the next check', async (t) => {
        if (!host) return t.skip('DATABASE_URL is not set');
        await file(`beside-${randomUUID()}.txt`, 'a file, so that catalog and bytes meet');
        const orphan = randomUUID();
        await data.blobs.write(orphan, 'worth a look');
        const report = await checkDataStore(store(0), {
          checksums: false,
          repair: true,
          quarantine: true,
        });
        assert.deepEqual(
          report.differences.map((difference) => difference.repair?.action),
          ['quarantined'],
        );
        const place = report.differences[0]!.repair!.detail!;
        if (kind === 'local folder') {
          assert.equal(place, path.join(data.options.dir, 'lost+found', orphan));
          assert.ok(existsSync(place));
        } else {
          assert.equal(place, `s3://${s3.bucket}/${prefix}/lost+found/${orphan}`);
          assert.deepEqual(await s3.keys(`${prefix}/lost+found/`), [
            `${prefix}/lost+found/${orphan}`,
          ]);
        }
        assert.equal(await data.blobs.exists(orphan), false);
        assert.deepEqual(
          (await checkDataStore(data, { checksums: false, repair: false })).differences,
          [],
        );
      });

      test('a repair is refused while another process holds the folder, and when catalog and bytes share nothing', async (t) => {
        if (!host) return t.skip('DATABASE_URL is not set');
        const orphan = randomUUID();
        await data.blobs.write(orphan, 'left alone while refused');
        if (kind === 'local folder') {
          // Another store of this process counts as another process (store-lease.ts).
          const lease = await takeStoreLease(data.options.dir);
          try {
            const looked = await checkDataStore(data, { checksums: false, repair: false });
            assert.equal(looked.holders.length, 1, 'a check that only looks says who holds it');
            await assert.rejects(checkDataStore(data, { checksums: false, repair: true }), {
              name: 'FsckRefused',
              message: /--force/,
            });
            assert.equal(await data.blobs.exists(orphan), true, 'nothing changed');
            const forced = await checkDataStore(data, {
              checksums: false,
              repair: true,
              force: true,
            });
            assert.deepEqual(
              forced.differences.map((difference) => difference.repair?.action),
              ['kept'],
              'forced, bytes younger than the grace period are still left alone',
            );
          } finally {
            await lease.release();
          }
        }
        // A store of the same catalog with other bytes: every file missing, every blob an orphan.
        const elsewhere = new DataStore(data.db, {
          ...data.options,
          dir: mkdtempSync(path.join(tmpdir(), 'fsck-elsewhere-')),
          blobStore: data.options.blobStore && {
            ...data.options.blobStore,
            prefix: `elsewhere-${randomUUID()}/`,
          },
          orphanGraceMs: 0,
        });
        await elsewhere.blobs.init();
        await elsewhere.blobs.write(randomUUID(), 'another store’s');
        const report = await checkDataStore(elsewhere, { checksums: false, repair: false });
        assert.ok(report.files > 0);
        assert.equal(report.differences.length, report.files + 1);
        await assert.rejects(checkDataStore(elsewhere, { checksums: false, repair: true }), {
          name: 'FsckRefused',
          message: /nothing in common/,
        });
        assert.equal(
          (await checkDataStore(elsewhere, { checksums: false, repair: false })).blobs,
          1,
        );
        await data.blobs.remove(orphan);
        rmSync(elsewhere.options.dir, { recursive: true, force: true });
      });
    });

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

describe('npm run fsck (SQLite, a local folder)', () => {
  const projectDir = path.resolve(import.meta.dirname, '../../..');
  let dataDir: string;
  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'fsck-cli-'));
    await copySqliteTemplate(dataDir);
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  const fsck = (...args: string[]): Promise<CliResult> =>
    new Promise((resolve) =>
      execFile(
        process.execPath,
        ['src/cli/fsck.ts', ...args],
        {
          cwd: projectDir,
          env: { PATH: process.env.PATH ?? '', ...nodeCacheEnv(), GATEWAY_DATA_DIR: dataDir },
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      ),
    );

  test('exit 4 with differences, 8 refused while a process holds the folder, 1 repaired, 16 misused', async () => {
    const store = await openStore({ dataDir });
    const data = new DataStore(store.db, loadConfig({ GATEWAY_DATA_DIR: dataDir }).dataStore);
    await data.blobs.init();
    const orphan = randomUUID();
    try {
      await createFile(data, await data.caller('alice'), `${home}/a.txt`, 'five!');
      await data.db
        .updateTable('data_objects')
        .set({ size: 4 })
        .where('path', '=', `${home}/a.txt`)
        .execute();
      await data.blobs.write(orphan, 'orphan');
    } finally {
      await store.close();
    }

    const found = await fsck('--json');
    assert.equal(found.code, 4, found.stderr);
    const report = JSON.parse(found.stdout);
    assert.match(report.catalog, /^SQLite .*gateway\.sqlite$/);
    assert.equal(report.bytes, path.join(dataDir, 'data-store'));
    assert.deepEqual(named(report.differences), [`mismatch ${home}/a.txt`, `orphan ${orphan}`]);

    const lease = await takeStoreLease(path.join(dataDir, 'data-store'));
    const refused = await fsck('--repair');
    await lease.release();
    assert.equal(refused.code, 8);
    assert.match(refused.stderr, /^fsck: 1 other process\(es\) use .* --force\n$/);

    const repaired = await fsck('--repair');
    assert.equal(repaired.code, 1, repaired.stderr);
    assert.match(repaired.stdout, /→ catalog updated\n/);
    assert.match(repaired.stdout, /→ removed\n/);
    assert.match(repaired.stdout, /2 difference\(s\): 2 repaired, 0 left\n$/);

    // Exit 0, no differences: test/e2e/crash-safety.test.ts, on both databases.

    const misuse = await fsck('--force');
    assert.equal(misuse.code, 16);
    assert.match(misuse.stderr, /^--force goes with --repair\nusage: npm run fsck/);
  });
});

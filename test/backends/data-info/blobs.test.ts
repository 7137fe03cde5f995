// The data store's byte storage in a local folder (blobs.ts): real files in real temporary folders, no mocks.
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { after, before, describe, test } from 'node:test';
import { BlobTooLarge, parseRange } from '../../../src/backends/data-info/blob-store.ts';
import { LocalBlobStore } from '../../../src/backends/data-info/blobs.ts';

const md5 = (data: Buffer | string) => createHash('md5').update(data).digest('hex');
const emptyMd5 = 'd41d8cd98f00b204e9800998ecf8427e';

let root: string;
let store: LocalBlobStore;

before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'blobs-test-'));
  store = new LocalBlobStore(root);
  await store.init();
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

const tempFiles = () => readdir(path.join(root, 'tmp'));
const contentOf = async (id: string) => Buffer.concat(await store.read(id).toArray());

/** A byte stream in `chunkSize` pieces, so concurrent writes really interleave. */
function chunked(data: Buffer, chunkSize = 64 * 1024): Readable {
  const pieces: Buffer[] = [];
  for (let i = 0; i < data.length; i += chunkSize) pieces.push(data.subarray(i, i + chunkSize));
  return Readable.from(pieces);
}

/** A source that delivers some bytes, then stalls (never ends) until the test destroys it. */
function stalling(first: Buffer) {
  const source = new Readable({ read() {} });
  source.push(first);
  return source;
}

/** Stores `previous` under a fresh id and returns the id, for "previous content intact" checks. */
async function withPrevious(previous: string): Promise<string> {
  const id = randomUUID();
  await store.write(id, previous);
  return id;
}

describe('BlobStore', () => {
  test('init creates private folders', async () => {
    for (const dir of ['objects', 'tmp']) {
      assert.equal((await stat(path.join(root, dir))).mode & 0o777, 0o700, dir);
    }
  });

  test('write then read round-trips the bytes and reports size and md5', async () => {
    const id = randomUUID();
    const data = randomBytes(300_000);
    assert.deepEqual(await store.write(id, chunked(data)), { size: data.length, md5: md5(data) });
    assert.deepEqual(await contentOf(id), data);
    assert.equal(await store.size(id), data.length);
    assert.equal(await store.exists(id), true);
    // Laid out by id, never by user path.
    const onDisk = await readFile(path.join(root, 'objects', id.slice(0, 2), id));
    assert.deepEqual(onDisk, data);
    assert.deepEqual(await tempFiles(), []);
  });

  test('a large write in uneven pieces, empty ones too, is stored whole with its md5', async () => {
    // Past one MiB the md5 is hashed on its thread; pieces arriving during a write are gathered.
    const id = randomUUID();
    const data = randomBytes(7 * 1024 * 1024 + 3);
    const pieces: Buffer[] = [];
    for (let at = 0, step = 0; at < data.length; step += 1) {
      const size = step % 5 === 0 ? 0 : (step * 65_537) % (512 * 1024);
      pieces.push(data.subarray(at, at + size));
      at += size;
    }
    assert.deepEqual(await store.write(id, Readable.from(pieces)), {
      size: data.length,
      md5: md5(data),
    });
    assert.deepEqual(await contentOf(id), data);
    assert.deepEqual(await tempFiles(), []);
  });

  test('Buffer and string sources; string is stored as UTF-8', async () => {
    const id = randomUUID();
    assert.deepEqual(await store.write(id, 'héllo'), { size: 6, md5: md5('héllo') });
    assert.equal(await text(store.read(id)), 'héllo');
    await store.write(id, Buffer.from([0, 255]));
    assert.deepEqual(await contentOf(id), Buffer.from([0, 255]));
  });

  test('empty file', async () => {
    const id = randomUUID();
    assert.deepEqual(await store.write(id, ''), { size: 0, md5: emptyMd5 });
    assert.equal(await store.exists(id), true);
    assert.equal(await store.size(id), 0);
    assert.deepEqual(await contentOf(id), Buffer.alloc(0));
    assert.deepEqual(await store.write(randomUUID(), Readable.from([])), {
      size: 0,
      md5: emptyMd5,
    });
  });

  test('20 concurrent overwrites of one id leave exactly one of them, whole', async () => {
    const id = randomUUID();
    const contents = Array.from({ length: 20 }, () => randomBytes(2 * 1024 * 1024));
    // Different chunk sizes per writer, so writers run out of step (in lock-step, a non-atomic
    // store could still end up with one whole winner by luck).
    const results = await Promise.all(
      contents.map((data, i) => store.write(id, chunked(data, 16_384 + i * 5_000))),
    );
    const final = await contentOf(id);
    const winner = contents.findIndex((data) => data.equals(final));
    assert.notEqual(winner, -1, 'final content is not one of the writes (torn file)');
    assert.equal(md5(final), results[winner]?.md5);
    assert.deepEqual(await tempFiles(), []);
  });

  test('maxBytes: exactly the limit is fine, one byte more is BlobTooLarge and keeps the old content', async () => {
    const id = await withPrevious('previous');
    assert.equal((await store.write(randomUUID(), 'x'.repeat(10), { maxBytes: 10 })).size, 10);

    await assert.rejects(
      store.write(id, chunked(randomBytes(100_000), 1000), { maxBytes: 50_000 }),
      (error) => {
        assert.ok(error instanceof BlobTooLarge);
        assert.equal(error.limit, 50_000);
        return true;
      },
    );
    await assert.rejects(store.write(id, 'x'.repeat(11), { maxBytes: 10 }), BlobTooLarge);
    assert.equal(await text(store.read(id)), 'previous');
    assert.deepEqual(await tempFiles(), []);
    // Too large for a new id: nothing is created.
    const fresh = randomUUID();
    await assert.rejects(store.write(fresh, 'xx', { maxBytes: 1 }), BlobTooLarge);
    assert.equal(await store.exists(fresh), false);
  });

  test('a source that errors midway: rejects, no temp file, old content intact', async () => {
    const id = await withPrevious('previous');
    const source = stalling(randomBytes(100_000));
    setTimeout(() => source.destroy(new Error('connection lost')), 20);
    await assert.rejects(store.write(id, source), /connection lost/);
    assert.equal(await text(store.read(id)), 'previous');
    assert.deepEqual(await tempFiles(), []);
  });

  test('a source that has already failed when write starts: rejects, nothing kept', async () => {
    const id = await withPrevious('previous');
    const source = new Readable({ read() {} });
    source.destroy(new Error('failed early'));
    await assert.rejects(store.write(id, source), /failed early/);
    assert.equal(await text(store.read(id)), 'previous');
    assert.deepEqual(await tempFiles(), []);
  });

  test('a source closed midway without an error (client went away) is not taken as complete', async () => {
    const id = await withPrevious('previous');
    const source = stalling(randomBytes(100_000));
    setTimeout(() => source.destroy(), 20);
    await assert.rejects(store.write(id, source), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
    assert.equal(await text(store.read(id)), 'previous');
    assert.deepEqual(await tempFiles(), []);
  });

  test('AbortSignal abort midway: rejects with AbortError, no temp file, old content intact, source destroyed', async () => {
    const id = await withPrevious('previous');
    const source = stalling(randomBytes(100_000));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(store.write(id, source, { signal: controller.signal }), {
      name: 'AbortError',
    });
    assert.equal(source.destroyed, true);
    assert.equal(await text(store.read(id)), 'previous');
    assert.deepEqual(await tempFiles(), []);

    // Already aborted: nothing is written at all.
    await assert.rejects(store.write(id, 'new', { signal: AbortSignal.abort() }), {
      name: 'AbortError',
    });
    assert.equal(await text(store.read(id)), 'previous');
    assert.deepEqual(await tempFiles(), []);
  });

  test('init removes temp files left by a crash and keeps objects', async () => {
    const id = await withPrevious('kept');
    await writeFile(path.join(root, 'tmp', `${randomUUID()}.stale.tmp`), 'half a file');
    await new LocalBlobStore(root).init();
    assert.deepEqual(await tempFiles(), []);
    assert.equal(await text(store.read(id)), 'kept');
  });

  test('init without a grace removes every temp file, even one stamped after the present millisecond', async () => {
    // File times are finer than Date.now(): a file written in the same millisecond as the check
    // has a later time than it. Stamped a second ahead here, so the case does not hang on timing.
    const file = path.join(root, 'tmp', `${randomUUID()}.stale.tmp`);
    await writeFile(file, 'half a file');
    const ahead = new Date(Date.now() + 1000);
    await utimes(file, ahead, ahead);
    assert.equal(await new LocalBlobStore(root).init(), 1);
    assert.deepEqual(await tempFiles(), []);
  });

  test('ids that are not UUIDs are refused before touching the disk', async () => {
    for (const bad of ['../x', 'a/b', '', '..', `${randomUUID()}/../../x`, `../${randomUUID()}`]) {
      await assert.rejects(store.write(bad, 'x'), /invalid blob id/, bad);
      assert.throws(() => store.read(bad), /invalid blob id/, bad);
      await assert.rejects(store.exists(bad), /invalid blob id/, bad);
      await assert.rejects(store.remove(bad), /invalid blob id/, bad);
      await assert.rejects(store.copy(bad, randomUUID()), /invalid blob id/, bad);
      await assert.rejects(store.copy(randomUUID(), bad), /invalid blob id/, bad);
    }
    assert.deepEqual(await tempFiles(), []);
  });

  test('upper-case ids name the same object', async () => {
    const id = randomUUID();
    await store.write(id.toUpperCase(), 'same');
    assert.equal(await text(store.read(id)), 'same');
  });

  test('range reads are inclusive', async () => {
    const id = randomUUID();
    await store.write(id, '0123456789');
    assert.equal(await text(store.read(id, { start: 2, end: 5 })), '2345');
    assert.equal(await text(store.read(id, { start: 9, end: 9 })), '9');
    const range = parseRange('bytes=-3', await store.size(id));
    assert.ok(range && range !== 'unsatisfiable');
    assert.equal(await text(store.read(id, range)), '789');
  });

  test('remove and exists; removing a missing object is fine; missing objects error on read/size', async () => {
    const id = await withPrevious('bye');
    await store.remove(id);
    assert.equal(await store.exists(id), false);
    await store.remove(id);
    await assert.rejects(store.size(id), { code: 'ENOENT' });
    await assert.rejects(contentOf(id), { code: 'ENOENT' });
  });

  test('copy makes an independent copy and replaces the target; a missing source leaves nothing behind', async () => {
    const from = await withPrevious('original');
    const to = await withPrevious('to be replaced');
    await store.copy(from, to);
    assert.equal(await text(store.read(to)), 'original');
    await store.write(from, 'changed');
    assert.equal(await text(store.read(to)), 'original');

    const fresh = randomUUID();
    await assert.rejects(store.copy(randomUUID(), fresh), { code: 'ENOENT' });
    assert.equal(await store.exists(fresh), false);
    assert.deepEqual(await tempFiles(), []);
  });
});

describe('parseRange', () => {
  const cases: [string | undefined, number, ReturnType<typeof parseRange>][] = [
    // absent or ignorable: serve the whole content
    [undefined, 10, undefined],
    ['', 10, undefined],
    ['items=0-1', 10, undefined], // unknown unit
    ['bytes=0-1,3-4', 10, undefined], // several ranges: we do not do multipart
    ['bytes=-', 10, undefined],
    ['bytes=a-b', 10, undefined],
    ['bytes=1-2-3', 10, undefined],
    ['bytes=5-2', 10, undefined], // last < first is invalid, not unsatisfiable
    ['bytes 0-1', 10, undefined],
    ['bytes=+1-2', 10, undefined],
    // satisfiable
    ['bytes=0-0', 10, { start: 0, end: 0 }],
    ['bytes=2-5', 10, { start: 2, end: 5 }],
    ['bytes=2-', 10, { start: 2, end: 9 }], // open-ended
    ['bytes=5-100', 10, { start: 5, end: 9 }], // end clamped to the last byte
    ['bytes=9-9', 10, { start: 9, end: 9 }],
    ['bytes=-3', 10, { start: 7, end: 9 }], // suffix: last 3 bytes
    ['bytes=-100', 10, { start: 0, end: 9 }], // suffix longer than the file: all of it
    ['Bytes=1-2', 10, { start: 1, end: 2 }], // the unit is case-insensitive
    ['bytes=0-99999999999999999999999', 10, { start: 0, end: 9 }],
    // unsatisfiable (416)
    ['bytes=10-', 10, 'unsatisfiable'],
    ['bytes=10-20', 10, 'unsatisfiable'],
    ['bytes=-0', 10, 'unsatisfiable'],
    ['bytes=0-', 0, 'unsatisfiable'], // empty file: any range
    ['bytes=-5', 0, 'unsatisfiable'],
    ['bytes=0-0', 0, 'unsatisfiable'],
  ];
  for (const [header, size, expected] of cases) {
    test(`${JSON.stringify(header)} of ${size} bytes → ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(parseRange(header, size), expected);
    });
  }
});

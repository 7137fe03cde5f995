// The MD5 of blob writes (md5.ts): a small input hashed in place, a large one on the hashing thread,
// several at once kept apart, and a discarded one leaving the thread free and the process able to exit.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { BlobMd5 } from '../../../src/backends/data-info/md5.ts';

const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');
const MiB = 1024 * 1024;

/** Feeds `data` in pieces of uneven sizes (empty ones too), as sockets and parsers hand them over. */
async function hashed(data: Buffer, hash = new BlobMd5()): Promise<string> {
  let offset = 0;
  let step = 1;
  while (offset < data.length) {
    const size = Math.min(data.length - offset, (step * 7919) % (300 * 1024));
    await hash.update(data.subarray(offset, offset + size));
    offset += size;
    step += 1;
  }
  return hash.digest();
}

test('nothing, a few bytes and exactly one block are hashed as node:crypto does', async () => {
  for (const data of [Buffer.alloc(0), Buffer.from('abc'), randomBytes(MiB)])
    assert.equal(await hashed(data), md5(data));
});

test('inputs past one block (the hashing thread) give the same digest, several at once kept apart', async () => {
  const inputs = [randomBytes(MiB + 1), randomBytes(9 * MiB + 12345), randomBytes(3 * MiB)];
  const digests = await Promise.all(inputs.map((data) => hashed(data)));
  assert.deepEqual(
    digests,
    inputs.map((data) => md5(data)),
  );
});

test('a hash discarded midway leaves the thread answering the next', async () => {
  const dropped = new BlobMd5();
  await dropped.update(randomBytes(6 * MiB));
  dropped.discard();
  const data = randomBytes(5 * MiB);
  assert.equal(await hashed(data), md5(data));
});

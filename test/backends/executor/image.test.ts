// Root filesystem images (src/backends/executor/image.ts and the local engine's rootImage): a
// filesystem tar is unpacked once per tar (by path, size and modification time), absolute symbolic
// links kept as they are, devices skipped, set-user-ID bits dropped, and an entry leading outside
// the image refuses the image; a step given the image sees it as `/` instead of the host's system.
import assert from 'node:assert/strict';
import {
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { create, Header, type HeaderData } from 'tar';
import { createLocalEngine, unpackImage } from '../../../src/backends/executor/index.ts';

const limits = {
  wallClockSeconds: 20,
  cpuSeconds: 10,
  memoryBytes: 256 << 20,
  outputBytes: 16 << 20,
};

/** A tar written block by block, for entries node-tar would not write itself (`..`, devices). */
function rawTar(entries: (HeaderData & { body?: string })[]): Buffer {
  const blocks: Buffer[] = [];
  for (const { body = '', ...entry } of entries) {
    const header = new Header({
      mode: 0o644,
      uid: 0,
      gid: 0,
      mtime: new Date(),
      ...entry,
      size: body.length,
    });
    header.encode();
    blocks.push(header.block!);
    if (body.length > 0)
      blocks.push(Buffer.from(body), Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

describe('root filesystem images', () => {
  let root: string;
  let cacheDir: string;
  let busyboxTar: string;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'executor-image-test-'));
    cacheDir = join(root, 'cache');
    // A tiny root filesystem: Debian's static busybox, links to it, /sbin a link to /bin, an /etc.
    const fs = join(root, 'rootfs');
    await mkdir(join(fs, 'bin'), { recursive: true });
    await mkdir(join(fs, 'etc'));
    await copyFile('/bin/busybox', join(fs, 'bin/busybox'));
    await symlink('/bin/busybox', join(fs, 'bin/sh'));
    for (const applet of ['ls', 'head', 'readlink'])
      await symlink('busybox', join(fs, 'bin', applet));
    await symlink('bin', join(fs, 'sbin'));
    await writeFile(join(fs, 'etc/motd'), 'an image\n');
    busyboxTar = join(root, 'busybox.tar');
    await create({ file: busyboxTar, cwd: fs }, ['bin', 'etc', 'sbin']);
  });

  after(() => rm(root, { recursive: true, force: true }));

  test('a step with a root image sees the image as /, not the host system', async () => {
    const image = await unpackImage(busyboxTar, cacheDir);
    const engine = createLocalEngine({ log: pino({ level: 'silent' }) });
    const workDir = join(root, 'step/work');
    await mkdir(workDir, { recursive: true });
    const script = [
      'ls / > /work/root.txt',
      'busybox | head -1 > /work/version.txt',
      'readlink /bin/sh > /work/sh-link.txt',
      'cat /etc/motd > /work/motd.txt',
    ].join('; ');
    const outcome = await engine.run(
      {
        argv: ['/bin/sh', '-c', script],
        workDir,
        logDir: join(root, 'step/log'),
        rootImage: image,
        limits,
      },
      new AbortController().signal,
    );
    await engine.close();
    assert.equal(outcome.state, 'completed', outcome.reason);
    const listing = (await readFile(join(workDir, 'root.txt'), 'utf8')).trim().split('\n');
    assert.deepEqual(listing, ['bin', 'dev', 'etc', 'proc', 'sbin', 'tmp', 'work']);
    assert.match(await readFile(join(workDir, 'version.txt'), 'utf8'), /^BusyBox v/);
    assert.equal(await readFile(join(workDir, 'sh-link.txt'), 'utf8'), '/bin/busybox\n');
    assert.equal(await readFile(join(workDir, 'motd.txt'), 'utf8'), 'an image\n');
  });

  test('a tar is unpacked once; a changed tar is unpacked anew', async () => {
    const first = await unpackImage(busyboxTar, cacheDir);
    await writeFile(join(first, 'marker'), 'still here');
    assert.equal(await unpackImage(busyboxTar, cacheDir), first);
    assert.equal(await readFile(join(first, 'marker'), 'utf8'), 'still here');

    const changed = join(root, 'changed.tar');
    await writeFile(changed, rawTar([{ path: 'etc/motd', type: 'File', body: 'one\n' }]));
    const before = await unpackImage(changed, cacheDir);
    await writeFile(changed, rawTar([{ path: 'etc/motd', type: 'File', body: 'two, longer\n' }]));
    const afterChange = await unpackImage(changed, cacheDir);
    assert.notEqual(afterChange, before);
    assert.equal(await readFile(join(afterChange, 'etc/motd'), 'utf8'), 'two, longer\n');
    assert.deepEqual(
      (await readdir(cacheDir)).filter((name) => name.startsWith('.')),
      [],
      'no half-unpacked directory is left',
    );
  });

  test('devices and pipes are skipped, set-user-ID bits dropped', async () => {
    const tar = join(root, 'devices.tar');
    await writeFile(
      tar,
      rawTar([
        { path: 'dev/', type: 'Directory', mode: 0o755 },
        { path: 'dev/null', type: 'CharacterDevice', devmaj: 1, devmin: 3 },
        { path: 'dev/sda', type: 'BlockDevice', devmaj: 8, devmin: 0 },
        { path: 'fifo', type: 'FIFO' },
        { path: 'bin/tool', type: 'File', mode: 0o6755, body: '#!/bin/sh\n' },
      ]),
    );
    const image = await unpackImage(tar, cacheDir);
    assert.deepEqual((await readdir(image)).sort(), ['bin', 'dev']);
    assert.deepEqual(await readdir(join(image, 'dev')), []);
    assert.equal((await stat(join(image, 'bin/tool'))).mode & 0o7777, 0o755);
  });

  for (const [what, entry] of [
    ['a path with ..', { path: '../escaped.txt', type: 'File', body: 'out' }],
    ['an absolute path', { path: `${tmpdir()}/executor-escaped.txt`, type: 'File', body: 'out' }],
    ['a hard link to ..', { path: 'link', type: 'Link', linkpath: '../../escaped.txt' }],
  ] as const) {
    test(`an entry with ${what} refuses the image`, async () => {
      const tar = join(root, 'escaping.tar');
      await writeFile(tar, rawTar([{ path: 'etc/motd', type: 'File', body: 'in' }, entry]));
      const cache = join(root, 'escaping-cache');
      await assert.rejects(unpackImage(tar, cache), /cannot be unpacked: .*outside the image/);
      assert.deepEqual(await readdir(cache), [], 'nothing is left in the cache');
      await assert.rejects(stat(join(root, 'escaped.txt')));
      await assert.rejects(stat(join(tmpdir(), 'executor-escaped.txt')));
    });
  }
});

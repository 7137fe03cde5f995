// Whether a process is alone on a local bytes folder (store-lease.ts), which lets it clear what a
// crash left at once instead of after the orphan grace period: a lease held by another live
// process of this host (a real child process) is alive, and dead the moment that process is
// SIGKILLed (its file then cleared); one naming this very pid but not held here is an earlier
// incarnation (a restarted container's pid 1), dead; one of another host is alive while touched
// within the stale period and dead after; one held by another store of this process is alive.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { takeStoreLease } from '../../../src/backends/data-info/store-lease.ts';

let dir: string;
const leases = () => readdir(path.join(dir, 'processes'));

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'store-lease-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('another live process holds the folder until it is killed', async () => {
  const module = path.resolve(
    import.meta.dirname,
    '../../../src/backends/data-info/store-lease.ts',
  );
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { takeStoreLease } = await import(${JSON.stringify(module)});
       await takeStoreLease(${JSON.stringify(dir)});
       console.log('held');
       setInterval(() => {}, 60_000);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    assert.equal(line.toString().trim(), 'held');
    const mine = await takeStoreLease(dir);
    assert.equal(await mine.othersAlive(), true, 'the child process holds a lease');
    child.kill('SIGKILL');
    await once(child, 'exit');
    assert.equal(await mine.othersAlive(), false, 'a killed process holds nothing');
    assert.equal((await leases()).length, 1, "the dead process's lease is cleared");
    await mine.release();
    assert.deepEqual(await leases(), []);
  } finally {
    child.kill('SIGKILL');
  }
});

test('this pid from before a restart, another host, and another store of this process', async () => {
  const processes = path.join(dir, 'processes');
  const mine = await takeStoreLease(dir);
  try {
    // An earlier incarnation of this very pid (a container restarted): dead.
    await writeFile(
      path.join(processes, 'earlier.json'),
      JSON.stringify({ host: hostname(), pid: process.pid }),
    );
    assert.equal(await mine.othersAlive(), false);

    // Another host's, touched just now: alive; not touched for longer than the stale period: dead.
    const remote = path.join(processes, 'remote.json');
    await writeFile(remote, JSON.stringify({ host: 'another-host.invalid', pid: 4242 }));
    assert.equal(await mine.othersAlive(), true);
    const old = new Date(Date.now() - 5 * 60_000);
    await utimes(remote, old, old);
    assert.equal(await mine.othersAlive(), false);

    // A second store over the folder in this same process: alive while held.
    const second = await takeStoreLease(dir);
    assert.equal(await mine.othersAlive(), true);
    await second.release();
    assert.equal(await mine.othersAlive(), false);
  } finally {
    await mine.release();
  }
});

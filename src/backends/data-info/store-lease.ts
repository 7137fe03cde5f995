/**
 * Which processes use a local bytes folder (DATA_STORE_DIR) right now, so that one alone on it may
 * clear at once what a crash left there instead of waiting out the orphan grace period
 * (DATA_STORE_ORPHAN_GRACE_SECONDS), which exists only for other processes' writes in progress.
 *
 * Each process keeps a lease, `<dir>/processes/<uuid>.json` naming its host and pid, touched every
 * `touchMs` and removed on close. Another lease is alive when it is held in this process, when it
 * names a live pid of this host other than this one (a pid equal to ours is an earlier incarnation:
 * a container's pid 1, restarted), or, from another host, when it was touched within `staleMs`.
 * A lease of a killed process is therefore dead at once on its own host, and after `staleMs` seen
 * from another.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { mkdir, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface StoreLease {
  /** Whether any other process holds a live lease on the folder now. */
  othersAlive(): Promise<boolean>;
  /** Stops touching the lease and removes it. */
  release(): Promise<void>;
}

/** Lease files held by this process (several stores may share a folder in one process: tests). */
const heldHere = new Set<string>();

const isMissing = (error: unknown) => (error as { code?: string }).code === 'ENOENT';

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, another user's.
    return (error as { code?: string }).code === 'EPERM';
  }
}

export async function takeStoreLease(
  dir: string,
  options: { touchMs?: number; staleMs?: number } = {},
): Promise<StoreLease> {
  const touchMs = options.touchMs ?? 10_000;
  const staleMs = options.staleMs ?? 60_000;
  const folder = path.join(dir, 'processes');
  const host = hostname();
  const file = path.join(folder, `${randomUUID()}.json`);
  const content = JSON.stringify({ host, pid: process.pid, started: new Date().toISOString() });
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await writeFile(file, content, { mode: 0o600 });
  heldHere.add(file);
  const touch = async () => {
    const now = new Date();
    try {
      await utimes(file, now, now);
    } catch (error) {
      // Removed by someone who took it for dead: made again.
      if (isMissing(error)) await writeFile(file, content, { mode: 0o600 });
      else throw error;
    }
  };
  const timer = setInterval(() => void touch().catch(() => {}), touchMs);
  timer.unref();

  const alive = async (other: string): Promise<boolean> => {
    if (heldHere.has(other)) return true;
    let modified: number;
    let owner: { host?: unknown; pid?: unknown } = {};
    try {
      modified = (await stat(other)).mtimeMs;
      owner = JSON.parse(await readFile(other, 'utf8'));
    } catch (error) {
      if (isMissing(error)) return false;
      // Unreadable or half written: judged by its time alone.
      modified ??= Date.now();
    }
    if (owner.host === host && typeof owner.pid === 'number')
      return owner.pid !== process.pid && pidAlive(owner.pid);
    return Date.now() - modified < staleMs;
  };

  return {
    async othersAlive() {
      let found = false;
      for (const name of await readdir(folder)) {
        const other = path.join(folder, name);
        if (other === file) continue;
        if (await alive(other)) found = true;
        // A dead process's lease is cleared, so that the next start need not judge it again.
        else await rm(other, { force: true });
      }
      return found;
    },
    async release() {
      clearInterval(timer);
      heldHere.delete(file);
      await rm(file, { force: true });
    },
  };
}

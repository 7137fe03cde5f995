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

/** Who holds a lease: what its file says. */
export interface LeaseHolder {
  host?: string;
  pid?: number;
  started?: string;
}

/** Whether the lease `file` is alive (see the module's comment), and what it says of its holder. */
async function judge(
  file: string,
  staleMs: number,
): Promise<{ alive: boolean; holder: LeaseHolder }> {
  if (heldHere.has(file)) return { alive: true, holder: { host: hostname(), pid: process.pid } };
  let modified: number;
  let holder: { host?: unknown; pid?: unknown; started?: unknown } = {};
  try {
    modified = (await stat(file)).mtimeMs;
    holder = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    if (isMissing(error)) return { alive: false, holder: {} };
    // Unreadable or half written: judged by its time alone.
    modified ??= Date.now();
  }
  const said: LeaseHolder = {
    ...(typeof holder.host === 'string' ? { host: holder.host } : {}),
    ...(typeof holder.pid === 'number' ? { pid: holder.pid } : {}),
    ...(typeof holder.started === 'string' ? { started: holder.started } : {}),
  };
  if (said.host === hostname() && said.pid !== undefined)
    return { alive: said.pid !== process.pid && pidAlive(said.pid), holder: said };
  return { alive: Date.now() - modified < staleMs, holder: said };
}

/**
 * The holders of the live leases on `dir` (another process's or another store's of this one),
 * read without changing anything: for a process that only looks (`npm run fsck` without repair).
 */
export async function liveLeaseHolders(dir: string, staleMs = 60_000): Promise<LeaseHolder[]> {
  const folder = path.join(dir, 'processes');
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
  const holders: LeaseHolder[] = [];
  for (const name of names) {
    const { alive, holder } = await judge(path.join(folder, name), staleMs);
    if (alive) holders.push(holder);
  }
  return holders;
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

  return {
    async othersAlive() {
      let found = false;
      for (const name of await readdir(folder)) {
        const other = path.join(folder, name);
        if (other === file) continue;
        if ((await judge(other, staleMs)).alive) found = true;
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

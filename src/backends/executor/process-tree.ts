// The processes of a step, read from /proc: every process whose parent chain leads to the one the
// engine spawned, with the CPU time and resident memory they use. Linux only (bubblewrap is too).
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times: USER_HZ, 100 on every Linux the engine runs on. */
const ticksPerSecond = 100;

export interface ProcessEntry {
  pid: number;
  ppid: number;
  /** utime + stime + cutime + cstime: its own CPU time and that of the children it has reaped. */
  cpuSeconds: number;
}

/** Reads /proc/<pid>/stat; undefined when the process has gone meanwhile. */
function readEntry(pid: number): ProcessEntry | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0);
  return { pid, ppid: Number(fields[1]), cpuSeconds: ticks / ticksPerSecond };
}

/**
 * Every process of the machine (as far as this process sees them), by pid. Read synchronously on
 * purpose: /proc is generated in memory and never waits on a disk, and a few hundred small
 * synchronous reads cost a tenth of what as many trips through libuv's thread pool do.
 */
export function readProcessTable(): Map<number, ProcessEntry> {
  const table = new Map<number, ProcessEntry>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readEntry(Number(name));
    if (entry) table.set(entry.pid, entry);
  }
  return table;
}

/**
 * One reading of the process table shared by every step's monitor within `maxAgeMs`, so that
 * several steps running together scan /proc once per poll rather than once each.
 */
export function sharedProcessTable(maxAgeMs: number): () => Map<number, ProcessEntry> {
  let reading: { at: number; table: Map<number, ProcessEntry> } | undefined;
  return () => {
    const now = Date.now();
    if (!reading || now - reading.at > maxAgeMs) {
      reading = { at: now, table: readProcessTable() };
    }
    return reading.table;
  };
}

/** The pids of `root` and all its descendants in `table`. */
export function processTree(table: Map<number, ProcessEntry>, root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of table.values()) {
    const siblings = children.get(entry.ppid);
    if (siblings) siblings.push(entry.pid);
    else children.set(entry.ppid, [entry.pid]);
  }
  if (!table.has(root)) return [];
  const tree = [root];
  for (let i = 0; i < tree.length; i += 1) tree.push(...(children.get(tree[i]!) ?? []));
  return tree;
}

/**
 * Resident memory of the processes together (VmRSS of each, so pages that several of them share
 * are counted once per process); a process gone meanwhile counts nothing. Synchronous, as above.
 */
export function residentBytes(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      const kib = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1];
      total += kib ? Number(kib) * 1024 : 0;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/**
 * SIGKILL to the process group the engine spawned (prlimit, then bubblewrap in its place). The
 * sandbox's processes are in a session of their own, but bubblewrap's `--die-with-parent` kills
 * the sandbox's first process with it, and that takes the whole PID namespace along.
 */
export function killGroup(processGroup: number): void {
  try {
    process.kill(-processGroup, 'SIGKILL');
  } catch {
    // already gone
  }
}

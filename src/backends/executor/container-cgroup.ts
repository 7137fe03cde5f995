// A container step's CPU time from the kernel's own accounting. The runtime removes a container's
// cgroup the moment its last process exits, before anyone could read it, so each step's container
// is made under a parent cgroup of its own (`--cgroup-parent`), named after the container: the
// kernel charges a child's CPU time to its parents too, and the parent stays until removed here.
// Its usage can be read while the step runs (the CPU-time limit of the whole container), after it
// has ended, and by another gateway after a restart (the name is all it needs). Only where the
// runtime uses the `cgroupfs` driver and shares this host's /sys/fs/cgroup (docs/executor.md).
import { readdir, readFile, rmdir } from 'node:fs/promises';
import path from 'node:path';

const cgroupRoot = '/sys/fs/cgroup';
const parentFolder = 'platform-steps';

/** The `--cgroup-parent` of a container: a path under the hierarchies' roots. */
export const cgroupParentOf = (containerName: string) => `/${parentFolder}/${containerName}`;

/** CPU seconds charged to the step's parent cgroup (cgroup v2's cpu.stat, or v1's cpuacct); undefined when unreadable. */
export async function cgroupCpuSeconds(containerName: string): Promise<number | undefined> {
  const parent = cgroupParentOf(containerName);
  const v2 = await readFile(path.join(cgroupRoot, parent, 'cpu.stat'), 'utf8').catch(() => '');
  const usec = /^usage_usec (\d+)$/m.exec(v2);
  if (usec) return Number(usec[1]) / 1e6;
  for (const hierarchy of ['cpuacct', 'cpu,cpuacct', 'cpuacct,cpu']) {
    const nanoseconds = await readFile(
      path.join(cgroupRoot, hierarchy, parent, 'cpuacct.usage'),
      'utf8',
    ).catch(() => undefined);
    if (nanoseconds !== undefined && /^\d+\s*$/.test(nanoseconds)) return Number(nanoseconds) / 1e9;
  }
  return undefined;
}

/**
 * Whether the step's memory reached its limit: an OOM kill counted in the parent's memory.events
 * (cgroup v2 counts its children's), or its peak usage within a page or so of the limit (v1's
 * max_usage_in_bytes, which the parent keeps for its children).
 */
export async function cgroupReachedMemory(
  containerName: string,
  limitBytes: number,
): Promise<boolean> {
  const parent = cgroupParentOf(containerName);
  const events = await readFile(path.join(cgroupRoot, parent, 'memory.events'), 'utf8').catch(
    () => '',
  );
  const kills = /^oom_kill (\d+)$/m.exec(events);
  if (kills) return Number(kills[1]) > 0;
  const peak = await readFile(
    path.join(cgroupRoot, 'memory', parent, 'memory.max_usage_in_bytes'),
    'utf8',
  ).catch(() => '');
  return /^\d+\s*$/.test(peak) && Number(peak) >= limitBytes - 64 * 1024;
}

/**
 * Removes the step's parent cgroup in every hierarchy that has it (the container's own is gone
 * once it has been removed). A gateway that may not (not root) leaves empty folders behind.
 */
export async function removeCgroupParent(containerName: string): Promise<void> {
  const parent = cgroupParentOf(containerName);
  const hierarchies = await readdir(cgroupRoot).catch(() => [] as string[]);
  const folders = [
    path.join(cgroupRoot, parent),
    ...hierarchies.map((hierarchy) => path.join(cgroupRoot, hierarchy, parent)),
  ];
  // rmdir of a cgroup fails while it has children or processes; a missing one is fine.
  await Promise.all(folders.map((folder) => rmdir(folder).catch(() => undefined)));
}

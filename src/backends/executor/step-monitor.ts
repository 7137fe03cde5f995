// Watches a running step's process tree and working directory against its limits: CPU time and
// resident memory of the whole tree every poll, the directory's size about every half second.
// The kernel's own per-process limits (prlimit) catch one process at once; this catches a tree.
import type { LimitName, StepLimits } from './engine.ts';
import { directorySize } from './directory-size.ts';
import { processTree, residentBytes, type ProcessEntry } from './process-tree.ts';

const directoryEveryMs = 500;

export interface StepMonitorOptions {
  /** The spawned process: the tree's root. */
  pid: number;
  workDir: string;
  limits: StepLimits;
  pollMs: number;
  processTable: () => Map<number, ProcessEntry>;
  /** Called once, when a limit is passed. */
  onLimit: (limit: LimitName) => void;
}

export interface StepMonitor {
  /** The most CPU seconds the tree was seen to have used. */
  cpuSeconds(): number;
  stop(): void;
}

export function monitorStep(options: StepMonitorOptions): StepMonitor {
  const { limits } = options;
  let cpuSeen = 0;
  let directoryCheckedAt = Date.now();
  let busy = false;
  let stopped = false;

  /** The first limit passed, if any. */
  const check = async (): Promise<LimitName | undefined> => {
    const table = options.processTable();
    const tree = processTree(table, options.pid);
    // Times of the live processes, each with what it has reaped: no process is counted twice.
    const cpu = tree.reduce((sum, pid) => sum + (table.get(pid)?.cpuSeconds ?? 0), 0);
    cpuSeen = Math.max(cpuSeen, cpu);
    if (cpu > limits.cpuSeconds) return 'cpu-time';
    if (residentBytes(tree) > limits.memoryBytes) return 'memory';
    if (Date.now() - directoryCheckedAt >= directoryEveryMs) {
      directoryCheckedAt = Date.now();
      const size = await directorySize(options.workDir, limits.outputBytes);
      if (size > limits.outputBytes) return 'output-size';
    }
    return undefined;
  };

  const timer = setInterval(() => {
    if (busy || stopped) return;
    busy = true;
    check()
      .then((limit) => {
        if (!limit || stopped) return;
        stopped = true;
        clearInterval(timer);
        options.onLimit(limit);
      })
      // /proc unreadable for a moment: the next poll tries again.
      .catch(() => undefined)
      .finally(() => {
        busy = false;
      });
  }, options.pollMs);

  return {
    cpuSeconds: () => cpuSeen,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}

// How a step's end is told: the outcome's one-sentence reason for each way a step can end, and the
// reading of bubblewrap's exit status, which reports a program killed by signal N as 128 + N.
import { constants } from 'node:os';
import type { LimitName, StepLimits, StepOutcome } from './engine.ts';

/** Why the engine ended a step itself, when it did. */
export type EngineEnding = { limit: LimitName } | { stopped: true } | { notStarted: string };

/** `1 MiB`, `1.5 GiB`, `512 B`: the largest binary unit the amount fills, one decimal at most. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${Number(value.toFixed(1))} ${units[unit]}`;
}

const limitWords: Record<LimitName, (limits: StepLimits) => string> = {
  'wall-clock': (l) => `wall-clock limit of ${Number(l.wallClockSeconds.toFixed(3))} s`,
  'cpu-time': (l) => `CPU-time limit of ${Number(l.cpuSeconds.toFixed(3))} s`,
  memory: (l) => `memory limit of ${formatBytes(l.memoryBytes)}`,
  'output-size': (l) => `output-size limit of ${formatBytes(l.outputBytes)}`,
};

export function limitReason(limit: LimitName, limits: StepLimits): string {
  return `went over its ${limitWords[limit](limits)}`;
}

const signalNames = new Map<number, string>(
  Object.entries(constants.signals).map(([name, number]) => [number, name]),
);

/** The limit a program's own death by signal means: the kernel's RLIMIT_CPU and RLIMIT_FSIZE signals. */
const limitOfSignal: Record<string, LimitName> = { SIGXCPU: 'cpu-time', SIGXFSZ: 'output-size' };

/**
 * What bubblewrap's exit status says: it exits with the program's status, or 128 + N when the
 * program died of signal N (as a shell does; a program exiting 128 + N itself reads the same).
 */
export function programEnd(code: number): { exitCode: number | null; signal: string | null } {
  const name = code > 128 ? signalNames.get(code - 128) : undefined;
  return name ? { exitCode: null, signal: name } : { exitCode: code, signal: null };
}

export interface EndFacts {
  /** The status bubblewrap exited with, when it exited by itself. */
  code: number | null;
  /** The signal that ended bubblewrap itself (the engine's SIGKILL), when one did. */
  signal: string | null;
  ending: EngineEnding | undefined;
  limits: StepLimits;
  startedAt: number;
  endedAt: number;
  cpuSeconds: number;
}

export function stepOutcome(facts: EndFacts): StepOutcome {
  const { ending, limits } = facts;
  const times = {
    startedAt: facts.startedAt,
    endedAt: facts.endedAt,
    cpuSeconds: facts.cpuSeconds,
  };
  const end =
    facts.code === null ? { exitCode: null, signal: facts.signal } : programEnd(facts.code);
  if (ending && 'notStarted' in ending) {
    return { state: 'failed', exitCode: null, signal: null, reason: ending.notStarted, ...times };
  }
  if (ending && 'stopped' in ending) {
    return { state: 'stopped', ...end, reason: 'was stopped', ...times };
  }
  const limit = ending?.limit ?? (end.signal ? limitOfSignal[end.signal] : undefined);
  if (limit) {
    return { state: 'failed', ...end, limit, reason: limitReason(limit, limits), ...times };
  }
  if (end.signal) {
    return { state: 'failed', ...end, reason: `was killed by signal ${end.signal}`, ...times };
  }
  const state = end.exitCode === 0 ? 'completed' : 'failed';
  return { state, ...end, reason: `exited with status ${end.exitCode}`, ...times };
}

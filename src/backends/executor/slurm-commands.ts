// Slurm's commands as the Slurm engine (slurm-engine.ts) uses them: each one spawned with its
// arguments (never through a shell), its output parsed. sbatch submits a step's batch script,
// scontrol and sacct say how its job stands, scancel ends it.
import { spawn } from 'node:child_process';

export interface CommandResult {
  /** null when the program could not be run at all (`error` says why). */
  code: number | null;
  stdout: string;
  stderr: string;
  error?: Error;
}

/** Runs `program args`, answering its status and what it printed; never throws. */
export function runCommand(program: string, args: string[]): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', (error) => resolve({ code: null, stdout, stderr, error }));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** What Slurm says of a job: its state and, once it has them, its times. */
export interface JobState {
  /** `PENDING`, `RUNNING`, `COMPLETED`, `FAILED`, `CANCELLED`, `TIMEOUT`, `OUT_OF_MEMORY`, ... */
  state: string;
  /** Slurm's reason for the state, when it gives one (`None` is none). */
  reason?: string;
  /** `exit:signal` of the batch script. */
  exitCode?: string;
  /** Milliseconds since the epoch, when known. */
  startedAt?: number;
  endedAt?: number;
  /** CPU seconds of the job's processes (sacct's TotalCPU), when known. */
  cpuSeconds?: number;
}

/** States after which a job does nothing more. */
const endedStates = new Set([
  'BOOT_FAIL',
  'CANCELLED',
  'COMPLETED',
  'DEADLINE',
  'FAILED',
  'NODE_FAIL',
  'OUT_OF_MEMORY',
  'PREEMPTED',
  'TIMEOUT',
  'REVOKED',
  'SPECIAL_EXIT',
]);

export const hasEnded = (job: JobState) => endedStates.has(job.state);

/** A Slurm time (`2026-11-29T18:39:10`, the controller's local time) in ms; undefined for `Unknown`/`None`. */
function slurmTime(value: string | undefined): number | undefined {
  if (!value || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/.test(value)) return undefined;
  const time = new Date(value).getTime();
  return Number.isNaN(time) ? undefined : time;
}

/** `[D-]HH:MM:SS[.mmm]` or `MM:SS.mmm` (sacct's TotalCPU) in seconds. */
export function slurmDuration(value: string): number | undefined {
  const match = /^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)$/.exec(value.trim());
  if (!match) return undefined;
  const [, days, hours, minutes, seconds] = match;
  return (
    Number(days ?? 0) * 86_400 + Number(hours ?? 0) * 3600 + Number(minutes) * 60 + Number(seconds)
  );
}

/** `scontrol show job -o <id>`: one line of `Key=Value` pairs. */
export function parseScontrolJob(line: string): JobState | undefined {
  const fields = new Map<string, string>();
  for (const match of line.matchAll(/(\w[\w/:]*)=(\S*)/g)) {
    if (!fields.has(match[1]!)) fields.set(match[1]!, match[2]!);
  }
  const state = fields.get('JobState');
  if (!state) return undefined;
  const reason = fields.get('Reason');
  const startedAt = slurmTime(fields.get('StartTime'));
  const endedAt = slurmTime(fields.get('EndTime'));
  return {
    state,
    ...(reason && reason !== 'None' ? { reason } : {}),
    ...(fields.has('ExitCode') ? { exitCode: fields.get('ExitCode')! } : {}),
    // A pending job's StartTime is the expected one, and a running job's EndTime its deadline.
    ...(startedAt !== undefined && state !== 'PENDING' ? { startedAt } : {}),
    ...(endedAt !== undefined && hasEnded({ state }) ? { endedAt } : {}),
  };
}

/**
 * `sacct -n -P -X -j <id> -o State,ExitCode,Start,End,TotalCPU,Reason`: the job's own line
 * (`CANCELLED by 0` is `CANCELLED`).
 */
export const sacctFormat = 'State,ExitCode,Start,End,TotalCPU,Reason';

export function parseSacct(jobLine: string): JobState | undefined {
  const [state, exitCode, start, end, totalCpu, reason] = jobLine.trim().split('|');
  if (!state) return undefined;
  const startedAt = slurmTime(start);
  const endedAt = slurmTime(end);
  const cpuSeconds = totalCpu ? slurmDuration(totalCpu) : undefined;
  return {
    state: state.split(' ')[0]!,
    ...(reason && reason !== 'None' ? { reason } : {}),
    ...(exitCode ? { exitCode } : {}),
    ...(startedAt !== undefined ? { startedAt } : {}),
    ...(endedAt !== undefined ? { endedAt } : {}),
    ...(cpuSeconds !== undefined ? { cpuSeconds } : {}),
  };
}

/** sbatch's complaint, its lines joined without their `sbatch: error:` prefixes. */
export function sbatchReason(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) =>
      line
        .replace(/^sbatch: error: /, '')
        .replace(/^Batch job submission failed: /, '')
        .trim(),
    )
    .filter((line) => line !== '');
  return lines.length > 0 ? lines.join('; ') : 'no reason given';
}

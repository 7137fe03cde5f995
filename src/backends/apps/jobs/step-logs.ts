// The logs every step of an analysis leaves in `<result folder>/logs/`, whatever ran it, where the
// web UI sends users to read them: `step-<n>-stdout.txt`, `step-<n>-stderr.txt` and
// `step-<n>-exit-status.json` (n from 1). A sandboxed step's are the engine's own files, uploaded
// (step-outputs.ts); for a step the platform runs itself (a built-in app), one that could not
// start, or one cancelled before or while it ran, the job runner writes them here: what ran
// (the tool, the step's values, what it wrote) and how it ended.
import { joinDataPath } from '../../../common/data-path.ts';
import { createFile, createFolders } from '../../data-info/index.ts';
import type { AppParameter } from '../shared/index.ts';
import { StepError, type StepRun } from './job-step.ts';
import { GatewayError } from '../../../common/errors.ts';

/** The names of step `number`'s log files in `logs/`. */
export const stepLogNames = (number: number) => ({
  stdout: `step-${number}-stdout.txt`,
  stderr: `step-${number}-stderr.txt`,
  exitStatus: `step-${number}-exit-status.json`,
});

/** The data path of the result folder's `logs/` (made if missing). */
export async function logsFolder(run: Pick<StepRun, 'data' | 'caller' | 'resultFolder'>) {
  const logs = joinDataPath(run.resultFolder, 'logs', 'name');
  await createFolders(run.data, run.caller, [logs]);
  return logs;
}

/** How a step the runner logs ended, in the engine's exit-status terms. */
export interface StepEnding {
  state: 'completed' | 'failed' | 'stopped';
  reason: string;
  startedAt: number;
  endedAt: number;
}

/**
 * How a step ended: stopped when the job's signal was aborted (`began` tells whether it had begun;
 * the abort's reason says why), failed with `failure`'s reason, else completed.
 */
export function stepEnding(
  signal: AbortSignal,
  facts: { began: boolean; failure: unknown; startedAt: number; endedAt: number },
): StepEnding {
  const { began, failure, startedAt, endedAt } = facts;
  const why = typeof signal.reason === 'string' ? signal.reason : 'the analysis was stopped';
  if (signal.aborted)
    return {
      state: 'stopped',
      reason: `${began ? 'was stopped while it ran' : 'never ran'}: ${why}`,
      startedAt,
      endedAt,
    };
  if (failure === undefined) return { state: 'completed', reason: 'completed', startedAt, endedAt };
  const reason =
    failure instanceof GatewayError
      ? failure.reason
      : failure instanceof StepError
        ? failure.message
        : 'an internal error stopped the job';
  return { state: 'failed', reason, startedAt, endedAt };
}

export interface StepLogFacts {
  number: number;
  of: number;
  stepName: string;
  /** The step's tool (a built-in one names its `executor`), or undefined when it has none. */
  tool?: { name: string; executor: string | null };
  parameters: AppParameter[];
  /** The step's values by parameter id. */
  values: Record<string, unknown>;
  written: string[];
  ending: StepEnding;
}

const iso = (ms: number) => new Date(ms).toISOString();
const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** Writes step `facts.number`'s three log files as the user who launched the job. */
export async function writeStepLogs(
  run: Pick<StepRun, 'data' | 'caller' | 'resultFolder'>,
  facts: StepLogFacts,
): Promise<void> {
  const { ending } = facts;
  const logs = await logsFolder(run);
  const names = stepLogNames(facts.number);
  const stdout = [
    `step ${facts.number} of ${facts.of}: ${facts.stepName}`,
    facts.tool
      ? `tool: ${facts.tool.name} (${facts.tool.executor ? 'built in, run by the platform' : 'a sandboxed process'})`
      : 'tool: none',
    ...facts.parameters
      .filter((parameter) => facts.values[parameter.id] !== undefined)
      .map(
        (parameter) =>
          `${parameter.label ?? parameter.name ?? parameter.id}: ${shown(facts.values[parameter.id])}`,
      ),
    `started: ${iso(ending.startedAt)}`,
    ...facts.written.map((path) => `wrote: ${path}`),
    `${ending.state}: ${iso(ending.endedAt)}`,
  ];
  const stderr = ending.state === 'completed' ? '' : `${ending.state}: ${ending.reason}\n`;
  const exitStatus = {
    state: ending.state,
    exitCode: ending.state === 'completed' ? 0 : ending.state === 'failed' ? 1 : null,
    signal: null,
    reason: ending.reason,
    startedAt: ending.startedAt,
    endedAt: ending.endedAt,
    // Not measured for a step the platform runs in its own process.
    cpuSeconds: null,
  };
  for (const [name, content] of [
    [names.stdout, `${stdout.join('\n')}\n`],
    [names.stderr, stderr],
    [names.exitStatus, `${JSON.stringify(exitStatus, null, 2)}\n`],
  ] as const)
    await createFile(run.data, run.caller, joinDataPath(logs, name, 'name'), content);
}

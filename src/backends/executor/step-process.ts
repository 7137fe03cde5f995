// One step from start to end: checks the command, spawns `prlimit ... -- bwrap ... -- argv` in a
// process group of its own (never a shell), keeps its output, enforces its limits, kills its whole
// sandbox when asked or when a limit is passed, and writes and answers the outcome.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LimitName, StepCommand, StepLimits, StepOutcome } from './engine.ts';
import { captureStream, type CappedLog } from './capped-log.ts';
import { commandProblem } from './command-check.ts';
import { directorySize } from './directory-size.ts';
import { stepOutcome, type EngineEnding } from './outcome.ts';
import { killGroup, type ProcessEntry } from './process-tree.ts';
import { sandboxArgs, sandboxEnv } from './sandbox-args.ts';
import { monitorStep, type StepMonitor } from './step-monitor.ts';
import { imageLayout, type RootEntry } from './system-layout.ts';

/** What the engine gives each step: its tools, found once, and what steps share. */
export interface StepTools {
  bwrap: string;
  prlimit: string;
  hostLayout: (network: boolean) => Promise<RootEntry[]>;
  processTable: () => Map<number, ProcessEntry>;
  pollMs: number;
  log: { warn: (details: object, message: string) => void };
}

export interface RunningStep {
  /** Resolves once the program has been spawned, or once it is known it will not be. */
  readonly started: Promise<void>;
  readonly done: Promise<StepOutcome>;
  /** Kills the step's whole sandbox; its outcome is `stopped` unless it had ended otherwise. */
  stop(): void;
}

/** How long the output pipes may stay open after bubblewrap has gone before they are cut. */
const pipesGraceMs = 2000;

/** The outcome of a step that never ran: a reason and the same time at both ends. */
function notRun(ending: EngineEnding, limits: StepLimits): StepOutcome {
  const now = Date.now();
  return stepOutcome({
    code: null,
    signal: null,
    ending,
    limits,
    startedAt: now,
    endedAt: now,
    cpuSeconds: 0,
  });
}

/** bubblewrap's or prlimit's own complaint (a missing path, no namespaces), which ends with status 1. */
function setupFailure(code: number | null, stderr: CappedLog | undefined): string | undefined {
  const first = stderr?.head().split('\n')[0] ?? '';
  const match = /^(?:bwrap|prlimit): (.+)$/.exec(first);
  return code === 1 && match ? match[1] : undefined;
}

/**
 * Starts a step. `tools` is what the engine found, or why it cannot run steps (bubblewrap
 * missing): the step then fails with that reason without being spawned.
 */
export function startStep(
  tools: StepTools | { unavailable: string },
  command: StepCommand,
  options: { port?: number } = {},
): RunningStep {
  const { limits } = command;
  let ending: EngineEnding | undefined;
  let child: ChildProcess | undefined;
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));

  const end = (why: EngineEnding) => {
    ending ??= why;
    if (child?.pid !== undefined) killGroup(child.pid);
  };

  const record = async (outcome: StepOutcome): Promise<StepOutcome> => {
    markStarted();
    try {
      // Both logs exist whatever happened, empty when the program never ran.
      for (const name of ['stdout', 'stderr']) {
        await writeFile(join(command.logDir, name), '', { flag: 'a' });
      }
      await writeFile(join(command.logDir, 'exit-status'), `${JSON.stringify(outcome, null, 2)}\n`);
    } catch (error) {
      if ('log' in tools)
        tools.log.warn({ err: error, logDir: command.logDir }, 'step outcome not written');
    }
    return outcome;
  };

  const execute = async (): Promise<StepOutcome> => {
    try {
      await mkdir(command.logDir, { recursive: true });
    } catch (error) {
      markStarted();
      return notRun(
        {
          notStarted: `could not start: its log directory cannot be made (${(error as Error).message})`,
        },
        limits,
      );
    }
    if ('unavailable' in tools) return record(notRun({ notStarted: tools.unavailable }, limits));
    const problem = await commandProblem(command);
    if (problem) return record(notRun({ notStarted: `could not start: ${problem}` }, limits));
    if (ending) return record(notRun(ending, limits));
    const shareNetwork = options.port !== undefined;
    let root: RootEntry[];
    try {
      root = command.rootImage
        ? await imageLayout(command.rootImage)
        : await tools.hostLayout(shareNetwork);
    } catch (error) {
      return record(notRun({ notStarted: `could not start: ${(error as Error).message}` }, limits));
    }
    const bwrapArgs = sandboxArgs({
      argv: command.argv,
      root,
      readOnly: command.readOnly ?? [],
      mounts: command.mounts ?? [],
      workDir: command.workDir,
      env: sandboxEnv(command.env, options.port),
      shareNetwork,
      limits,
    });
    // RLIMIT_CPU in whole seconds: SIGXCPU at the soft limit, SIGKILL a second later if ignored.
    const cpuSoft = Math.max(1, Math.ceil(limits.cpuSeconds));
    const prlimitArgs = [
      `--cpu=${cpuSoft}:${cpuSoft + 1}`,
      `--fsize=${Math.floor(limits.outputBytes)}`,
      '--core=0',
      '--',
      tools.bwrap,
      ...bwrapArgs,
    ];
    const startedAt = Date.now();
    const spawned = spawn(tools.prlimit, prlimitArgs, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = spawned;
    const exited = new Promise<{ code: number | null; signal: string | null; error?: Error }>(
      (resolve) => {
        spawned.once('error', (error) => resolve({ code: null, signal: null, error }));
        spawned.once('exit', (code, signal) => resolve({ code, signal }));
      },
    );
    const stdout =
      spawned.stdout &&
      captureStream(spawned.stdout, join(command.logDir, 'stdout'), limits.outputBytes);
    const stderr =
      spawned.stderr &&
      captureStream(spawned.stderr, join(command.logDir, 'stderr'), limits.outputBytes);
    const running = await new Promise<boolean>((resolve) => {
      spawned.once('spawn', () => resolve(true));
      spawned.once('error', () => resolve(false));
    });
    markStarted();

    let monitor: StepMonitor | undefined;
    let wallClock: NodeJS.Timeout | undefined;
    if (running && spawned.pid !== undefined) {
      if (ending) killGroup(spawned.pid);
      monitor = monitorStep({
        pid: spawned.pid,
        workDir: command.workDir,
        limits,
        pollMs: tools.pollMs,
        processTable: tools.processTable,
        onLimit: (limit: LimitName) => end({ limit }),
      });
      wallClock = setTimeout(() => end({ limit: 'wall-clock' }), limits.wallClockSeconds * 1000);
    }
    const result = await exited;
    const endedAt = Date.now();
    monitor?.stop();
    clearTimeout(wallClock);
    // The sandbox dies with bubblewrap, closing the pipes; a pipe somehow held open is cut.
    const cut = setTimeout(() => {
      spawned.stdout?.destroy();
      spawned.stderr?.destroy();
    }, pipesGraceMs);
    await Promise.all([stdout?.finished, stderr?.finished]);
    clearTimeout(cut);

    if (result.error) {
      return record(notRun({ notStarted: `could not start: ${result.error.message}` }, limits));
    }
    const setup = ending ? undefined : setupFailure(result.code, stderr ?? undefined);
    if (setup) ending = { notStarted: `could not start: ${setup}` };
    if (
      !ending &&
      (await directorySize(command.workDir, limits.outputBytes)) > limits.outputBytes
    ) {
      ending = { limit: 'output-size' };
    }
    return record(
      stepOutcome({
        code: result.code,
        signal: result.signal,
        ending,
        limits,
        startedAt,
        endedAt,
        cpuSeconds: monitor?.cpuSeconds() ?? 0,
      }),
    );
  };

  // Nothing here is expected to throw; if something does (spawn out of file descriptors, say),
  // the step still ends with a reason rather than a rejection, and no sandbox is left behind.
  const done = execute().catch((error: Error) => {
    if (child?.pid !== undefined) killGroup(child.pid);
    if ('log' in tools)
      tools.log.warn({ err: error, argv: command.argv }, 'step failed unexpectedly');
    return record(notRun({ notStarted: `could not start: ${error.message}` }, limits));
  });
  return { started, done, stop: () => end({ stopped: true }) };
}

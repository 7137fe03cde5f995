// Running one step of a user tool on the execution engine (docs/executor.md): the tool's program
// (tools/tool-program.ts) must be allowed; the step's file inputs are staged (step-staging.ts); its
// arguments are built from its parameters in argument order, one argv entry each, never through a
// shell; it runs in its own working directory under the tool's and the platform's limits; then
// its outputs and logs are uploaded into the result folder (step-outputs.ts), whether it
// succeeded, failed or was stopped (an exited session leaves its logs only), and its folder on
// this host is removed.
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ExecutorSettings } from '../../../config/index.ts';
import {
  StepDetached,
  unpackImage,
  type ExecutionEngine,
  type StepLimits,
  type StepTracking,
} from '../../executor/index.ts';
import { asBoolean } from '../../../store/sqlite-booleans.ts';
import { argumentsOf, blank, pathParameterTypes, type AppParameter } from '../shared/index.ts';
import { StepCanceled, StepError, type StepRun } from './job-step.ts';
import {
  defaultSessionSeconds,
  runInteractive,
  type InteractiveHooks,
} from './interactive-steps.ts';
import { InputStager, inputsMountPoint } from './step-staging.ts';
import { uploadLogs, uploadOutputs } from './step-outputs.ts';
import { mayRun, toolProgram, type ToolRow } from '../tools/index.ts';

export interface SandboxedStep {
  run: StepRun;
  /** 1-based. */
  number: number;
  tool: ToolRow;
  /** The step's parameters, and their values by parameter id (defaults filled in, typed). */
  parameters: AppParameter[];
  values: Record<string, unknown>;
  engine: ExecutionEngine;
  /** The container runtime's engine (JOB_EXECUTOR=docker, CONTAINER_RUNTIME), for registry-image tools. */
  containerEngine?: ExecutionEngine;
  /** The submission's requirement for this step (`requirements[]` whose `step_number` is it). */
  requested?: Record<string, unknown>;
  /** Told the CPU seconds the engine counted for the step, once it has ended (for cpu.hours). */
  ranFor?: (cpuSeconds: number) => Promise<void>;
  settings: ExecutorSettings;
  /** This step's own host folder (made here, removed when it ends). */
  folder: string;
  /** What the engine knows an interactive step's session by (the step's external id). */
  sessionId: string;
  /** An interactive step's row, which the platform ends it through. */
  interactive: InteractiveHooks;
  /** How the engine names a batch step it holds outside this process, recorded on the step's row. */
  tracking?: StepTracking;
}

/**
 * The argv entries of the arguments: a name and its value are two entries (`-o`, `out.txt`), or
 * one when the name ends in `=` (`--out=out.txt`); an empty name or value gives no entry.
 */
export function argvOf(arguments_: { name: string; value: string }[]): string[] {
  return arguments_.flatMap(({ name, value }) =>
    name.endsWith('=') ? [`${name}${value}`] : [name, value].filter((part) => part !== ''),
  );
}

/**
 * The step's limits: the platform's (the administrator's ceilings), or less where the tool's
 * container (`memory_limit`, `max_cpu_cores`, `pids_limit`) or the submission's requirement for
 * the step (`memory_limit`, `max_cpu_cores`) asks for less.
 */
export function limitsOf(
  tool: ToolRow,
  platform: StepLimits & { cpus: number; processes: number },
  requested: Record<string, unknown> = {},
): StepLimits {
  const container = tool.container ? (JSON.parse(tool.container) as Record<string, unknown>) : {};
  const asked = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : Infinity;
  const lowest = (most: number, ...asks: unknown[]) => Math.min(most, ...asks.map(asked));
  return {
    wallClockSeconds: lowest(platform.wallClockSeconds, tool.time_limit_seconds),
    cpuSeconds: platform.cpuSeconds,
    memoryBytes: lowest(platform.memoryBytes, container.memory_limit, requested.memory_limit),
    outputBytes: platform.outputBytes,
    cpus: lowest(platform.cpus, container.max_cpu_cores, requested.max_cpu_cores),
    processes: Math.floor(lowest(platform.processes, container.pids_limit)),
  };
}

/**
 * What a batch scheduler reserves for the step: the CPU cores and GPUs the tool's container asks
 * for at least (`min_cpu_cores`, `min_gpus`), or the submission's requirements for the step when
 * they ask for more; the engine holds them to its ceilings.
 */
function resourcesOf(
  tool: ToolRow,
  requested: Record<string, unknown> = {},
): { cpus?: number; gpus?: number } {
  const container = tool.container ? (JSON.parse(tool.container) as Record<string, unknown>) : {};
  const count = (...asked: unknown[]) => {
    const counts = asked.filter(
      (value): value is number => typeof value === 'number' && Number.isInteger(value) && value > 0,
    );
    return counts.length ? Math.max(...counts) : undefined;
  };
  const cpus = count(container.min_cpu_cores, requested.min_cpu_cores);
  const gpus = count(container.min_gpus, requested.min_gpus);
  return { ...(cpus ? { cpus } : {}), ...(gpus ? { gpus } : {}) };
}

/** Output names must stay inside the working directory. */
function checkOutputName(parameter: AppParameter, value: unknown): void {
  const name = String(value);
  if (path.posix.isAbsolute(name) || name.split('/').some((part) => part === '..'))
    throw new StepError(
      `${parameter.label ?? parameter.name ?? parameter.id} must name a file inside the working directory, not ${name}`,
    );
}

/** Runs the step; answers the data paths it wrote (outputs, then logs). Failures are StepErrors. */
export async function runSandboxedStep(step: SandboxedStep): Promise<string[]> {
  const { run, tool, settings } = step;
  const label = `step ${step.number} (${tool.name})`;
  const program = toolProgram(tool, settings.containerRuntime);
  if ('reason' in program) throw new StepError(`${label} cannot run: ${program.reason}`);
  if (!mayRun(tool, program, settings.allow))
    throw new StepError(
      `${label} cannot run: ${program.image ?? program.program} is not allowed on this platform ` +
        `(an administrator approves the tool with PATCH /admin/tools/${tool.id}, or lists it in TOOL_EXECUTABLES_ALLOW)`,
    );
  const engine = program.containerImage ? step.containerEngine : step.engine;
  if (!engine) throw new StepError(`${label} cannot run: no container runtime is configured`);
  const available = await engine.available();
  if (!available.ok) throw new StepError(`${label} cannot run: ${available.reason}`);

  const inputs = path.join(step.folder, 'inputs');
  const workDir = path.join(step.folder, 'work');
  const logDir = path.join(step.folder, 'logs');
  await Promise.all([inputs, workDir, logDir].map((dir) => mkdir(dir, { recursive: true })));
  // A step another gateway started, followed here after taking its analysis over: its folder,
  // inputs staged and command given, is the engine's already.
  const attaching = step.tracking?.attach !== undefined;
  let detached = false;
  try {
    const rootImage =
      program.image && !attaching
        ? await unpackImage(program.image, path.join(settings.workDir, 'images')).catch(
            (error: unknown) => {
              throw new StepError(
                `${label} cannot run: its image ${program.image} could not be unpacked (${(error as Error).message})`,
              );
            },
          )
        : undefined;
    const stager = new InputStager(run, inputs);
    // What was staged, in order: staged again in the same order, the copies keep their paths.
    const staged: { parameter: AppParameter; value: unknown }[] = [];
    const found: { name: string; value: string; order: number }[] = [];
    for (const parameter of attaching ? [] : step.parameters) {
      if (parameter.type === 'Info') continue;
      const value = step.values[parameter.id];
      const order = typeof parameter.order === 'number' ? parameter.order : 0;
      if (blank(value)) {
        if (parameter.omit_if_blank === false)
          found.push({ name: parameter.name ?? '', value: '', order });
        continue;
      }
      if (parameter.type === 'FileOutput' || parameter.type === 'FolderOutput')
        checkOutputName(parameter, value);
      // An output the tool writes by a fixed name is not on its command line.
      if ((parameter.file_parameters as { is_implicit?: boolean } | undefined)?.is_implicit)
        continue;
      if (pathParameterTypes.includes(parameter.type)) staged.push({ parameter, value });
      found.push(...argumentsOf(parameter, await stager.stage(parameter, value), order));
    }
    // Array.prototype.sort is stable: equal orders keep the form's order.
    // A program of the host is mounted at /tool/<name>, wherever it is (its own path could be
    // one the sandbox mounts itself); an image's program is the image's.
    const programPath =
      rootImage || program.containerImage
        ? program.program
        : path.posix.join('/tool', path.posix.basename(program.program));
    const argv = [programPath, ...argvOf(found.sort((a, b) => a.order - b.order))];
    const command = {
      argv,
      workDir,
      logDir,
      mounts: [
        { host: inputs, sandbox: inputsMountPoint },
        ...(rootImage || program.containerImage
          ? []
          : [{ host: program.program, sandbox: programPath }]),
      ],
      ...(rootImage ? { rootImage } : {}),
      ...(program.containerImage ? { containerImage: program.containerImage } : {}),
      limits: limitsOf(tool, settings.limits, step.requested),
      resources: resourcesOf(tool, step.requested),
    };
    const interactive = asBoolean(tool.interactive);
    // An interactive step's deadline is its session's time limit (which users extend), up to the
    // platform's wall clock, which the engine holds it to.
    const sessionSeconds = Math.min(
      typeof tool.time_limit_seconds === 'number' && tool.time_limit_seconds > 0
        ? tool.time_limit_seconds
        : defaultSessionSeconds,
      settings.limits.wallClockSeconds,
    );
    const { outcome, ending } = interactive
      ? await runInteractive(
          engine,
          {
            ...command,
            limits: { ...command.limits, wallClockSeconds: settings.limits.wallClockSeconds },
          },
          step.sessionId,
          run.signal,
          step.interactive,
          sessionSeconds,
          {
            // A session's work saved as it goes on: its files replace those saved before.
            saveOutputs: () => uploadOutputs(run, workDir, [], true),
            // Its inputs read again from the data store, as they are now, at the same paths: each
            // copy replaces the one before at once, then what is gone is removed (the folder
            // itself stays, the sandbox has it mounted).
            restageInputs: async () => {
              const again = new InputStager(run, inputs);
              for (const { parameter, value } of staged) await again.stage(parameter, value);
              await again.removeUnstaged();
            },
            failed: (error, request) =>
              run.log.warn(
                { err: error, request, session: step.sessionId },
                request
                  ? `a session's ${request} request failed; it is cleared, and may be asked again`
                  : "a session's requests could not be read; read again shortly",
              ),
          },
        )
      : { outcome: await engine.run(command, run.signal, step.tracking), ending: undefined };
    await step
      .ranFor?.(outcome.cpuSeconds)
      .catch((error: unknown) =>
        run.log.warn({ err: error }, "could not record a step's CPU seconds"),
      );
    if (ending === 'exit') {
      await uploadLogs(run, logDir, step.number);
      throw new StepCanceled(`${label} was exited; its outputs were not saved`);
    }
    // Uploaded even when the step failed or was stopped: its partial outputs and logs say why,
    // and how far it got. Its own failure is the one reported.
    const written: string[] = [];
    const failedUpload = await uploadOutputs(run, workDir, written, interactive).then(
      () => undefined,
      (error: unknown) => error,
    );
    written.push(...(await uploadLogs(run, logDir, step.number)));
    // Ended at its deadline or by save-and-exit: its work saved, the step done.
    if (ending === 'save-and-exit' || ending === 'time-limit') {
      if (failedUpload !== undefined) throw failedUpload;
      return written;
    }
    if (outcome.state === 'stopped' || (!interactive && run.signal.aborted))
      throw new StepError('stopped');
    if (outcome.state === 'failed') throw new StepError(`${label} ${outcome.reason}`);
    if (failedUpload !== undefined) throw failedUpload;
    return written;
  } catch (error) {
    // Let go of, still running on its engine: its folder is its working directory still.
    if (error instanceof StepDetached) detached = true;
    throw error;
  } finally {
    if (!detached)
      await rm(step.folder, { recursive: true, force: true }).catch((error: unknown) =>
        run.log.warn({ err: error, folder: step.folder }, 'could not remove a step folder'),
      );
  }
}

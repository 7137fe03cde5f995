// One container step from start to end (docs/executor.md "Docker"): the image pulled when absent,
// the container created and started detached, so it outlives the gateway (its name handed to
// `tracking.submitted` once it exists), then followed: its output streamed into the log
// directory as it comes, its end awaited, the wall clock, the working directory's size and the
// whole container's CPU time watched, its OOM kill read as the memory limit. A step given
// `tracking.attach` follows that container instead of starting one (after a gateway restart). Its
// CPU time is the kernel's (container-cgroup.ts); at its end the container and its cgroup go.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chown, lstat, mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LimitName, StepCommand, StepOutcome, StepTracking } from './engine.ts';
import { captureStream } from './capped-log.ts';
import { containerArgs } from './container-args.ts';
import { cgroupCpuSeconds, cgroupReachedMemory, removeCgroupParent } from './container-cgroup.ts';
import { directorySize } from './directory-size.ts';
import { stepOutcome, type EngineEnding } from './outcome.ts';
import { runtimeComplaint, type RuntimeCli } from './runtime-cli.ts';
import type { RunningStep } from './step-process.ts';

export interface ContainerStepTools {
  /** The runtime's client program (`docker`), and one command of it. */
  program: string;
  cli: RuntimeCli;
  /** Why the image cannot be had (pulled when absent), or undefined once it is here. */
  ensureImage: (image: string) => Promise<string | undefined>;
  /** The containers' user: the gateway's own, or nobody when the gateway is root. */
  user: { uid: number; gid: number };
  /** Whether containers get a parent cgroup of their own, read for their CPU time. */
  cgroupParent: boolean;
  pollMs: number;
  log: { warn: (details: object, message: string) => void };
}

export interface ContainerStep extends RunningStep {
  /** The container's name: what `tracking.submitted` is given. */
  readonly name: string;
  /**
   * Stops following the container and leaves it running (the gateway stops for a restart): no
   * limit is enforced from here on, nothing is removed, and `done` settles without an outcome
   * recorded.
   */
  detach(): void;
}

/** How long the followed output may go on after the container has ended before it is cut. */
const logsGraceMs = 2000;

interface ContainerState {
  Status: string;
  ExitCode: number;
  OOMKilled: boolean;
  StartedAt: string;
  FinishedAt: string;
}

const timeOf = (text: string | undefined, otherwise: number) => {
  const time = text ? Date.parse(text) : NaN;
  // A container never started says 0001-01-01.
  return Number.isFinite(time) && time > 0 ? time : otherwise;
};

/** The working directory and what is in it made the container user's, so the step can write it. */
async function giveTo(dir: string, uid: number, gid: number): Promise<void> {
  await chown(dir, uid, gid);
  for (const entry of await readdir(dir)) {
    const child = path.join(dir, entry);
    const stat = await lstat(child);
    if (stat.isDirectory()) await giveTo(child, uid, gid);
    else if (!stat.isSymbolicLink()) await chown(child, uid, gid);
  }
}

export function startContainerStep(
  tools: ContainerStepTools,
  command: StepCommand,
  options: { port?: number; tracking?: StepTracking; closed?: boolean } = {},
): ContainerStep {
  const { limits } = command;
  const { cli } = tools;
  const attach = options.tracking?.attach;
  const name = attach ?? `platform-step-${randomUUID()}`;
  let ending: EngineEnding | undefined;
  let exists = false;
  /** Aborted by detach(): the clients following the container end, the container goes on. */
  const letGo = new AbortController();
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));

  const end = (why: EngineEnding) => {
    if (letGo.signal.aborted) return;
    ending ??= why;
    if (exists) void cli(['kill', name]);
  };

  const record = async (outcome: StepOutcome): Promise<StepOutcome> => {
    markStarted();
    try {
      for (const file of ['stdout', 'stderr'])
        await writeFile(path.join(command.logDir, file), '', { flag: 'a' });
      await writeFile(
        path.join(command.logDir, 'exit-status'),
        `${JSON.stringify(outcome, null, 2)}\n`,
      );
    } catch (error) {
      tools.log.warn({ err: error, logDir: command.logDir }, 'step outcome not written');
    }
    return outcome;
  };

  /** What `done` settles with once the step was let go of (nothing is recorded). */
  const detachedOutcome = (): StepOutcome => {
    const now = Date.now();
    return {
      ...stepOutcome({
        code: null,
        signal: null,
        ending: { stopped: true },
        limits,
        startedAt: now,
        endedAt: now,
        cpuSeconds: 0,
      }),
      reason: 'was let go of',
    };
  };

  const notRun = (why: EngineEnding) => {
    const now = Date.now();
    return record(
      stepOutcome({
        code: null,
        signal: null,
        ending: why,
        limits,
        startedAt: now,
        endedAt: now,
        cpuSeconds: 0,
      }),
    );
  };

  const inspect = async (): Promise<ContainerState | string> => {
    const result = await cli([
      'inspect',
      '--type',
      'container',
      '--format',
      '{{json .State}}',
      name,
    ]);
    if (result.code !== 0) return runtimeComplaint(result);
    return JSON.parse(result.stdout) as ContainerState;
  };

  /** Removes the container and its cgroup, answering the CPU seconds it used (read first). */
  const removeContainer = async (): Promise<number | undefined> => {
    const cpuSeconds = tools.cgroupParent ? await cgroupCpuSeconds(name) : undefined;
    await cli(['rm', '--force', name]);
    if (tools.cgroupParent) await removeCgroupParent(name);
    return cpuSeconds;
  };

  /** Creates and starts the container; a reason when it could not be. */
  const launch = async (): Promise<string | undefined> => {
    const image = command.containerImage;
    if (!image) return 'could not start: it names no container image';
    const unavailable = await tools.ensureImage(image);
    if (unavailable)
      return `could not start: its image ${image} could not be pulled: ${unavailable}`;
    if (letGo.signal.aborted) return 'could not start: the gateway is stopping';
    if (tools.user.uid !== process.getuid?.())
      await giveTo(command.workDir, tools.user.uid, tools.user.gid);
    const created = await cli(
      containerArgs(command, name, {
        user: `${tools.user.uid}:${tools.user.gid}`,
        ...(options.port !== undefined ? { port: options.port } : {}),
        cgroupParent: tools.cgroupParent,
      }),
    );
    if (created.code !== 0) return `could not start: ${runtimeComplaint(created)}`;
    exists = true;
    try {
      await options.tracking?.submitted?.(name);
    } catch (error) {
      tools.log.warn({ err: error, container: name }, 'a container step could not be recorded');
    }
    if (ending) return undefined;
    const begun = await cli(['start', name]);
    if (begun.code !== 0) return `could not start: ${runtimeComplaint(begun)}`;
    return undefined;
  };

  /** Follows the container to its end. */
  const follow = async (): Promise<StepOutcome> => {
    let state = await inspect();
    if (typeof state === 'string')
      return notRun({ notStarted: `its container ${name} cannot be followed: ${state}` });
    exists = true;
    // Made but never started (a gateway gone between the two): started now.
    if (state.Status === 'created' && !ending) {
      const begun = await cli(['start', name]);
      if (begun.code !== 0) {
        await removeContainer();
        return notRun({ notStarted: `could not start: ${runtimeComplaint(begun)}` });
      }
    }
    if (ending) void cli(['kill', name]);
    markStarted();
    const logs = spawn(tools.program, ['logs', '--follow', name], {
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: letGo.signal,
    });
    logs.once('error', (error) => {
      if (!letGo.signal.aborted)
        tools.log.warn({ err: error, container: name }, "a container's output cannot be read");
    });
    const stdout = captureStream(
      logs.stdout,
      path.join(command.logDir, 'stdout'),
      limits.outputBytes,
    );
    const stderr = captureStream(
      logs.stderr,
      path.join(command.logDir, 'stderr'),
      limits.outputBytes,
    );
    const runningSince = timeOf(
      typeof state === 'string' ? undefined : state.StartedAt,
      Date.now(),
    );
    const wallClock = setTimeout(
      () => end({ limit: 'wall-clock' }),
      Math.max(0, limits.wallClockSeconds * 1000 - (Date.now() - runningSince)),
    );
    let polling = false;
    const watch = setInterval(() => {
      if (polling) return;
      polling = true;
      void (async () => {
        if ((await directorySize(command.workDir, limits.outputBytes)) > limits.outputBytes)
          end({ limit: 'output-size' satisfies LimitName });
        const cpu = tools.cgroupParent ? await cgroupCpuSeconds(name) : undefined;
        if (cpu !== undefined && cpu > limits.cpuSeconds) end({ limit: 'cpu-time' });
      })().finally(() => (polling = false));
    }, tools.pollMs);
    // `docker wait` ends with the container, or with its connection to the engine: while the
    // engine still says the container runs, it is waited for again.
    const stopWatching = () => {
      clearTimeout(wallClock);
      clearInterval(watch);
    };
    letGo.signal.addEventListener('abort', stopWatching, { once: true });
    let waited = await cli(['wait', name], letGo.signal);
    for (let again = 0; waited.code !== 0 && again < 5 && !letGo.signal.aborted; again += 1) {
      const now = await inspect();
      if (typeof now === 'string' || !['running', 'created', 'paused'].includes(now.Status)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
      waited = await cli(['wait', name], letGo.signal);
    }
    stopWatching();
    // Let go of: whoever follows it next reads its output again from the start and records its end.
    if (letGo.signal.aborted) return detachedOutcome();
    const cut = setTimeout(() => logs.kill('SIGKILL'), logsGraceMs);
    await Promise.all([stdout.finished, stderr.finished]);
    clearTimeout(cut);
    state = await inspect();
    if (typeof state === 'string') {
      // The engine stopped answering (dockerd killed or restarted), or the container was removed
      // behind the gateway's back: a clear failure, never a step left running. Its container, if
      // the engine still has it, is removed when it answers again (best effort).
      void cli(['rm', '--force', name]).then(() =>
        tools.cgroupParent ? removeCgroupParent(name) : undefined,
      );
      return notRun({
        notStarted: `lost its container ${name}: ${tools.program} answered "${waited.code === 0 ? state : runtimeComplaint(waited)}"`,
      });
    }
    if (!ending && state.ExitCode === 137 && !state.OOMKilled) {
      // Killed (SIGKILL) and not by the engine: Docker records the OOM kill from an event of its
      // own, which can come after the exit's on a busy machine. Asked again for a moment, and
      // the cgroup's memory peak looked at.
      for (let tries = 0; tries < 10 && !state.OOMKilled; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const again = await inspect();
        if (typeof again !== 'string') state = again;
      }
      if (
        !state.OOMKilled &&
        tools.cgroupParent &&
        (await cgroupReachedMemory(name, limits.memoryBytes))
      )
        state.OOMKilled = true;
    }
    if (state.OOMKilled) ending ??= { limit: 'memory' };
    const cpuSeconds = (await removeContainer()) ?? 0;
    if (!ending && (await directorySize(command.workDir, limits.outputBytes)) > limits.outputBytes)
      ending = { limit: 'output-size' };
    if (!ending && cpuSeconds > limits.cpuSeconds) ending = { limit: 'cpu-time' };
    const endedAt = timeOf(state.FinishedAt, Date.now());
    return record(
      stepOutcome({
        code: state.ExitCode,
        signal: null,
        ending,
        limits,
        startedAt: runningSince,
        endedAt,
        cpuSeconds,
      }),
    );
  };

  const execute = async (): Promise<StepOutcome> => {
    try {
      await mkdir(command.logDir, { recursive: true });
    } catch (error) {
      markStarted();
      const now = Date.now();
      return stepOutcome({
        code: null,
        signal: null,
        ending: {
          notStarted: `could not start: its log directory cannot be made (${(error as Error).message})`,
        },
        limits,
        startedAt: now,
        endedAt: now,
        cpuSeconds: 0,
      });
    }
    if (attach === undefined) {
      if (options.closed) return notRun({ notStarted: 'could not start: the engine is closing' });
      const problem = await launch();
      if (problem) {
        if (exists) await removeContainer();
        return notRun({ notStarted: problem });
      }
      if (ending && 'stopped' in ending) {
        await removeContainer();
        return notRun(ending);
      }
    }
    return follow();
  };

  // Nothing here is expected to throw; if something does, the step still ends with a reason and
  // its container is not left behind.
  const done = execute().catch(async (error: Error) => {
    tools.log.warn({ err: error, container: name }, 'container step failed unexpectedly');
    if (exists) await removeContainer().catch(() => undefined);
    return notRun({ notStarted: `could not start: ${error.message}` });
  });
  return {
    name,
    started,
    done,
    stop: () => end({ stopped: true }),
    detach: () => letGo.abort(),
  };
}

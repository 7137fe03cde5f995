// The container runtime engine (CONTAINER_RUNTIME=docker or podman): a step whose tool names a
// registry image runs as `<runtime> run` of that image, on a machine where the runtime works (not
// this project's CI machines, where no container engine runs: docs/executor.md). The same promises
// as the local engine where the runtime can keep them: no network (interactive steps publish their
// port on 127.0.0.1 only), a read-only root, `nobody`, no capabilities, the working directory at
// /work, the mounts read-only, memory (the runtime's cgroup: an OOM kill is the memory limit),
// per-process CPU time and file size (ulimits), the wall clock and the working directory's size
// (watched here). Stopping kills the container.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type {
  ExecutionEngine,
  InteractiveSession,
  LimitName,
  StepCommand,
  StepOutcome,
} from './engine.ts';
import { captureStream } from './capped-log.ts';
import { directorySize } from './directory-size.ts';
import { findProgram } from './find-program.ts';
import { freeLoopbackPort, interactiveSession } from './interactive-session.ts';
import { stepOutcome, type EngineEnding } from './outcome.ts';
import { sandboxEnv, sandboxUid } from './sandbox-args.ts';
import type { RunningStep } from './step-process.ts';

export interface ContainerEngineOptions {
  runtime: 'docker' | 'podman';
  log: Pick<FastifyBaseLogger, 'warn'>;
  /** How often the working directory's size is measured (default 500 ms). */
  pollMs?: number;
}

/** The `run` arguments of a step: everything but the image's own choices comes from the command. */
export function containerArgs(command: StepCommand, name: string, port?: number): string[] {
  const { limits } = command;
  const cpu = Math.max(1, Math.ceil(limits.cpuSeconds));
  const args = [
    // Not --rm: the container is inspected after (was it killed for memory?), then removed.
    'run',
    '--name',
    name,
    '--read-only',
    '--tmpfs',
    '/tmp',
    '--user',
    `${sandboxUid}:${sandboxUid}`,
    '--cap-drop',
    'ALL',
    '--security-opt',
    'no-new-privileges',
    '--memory',
    String(Math.floor(limits.memoryBytes)),
    '--memory-swap',
    String(Math.floor(limits.memoryBytes)),
    '--ulimit',
    `cpu=${cpu}:${cpu + 1}`,
    '--ulimit',
    `fsize=${Math.floor(limits.outputBytes)}`,
    '--ulimit',
    'core=0',
    ...(port === undefined ? ['--network', 'none'] : ['--publish', `127.0.0.1:${port}:${port}`]),
    '--volume',
    `${command.workDir}:/work:rw`,
    '--workdir',
    '/work',
  ];
  for (const { host, sandbox } of command.mounts ?? [])
    args.push('--volume', `${host}:${sandbox}:ro`);
  for (const [key, value] of Object.entries(sandboxEnv(command.env, port)))
    args.push('--env', `${key}=${value}`);
  args.push('--entrypoint', command.argv[0]!, command.containerImage!, ...command.argv.slice(1));
  return args;
}

export function createContainerEngine(options: ContainerEngineOptions): ExecutionEngine {
  const pollMs = options.pollMs ?? 500;
  const running = new Set<RunningStep>();
  const sessions = new Map<string, InteractiveSession>();
  let closed = false;

  /** Runs `<runtime> args`, answering its exit status and what it printed. */
  const runtime = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(options.runtime, args, { stdio: ['ignore', 'pipe', 'ignore'] });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.once('error', () => resolve({ code: null, stdout }));
      child.once('close', (code) => resolve({ code, stdout }));
    });

  const start = (command: StepCommand, port?: number): RunningStep => {
    const name = `platform-step-${randomUUID()}`;
    const { limits } = command;
    let ending: EngineEnding | undefined;
    let markStarted!: () => void;
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    const end = (why: EngineEnding) => {
      ending ??= why;
      void runtime(['kill', name]);
    };
    const execute = async (): Promise<StepOutcome> => {
      await mkdir(command.logDir, { recursive: true });
      const startedAt = Date.now();
      if (!command.containerImage || closed) {
        markStarted();
        return stepOutcome({
          code: null,
          signal: null,
          ending: {
            notStarted: closed
              ? 'could not start: the engine is closing'
              : 'could not start: it names no container image',
          },
          limits,
          startedAt,
          endedAt: startedAt,
          cpuSeconds: 0,
        });
      }
      const child = spawn(options.runtime, containerArgs(command, name, port), {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const stdout = captureStream(
        child.stdout,
        join(command.logDir, 'stdout'),
        limits.outputBytes,
      );
      const stderr = captureStream(
        child.stderr,
        join(command.logDir, 'stderr'),
        limits.outputBytes,
      );
      const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
        child.once('error', (error) => resolve({ code: null, error }));
        child.once('exit', (code) => resolve({ code }));
      });
      markStarted();
      const wallClock = setTimeout(
        () => end({ limit: 'wall-clock' }),
        limits.wallClockSeconds * 1000,
      );
      const watch = setInterval(() => {
        void directorySize(command.workDir, limits.outputBytes).then((size) => {
          if (size > limits.outputBytes) end({ limit: 'output-size' satisfies LimitName });
        });
      }, pollMs);
      const result = await exited;
      clearTimeout(wallClock);
      clearInterval(watch);
      await Promise.all([stdout.finished, stderr.finished]);
      const inspected = await runtime(['inspect', '--format', '{{.State.OOMKilled}}', name]);
      if (inspected.stdout.trim() === 'true') ending ??= { limit: 'memory' };
      void runtime(['rm', '--force', name]);
      if (result.error)
        ending = { notStarted: `could not start: ${options.runtime}: ${result.error.message}` };
      if (
        !ending &&
        (await directorySize(command.workDir, limits.outputBytes)) > limits.outputBytes
      )
        ending = { limit: 'output-size' };
      const outcome = stepOutcome({
        code: result.code,
        signal: null,
        ending,
        limits,
        startedAt,
        endedAt: Date.now(),
        cpuSeconds: 0,
      });
      await writeFile(join(command.logDir, 'exit-status'), `${JSON.stringify(outcome, null, 2)}\n`);
      return outcome;
    };
    const done = execute().catch((error: Error) => {
      options.log.warn({ err: error, argv: command.argv }, 'container step failed unexpectedly');
      void runtime(['rm', '--force', name]);
      const now = Date.now();
      return stepOutcome({
        code: null,
        signal: null,
        ending: { notStarted: `could not start: ${error.message}` },
        limits,
        startedAt: now,
        endedAt: now,
        cpuSeconds: 0,
      });
    });
    const step: RunningStep = { started, done, stop: () => end({ stopped: true }) };
    running.add(step);
    void done.finally(() => running.delete(step));
    return step;
  };

  return {
    name: options.runtime,
    async available() {
      if (!(await findProgram(options.runtime)))
        return { ok: false, reason: `${options.runtime} is not installed (CONTAINER_RUNTIME)` };
      const info = await runtime(['info', '--format', '{{.ServerVersion}}']);
      return info.code === 0
        ? { ok: true }
        : {
            ok: false,
            reason: `${options.runtime} does not run here (its engine is not reachable)`,
          };
    },
    async run(command, signal) {
      const step = start(command);
      const stop = () => step.stop();
      if (signal.aborted) stop();
      signal.addEventListener('abort', stop, { once: true });
      try {
        return await step.done;
      } finally {
        signal.removeEventListener('abort', stop);
      }
    },
    async startInteractive(command, id) {
      const port = await freeLoopbackPort();
      const step = start(command, port);
      await step.started;
      const session = interactiveSession(step, port, id);
      sessions.set(session.id, session);
      void session.done.finally(() => sessions.delete(session.id));
      return session;
    },
    interactive: (id) => sessions.get(id),
    async close() {
      closed = true;
      for (const step of running) step.stop();
      await Promise.allSettled([...running].map((step) => step.done));
    },
  };
}

// The local execution engine: each step a child process of this one, sandboxed by bubblewrap
// (namespaces, a read-only system, the step's directory at /work), held to its limits by the
// kernel's per-process limits (prlimit) and by a monitor of its whole process tree.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { ExecutionEngine, InteractiveSession, StepCommand, StepOutcome } from './engine.ts';
import { findProgram } from './find-program.ts';
import { freeLoopbackPort, interactiveSession } from './interactive-session.ts';
import { sharedProcessTable } from './process-tree.ts';
import { startStep, type RunningStep, type StepTools } from './step-process.ts';
import { hostLayout, type RootEntry } from './system-layout.ts';

export interface LocalEngineOptions {
  /** Where the engine says what went wrong around a step (never the step's own output). */
  log: Pick<FastifyBaseLogger, 'warn'>;
  /** bubblewrap's executable: a path, or a name looked up on PATH (default `bwrap`). */
  bwrapPath?: string;
  /** How often each step's process tree is measured against its limits (default 100 ms). */
  pollMs?: number;
}

const bwrapMissing = 'bubblewrap (bwrap) is not installed: apt-get install bubblewrap';
const prlimitMissing = 'prlimit is not installed: apt-get install util-linux';

/** How long an ended interactive step can still be found by id. */
const endedSessionKeptMs = 60_000;

/** Limits for the one sandbox available() starts to see that namespaces can be made here. */
const probeLimits = {
  wallClockSeconds: 10,
  cpuSeconds: 5,
  memoryBytes: 256 << 20,
  outputBytes: 1 << 20,
};

export function createLocalEngine(options: LocalEngineOptions): ExecutionEngine {
  const pollMs = options.pollMs ?? 100;
  const processTable = sharedProcessTable(pollMs / 2);
  const running = new Set<RunningStep>();
  const sessions = new Map<string, InteractiveSession>();
  const layouts = new Map<boolean, Promise<RootEntry[]>>();
  let found: StepTools | undefined;
  let probed = false;
  let closed = false;

  const cachedHostLayout = (network: boolean) => {
    let layout = layouts.get(network);
    if (!layout) {
      layout = hostLayout(network);
      layouts.set(network, layout);
      layout.catch(() => layouts.delete(network));
    }
    return layout;
  };

  /** The programs steps need, found once; why not, while they are missing. */
  const tools = async (): Promise<StepTools | { unavailable: string }> => {
    if (found) return found;
    const bwrap = await findProgram(options.bwrapPath ?? 'bwrap');
    if (!bwrap) return { unavailable: bwrapMissing };
    const prlimit = await findProgram('prlimit');
    if (!prlimit) return { unavailable: prlimitMissing };
    found = {
      bwrap,
      prlimit,
      hostLayout: cachedHostLayout,
      processTable,
      pollMs,
      log: options.log,
    };
    return found;
  };

  const track = (step: RunningStep) => {
    running.add(step);
    void step.done.finally(() => running.delete(step));
    return step;
  };

  const start = async (command: StepCommand, port?: number) => {
    if (closed)
      return startStep({ unavailable: 'could not start: the engine is closing' }, command);
    return track(startStep(await tools(), command, { port }));
  };

  const engine: ExecutionEngine = {
    name: 'local',

    async available() {
      const ready = await tools();
      if ('unavailable' in ready) return { ok: false, reason: ready.unavailable };
      if (probed) return { ok: true };
      // One sandbox of `true`: bubblewrap may be installed where namespaces cannot be made.
      const dir = await mkdtemp(join(tmpdir(), 'executor-probe-'));
      try {
        const workDir = join(dir, 'work');
        await mkdir(workDir);
        const step = startStep(ready, {
          argv: ['true'],
          workDir,
          logDir: join(dir, 'log'),
          limits: probeLimits,
        });
        const outcome = await step.done;
        if (outcome.state !== 'completed') {
          return { ok: false, reason: `bubblewrap cannot make a sandbox here: ${outcome.reason}` };
        }
        probed = true;
        return { ok: true };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },

    async run(command: StepCommand, signal: AbortSignal): Promise<StepOutcome> {
      const step = await start(command);
      const abort = () => step.stop();
      if (signal.aborted) abort();
      signal.addEventListener('abort', abort, { once: true });
      try {
        return await step.done;
      } finally {
        signal.removeEventListener('abort', abort);
      }
    },

    async startInteractive(
      command: StepCommand,
      id: string = randomUUID(),
      chosenPort?: number,
    ): Promise<InteractiveSession> {
      const existing = sessions.get(id);
      if (existing && existing.status() !== 'exited') {
        throw new Error(`an interactive step ${id} is already running`);
      }
      const port = chosenPort ?? (await freeLoopbackPort());
      const step = await start(command, port);
      await step.started;
      const session = interactiveSession(step, port, id);
      sessions.set(id, session);
      void session.done.then(() => {
        const forget = setTimeout(() => {
          if (sessions.get(id) === session) sessions.delete(id);
        }, endedSessionKeptMs);
        forget.unref();
      });
      return session;
    },

    interactive: (id: string) => sessions.get(id),

    async close() {
      closed = true;
      const steps = [...running];
      for (const step of steps) step.stop();
      await Promise.all(steps.map((step) => step.done));
    },
  };
  return engine;
}

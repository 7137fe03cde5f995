// What an execution engine is: the apps service hands it a step (a program and its arguments, a
// working directory with the inputs staged in it, limits) and gets back how the step ended. The
// local engine (local-engine.ts) runs each step as a bubblewrap-sandboxed child process on this
// machine; the container engine (container-engine.ts) runs image tools on Docker, and the Slurm
// engine (slurm-engine.ts) each step as a job of a Slurm cluster, both behind this interface.

/** The limits a step runs under; each one, when passed, ends the step with that limit named. */
export interface StepLimits {
  /** Wall-clock time from start to end. */
  wallClockSeconds: number;
  /** CPU time of the step's whole process tree (user + system). */
  cpuSeconds: number;
  /** Resident memory of the step's whole process tree. */
  memoryBytes: number;
  /** Bytes the step writes into its working directory, all files together. */
  outputBytes: number;
  /** CPUs the step may use at once (the container engine's `--cpus`; the local engine ignores it). */
  cpus?: number;
  /** Processes the step may have at once (the container engine's `--pids-limit`; the local engine ignores it). */
  processes?: number;
}

/** The limit a step went over, as history and notifications name it. */
export type LimitName = 'wall-clock' | 'cpu-time' | 'memory' | 'output-size';

export interface StepCommand {
  /**
   * The program (an absolute path as the sandbox sees it) and then its arguments, each one argv
   * entry: nothing is ever passed through a shell.
   */
  argv: string[];
  /**
   * A host directory, the step's own: mounted read-write as `/work`, its working directory. The
   * inputs are staged in it before the step starts; whatever it holds afterwards is the output.
   */
  workDir: string;
  /**
   * A host directory outside `workDir` where the engine writes the step's `stdout`, `stderr` (each
   * cut at `limits.outputBytes`) and `exit-status` (the outcome as JSON) files; the step never
   * sees it.
   */
  logDir: string;
  /** Host files or directories mounted read-only at the same path inside (the tool's executable). */
  readOnly?: string[];
  /**
   * Host files or directories mounted read-only elsewhere inside (`sandbox`, an absolute path):
   * the staged inputs at `/inputs`, the tool's program at `/tool/<name>`, wherever they are on the
   * host.
   */
  mounts?: { host: string; sandbox: string }[];
  /**
   * A host directory holding an unpacked root filesystem image (unpackImage), used as `/` in place
   * of the host's system directories.
   */
  rootImage?: string;
  /**
   * An image reference (`registry/name:tag`) for the container runtime engine
   * (container-engine.ts), which pulls it when absent and runs the program in it; the local engine
   * refuses a command naming one.
   */
  containerImage?: string;
  /**
   * What a batch scheduler reserves for the step beyond its limits (the tool's CPU cores and
   * GPUs); the local engine ignores it.
   */
  resources?: { cpus?: number; gpus?: number };
  /** The environment: only these variables (and PATH, HOME=/work, and PORT for interactive steps). */
  env?: Record<string, string>;
  limits: StepLimits;
}

export interface StepOutcome {
  /** `completed`: exit status 0; `failed`: anything else, limits included; `stopped`: asked to. */
  state: 'completed' | 'failed' | 'stopped';
  exitCode: number | null;
  /** The signal that ended the program, when one did (`SIGKILL`, `SIGXCPU`, ...). */
  signal: string | null;
  /** The limit the step went over, when it did. */
  limit?: LimitName;
  /** One sentence for history and notifications: `exited with status 3`, `went over its memory limit of 64 MiB`. */
  reason: string;
  /** Milliseconds since the epoch. */
  startedAt: number;
  endedAt: number;
  /** CPU seconds the process tree used, as far as the engine saw. */
  cpuSeconds: number;
}

/** A long-running interactive step (VICE): it listens on `port` on the loopback interface. */
export interface InteractiveSession {
  readonly id: string;
  /** The loopback port the platform assigned; the program gets it as `PORT`. */
  readonly port: number;
  /** `starting` until the port accepts connections, `running` while it does, `exited` after. */
  status(): 'starting' | 'running' | 'exited';
  /** Stops it (the whole process tree); resolves with its outcome. */
  stop(): Promise<StepOutcome>;
  /** Resolves when it ends, whatever ends it (stop, its wall-clock limit, the program itself). */
  readonly done: Promise<StepOutcome>;
}

/** How the runner keeps track of a step that lives outside the gateway's process. */
export interface StepTracking {
  /**
   * Called once the engine holds the step, with what names it there (a container's name, a Slurm
   * job id), for the runner to record; the step goes on whatever this answers.
   */
  submitted?(handle: string): void | Promise<void>;
  /** A handle `submitted` gave before: the engine follows that step to its end, starting nothing. */
  attach?: string;
  /**
   * Aborted when the gateway stops for a restart: an engine holding the step outside the gateway
   * stops following it and leaves it running (`run` rejects with StepDetached), for the gateway
   * that takes the analysis over to follow through its handle. The local engine's steps are the
   * gateway's own processes and end with it: it ignores this.
   */
  detach?: AbortSignal;
}

/** `run` let go of a step that goes on outside the gateway (StepTracking.detach). */
export class StepDetached extends Error {
  /** What names the step on its engine (StepTracking.submitted's handle). */
  readonly handle: string;

  constructor(handle: string) {
    super(`the step ${handle} goes on without this gateway`);
    this.name = 'StepDetached';
    this.handle = handle;
  }
}

export interface ExecutionEngine {
  readonly name: string;
  /**
   * Whether the engine can run steps here; a reason when it cannot (bubblewrap not installed,
   * say), which a launch reports as the step's failure.
   */
  available(): Promise<{ ok: true } | { ok: false; reason: string }>;
  /**
   * Runs a batch step to its end. Aborting `signal` kills its whole process tree: `stopped`. An
   * engine whose steps outlive the gateway (a container, a batch scheduler's job) names the step
   * through `tracking.submitted` once it holds it, and follows a step named before instead of
   * starting one when `tracking.attach` is given (after a restart).
   */
  run(command: StepCommand, signal: AbortSignal, tracking?: StepTracking): Promise<StepOutcome>;
  /**
   * Starts an interactive step on a free loopback port (on `port` when given: an engine that runs
   * the step elsewhere picked it); resolves once the program has started (not waiting for the
   * port). It shares the host's network, since the gateway must reach its port.
   */
  startInteractive(command: StepCommand, id?: string, port?: number): Promise<InteractiveSession>;
  /** A running (or just ended) interactive step by id. */
  interactive(id: string): InteractiveSession | undefined;
  /** Stops every step still running (the service is closing). */
  close(): Promise<void>;
}

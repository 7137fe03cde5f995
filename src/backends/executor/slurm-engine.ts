// The Slurm engine (JOB_EXECUTOR=slurm, docs/slurm.md): each step is a Slurm job. The step's
// command is written as JSON beside a batch script in its log directory (on a filesystem the
// nodes share) and submitted with `sbatch --parsable`, with the partition, account, CPUs, memory,
// GPUs and time it asks for, within the engine's ceilings. On the node the script runs
// step-on-node.ts, which runs the command in the local engine's sandbox, so the step's limits are
// held and named there as on this machine. The job is followed with scontrol (sacct once
// scontrol has forgotten it) at the poll interval; Slurm's own endings (TIMEOUT, OUT_OF_MEMORY,
// CANCELLED, NODE_FAIL, ...) become outcomes; stopping is scancel; a controller silent for longer
// than its grace fails the step, saying so. A job is named to the runner (tracking.submitted) once
// sbatch answers, and followed again by id after a restart (tracking.attach). A submission Slurm
// refuses fails at once with sbatch's reason. An interactive step is a Slurm job too, listening on
// a loopback port picked here: the cluster must be this one machine.
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NodeContainer, NodeStep } from './node-step.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { SlurmSettings } from '../../config/index.ts';
import {
  StepDetached,
  type ExecutionEngine,
  type InteractiveSession,
  type LimitName,
  type StepCommand,
  type StepOutcome,
  type StepTracking,
} from './engine.ts';
import { findProgram } from './find-program.ts';
import { freeLoopbackPort, interactiveSession } from './interactive-session.ts';
import { formatBytes, limitReason, stepOutcome } from './outcome.ts';
import {
  hasEnded,
  parseSacct,
  parseScontrolJob,
  runCommand,
  sacctFormat,
  sbatchReason,
  type JobState,
} from './slurm-commands.ts';

export interface SlurmEngineOptions {
  settings: SlurmSettings;
  log: Pick<FastifyBaseLogger, 'warn'>;
  /**
   * The container runtime the nodes run image tools' steps on (CONTAINER_RUNTIME or
   * JOB_EXECUTOR's docker: the nodes have it), and the registry image names naming none come
   * from (DOCKER_REGISTRY); without it, a step naming an image is refused.
   */
  container?: NodeContainer;
}

/** The node runner, beside this file (step-on-node.ts from source, .js once built). */
const nodeRunner = fileURLToPath(
  new URL(`./step-on-node${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);

/** Memory Slurm reserves beyond the step's own limit, for the node runner (Node.js) itself. */
const runnerMemoryMiB = 128;

/**
 * Slurm's minutes beyond the step's wall clock: none. A minute more would let the sandbox's own
 * limit end the step first, but a partition's MaxTime is often a day, the platform's default wall
 * clock (TOOL_WALL_CLOCK_SECONDS), and Slurm refused every such step; Slurm's TIMEOUT is named
 * `wall-clock` as the sandbox's end is.
 */
const slackMinutes = 0;

/** How many polls in a row may find the job unknown to both scontrol and sacct. */
const unknownPolls = 5;

/** How long an ended interactive step can still be found by id. */
const endedSessionKeptMs = 60_000;

/** The most of the job's own stderr (slurm-<id>.err) a failure reason quotes. */
const quotedErrorChars = 300;

const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Why the engine will not submit the step (over a ceiling), or undefined. */
function overCeiling(command: StepCommand, settings: SlurmSettings): string | undefined {
  const cpus = command.resources?.cpus ?? 1;
  const gpus = command.resources?.gpus ?? 0;
  const { memoryBytes, wallClockSeconds } = command.limits;
  if (cpus > settings.maxCpus)
    return `it asks for ${cpus} CPUs, more than the ${settings.maxCpus} a step may have (SLURM_MAX_CPUS)`;
  if (gpus > settings.maxGpus)
    return `it asks for ${gpus} GPUs, more than the ${settings.maxGpus} a step may have (SLURM_MAX_GPUS)`;
  if (memoryBytes > settings.maxMemoryBytes)
    return `it asks for ${formatBytes(memoryBytes)} of memory, more than the ${formatBytes(settings.maxMemoryBytes)} a step may have (SLURM_MAX_MEMORY_MB)`;
  if (wallClockSeconds > settings.maxWallClockSeconds)
    return `it asks for ${wallClockSeconds} s, more than the ${settings.maxWallClockSeconds} s a step may have (SLURM_MAX_WALL_CLOCK_SECONDS)`;
  return undefined;
}

/** sbatch's arguments for a step whose script is `script`. */
export function sbatchArgs(
  command: StepCommand,
  settings: Pick<SlurmSettings, 'partition' | 'account'>,
  script: string,
): string[] {
  const { limits, resources } = command;
  const memoryMiB = Math.ceil(limits.memoryBytes / (1024 * 1024)) + runnerMemoryMiB;
  const minutes = Math.ceil(limits.wallClockSeconds / 60) + slackMinutes;
  return [
    '--parsable',
    '--job-name',
    'platform-step',
    ...(settings.partition ? ['--partition', settings.partition] : []),
    ...(settings.account ? ['--account', settings.account] : []),
    '--nodes=1',
    '--ntasks=1',
    `--cpus-per-task=${Math.max(1, resources?.cpus ?? 1)}`,
    `--mem=${memoryMiB}M`,
    ...(resources?.gpus ? [`--gres=gpu:${resources.gpus}`] : []),
    `--time=${minutes}`,
    // The job's environment is the script's own: nothing of the gateway's (its secrets) is passed.
    '--export=NONE',
    '--chdir',
    command.logDir,
    '--output',
    join(command.logDir, 'slurm-%j.out'),
    '--error',
    join(command.logDir, 'slurm-%j.err'),
    script,
  ];
}

/** The outcome of a job that ended as `job` says, the node runner's own when it wrote one. */
export function jobOutcome(
  job: JobState,
  command: StepCommand,
  facts: { onNode?: StepOutcome; jobId: string; cancelled: boolean; jobError: string },
): StepOutcome {
  const { onNode, jobId } = facts;
  const { limits } = command;
  const startedAt = onNode?.startedAt ?? job.startedAt ?? Date.now();
  const endedAt = onNode?.endedAt ?? job.endedAt ?? Date.now();
  const cpuSeconds = Math.max(onNode?.cpuSeconds ?? 0, job.cpuSeconds ?? 0);
  const times = { startedAt, endedAt, cpuSeconds };
  const limit: LimitName | undefined =
    job.state === 'TIMEOUT' ? 'wall-clock' : job.state === 'OUT_OF_MEMORY' ? 'memory' : undefined;
  if (limit)
    return {
      state: 'failed',
      exitCode: null,
      signal: 'SIGKILL',
      limit,
      reason: limitReason(limit, limits),
      ...times,
    };
  if (job.state === 'CANCELLED')
    return {
      state: 'stopped',
      exitCode: null,
      signal: null,
      reason: facts.cancelled ? 'was stopped' : `was cancelled in Slurm (job ${jobId})`,
      ...times,
    };
  if ((job.state === 'COMPLETED' || job.state === 'FAILED') && onNode)
    return { ...onNode, cpuSeconds };
  const reason = job.reason ? ` (${job.reason})` : '';
  return {
    state: 'failed',
    exitCode: null,
    signal: null,
    reason:
      job.state === 'COMPLETED' || job.state === 'FAILED'
        ? `Slurm job ${jobId} ended ${job.state} (exit ${job.exitCode ?? 'unknown'}) without the step's outcome${facts.jobError ? `: ${facts.jobError}` : ''}`
        : `Slurm ended job ${jobId}: ${job.state}${reason}`,
    ...times,
  };
}

export function createSlurmEngine(options: SlurmEngineOptions): ExecutionEngine {
  const { settings, log } = options;
  /** Slurm's command `program`: in SLURM_BIN_DIR when set, else on PATH. */
  const slurm = (program: string, args: string[]) =>
    runCommand(settings.binDir ? join(settings.binDir, program) : program, args);
  /** Jobs being followed, whose ends close() waits for. */
  const following = new Map<string, Promise<StepOutcome>>();
  const sessions = new Map<string, InteractiveSession>();
  /** Aborted by close(): every job still followed is cancelled. */
  const closing = new AbortController();

  /**
   * How Slurm says the job stands: scontrol while it remembers the job, then sacct; `unknown` when
   * both answered and neither knows it; what scontrol said when the controller could not be asked
   * (unreachable; sacct's word taken only for a job that ended), to ask again.
   */
  const jobState = async (
    jobId: string,
  ): Promise<JobState | 'unknown' | { unanswered: string }> => {
    const shown = await slurm('scontrol', ['show', 'job', '-o', jobId]);
    const job = shown.code === 0 ? parseScontrolJob(shown.stdout) : undefined;
    if (job && !hasEnded(job)) return job;
    // Not -X (allocations only): the allocation's line then says TotalCPU 0; without it, the first
    // line is the allocation's with its steps' CPU time summed.
    const accounted = await slurm('sacct', ['-n', '-P', '-j', jobId, '-o', sacctFormat]);
    const line = accounted.code === 0 ? accounted.stdout.split('\n')[0] : undefined;
    const accountedJob = line ? parseSacct(line) : undefined;
    if (job) return accountedJob ? { ...job, cpuSeconds: accountedJob.cpuSeconds } : job;
    const forgotten = /Invalid job id/i.test(shown.stderr);
    // The accounting database answers while the controller does not; it knows a job has ended,
    // but what it says of a running one is as old as the controller's last word: the controller
    // counts as silent until it answers again.
    if (accountedJob && (forgotten || hasEnded(accountedJob))) return accountedJob;
    if (forgotten && accounted.code === 0) return 'unknown';
    const said = (shown.stderr.trim() || shown.error?.message || 'no answer').split('\n')[0]!;
    return { unanswered: said };
  };

  const readOutcome = async (logDir: string) =>
    readFile(join(logDir, 'exit-status'), 'utf8').then(
      (text) => JSON.parse(text) as StepOutcome,
      () => undefined,
    );

  /** The start of what the job itself printed on stderr (the node runner failing to start, say). */
  const jobError = async (logDir: string, jobId: string) =>
    readFile(join(logDir, `slurm-${jobId}.err`), 'utf8').then(
      (text) => text.trim().replace(/\s+/g, ' ').slice(0, quotedErrorChars),
      () => '',
    );

  const finish = async (command: StepCommand, outcome: StepOutcome) => {
    await writeFile(join(command.logDir, 'exit-status'), `${JSON.stringify(outcome, null, 2)}\n`);
    return outcome;
  };

  /**
   * Follows job `jobId` to its end; aborting `signal` cancels it. Aborting `detach` first lets go
   * of it instead (StepDetached): the job goes on, cancelled by nothing here.
   */
  const follow = async (
    jobId: string,
    command: StepCommand,
    signal: AbortSignal,
    detach?: AbortSignal,
  ): Promise<StepOutcome> => {
    let cancelled = false;
    const cancel = () => {
      if (cancelled) return;
      cancelled = true;
      void slurm('scancel', [jobId]).then((result) => {
        if (result.code !== 0)
          log.warn({ jobId, stderr: result.stderr, err: result.error }, 'scancel failed');
      });
    };
    const letGo = () => signal.removeEventListener('abort', cancel);
    if (detach?.aborted) throw new StepDetached(jobId);
    detach?.addEventListener('abort', letGo, { once: true });
    if (signal.aborted) cancel();
    signal.addEventListener('abort', cancel, { once: true });
    try {
      let unknown = 0;
      /** Since when the controller has not answered about the job. */
      let unansweredSince: number | undefined;
      const ended = (state: 'stopped' | 'failed', reason: string) => {
        const now = Date.now();
        return finish(command, {
          state,
          exitCode: null,
          signal: null,
          reason,
          startedAt: now,
          endedAt: now,
          cpuSeconds: 0,
        });
      };
      for (;;) {
        const askedAt = Date.now();
        const job = await jobState(jobId);
        if (detach?.aborted) throw new StepDetached(jobId);
        if (typeof job === 'object' && 'unanswered' in job) {
          // Silent since it was asked: Slurm's clients try to connect for a while (about
          // MessageTimeout) before they give up.
          unansweredSince ??= askedAt;
          const silentSeconds = (Date.now() - unansweredSince) / 1000;
          if (silentSeconds > settings.controllerGraceSeconds) {
            // It may still run: asked to end, in case the controller hears it.
            cancel();
            return await ended(
              'failed',
              `Slurm's controller has not answered about job ${jobId} for ${Math.round(silentSeconds)} s (${job.unanswered}); the step is given up`,
            );
          }
        } else unansweredSince = undefined;
        if (typeof job === 'object' && 'state' in job && hasEnded(job))
          return await finish(
            command,
            jobOutcome(job, command, {
              onNode: await readOutcome(command.logDir),
              jobId,
              cancelled,
              jobError: await jobError(command.logDir, jobId),
            }),
          );
        unknown = job === 'unknown' ? unknown + 1 : 0;
        if (unknown >= unknownPolls)
          return await (cancelled
            ? ended('stopped', 'was stopped')
            : ended('failed', `Slurm no longer knows job ${jobId}`));
        await sleep(settings.pollMs);
      }
    } finally {
      signal.removeEventListener('abort', cancel);
      detach?.removeEventListener('abort', letGo);
    }
  };

  /**
   * Writes the batch script and submits it: the job id, or why Slurm (or the engine) refused. An
   * interactive step's script passes the node runner its port.
   */
  const submit = async (
    command: StepCommand,
    port?: number,
  ): Promise<{ jobId: string } | { refused: string }> => {
    if (closing.signal.aborted) return { refused: 'could not start: the engine is closing' };
    const ceiling = overCeiling(command, settings);
    if (ceiling) return { refused: `could not start: ${ceiling}` };
    await mkdir(command.logDir, { recursive: true });
    await rm(join(command.logDir, 'exit-status'), { force: true });
    const stepFile = join(command.logDir, 'slurm-step.json');
    const script = join(command.logDir, 'slurm-step.sh');
    const job: NodeStep = {
      command,
      ...(options.container ? { container: options.container } : {}),
    };
    await writeFile(stepFile, `${JSON.stringify(job)}\n`);
    const runner = [process.execPath, nodeRunner, stepFile, ...(port ? [String(port)] : [])];
    await writeFile(
      script,
      [
        '#!/bin/sh',
        '# A step of the platform gateway (src/backends/executor/slurm-engine.ts): runs its command',
        "# on this node in the local engine's sandbox (step-on-node.ts).",
        `export PATH=${quote(process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin')}`,
        // The gateway's compiled-code cache, when it has one, spares each runner compiling the
        // executor's sources again (a folder the nodes share, as JOB_WORK_DIR is).
        ...(process.env.NODE_COMPILE_CACHE
          ? [`export NODE_COMPILE_CACHE=${quote(process.env.NODE_COMPILE_CACHE)}`]
          : []),
        `exec ${runner.map(quote).join(' ')}`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const result = await slurm('sbatch', sbatchArgs(command, settings, script));
    if (result.error) return { refused: `could not start: sbatch: ${result.error.message}` };
    // --parsable prints `id` or `id;cluster`.
    const jobId = result.stdout.trim().split(';')[0] ?? '';
    if (result.code !== 0 || !/^\d+$/.test(jobId))
      return { refused: `could not start: Slurm refused it: ${sbatchReason(result.stderr)}` };
    return { jobId };
  };

  /**
   * Submits the step (or takes the job `attach` names) and follows it: its outcome once it ended.
   * A refused submission ends at once, failed, its reason recorded.
   */
  const start = async (
    command: StepCommand,
    signal: AbortSignal,
    tracking?: StepTracking,
    port?: number,
  ): Promise<StepOutcome> => {
    let jobId = tracking?.attach;
    if (!jobId) {
      const submittedAt = Date.now();
      const submitted = signal.aborted
        ? { refused: 'could not start: it was stopped before it was submitted' }
        : tracking?.detach?.aborted
          ? { refused: 'could not start: the gateway is stopping' }
          : await submit(command, port).catch((error: Error) => ({
              refused: `could not start: ${error.message}`,
            }));
      if ('refused' in submitted) {
        await mkdir(command.logDir, { recursive: true });
        return finish(
          command,
          stepOutcome({
            code: null,
            signal: null,
            ending: { notStarted: submitted.refused },
            limits: command.limits,
            startedAt: submittedAt,
            endedAt: Date.now(),
            cpuSeconds: 0,
          }),
        );
      }
      jobId = submitted.jobId;
      try {
        await tracking?.submitted?.(jobId);
      } catch (error) {
        log.warn({ err: error, jobId }, 'a Slurm job could not be recorded; it runs all the same');
      }
    }
    const done = follow(
      jobId,
      command,
      AbortSignal.any([signal, closing.signal]),
      tracking?.detach,
    );
    following.set(jobId, done);
    try {
      return await done;
    } finally {
      following.delete(jobId);
    }
  };

  return {
    name: 'slurm',
    async available() {
      for (const program of ['sbatch', 'scontrol', 'scancel', 'sacct'])
        if (!(await findProgram(settings.binDir ? join(settings.binDir, program) : program)))
          return {
            ok: false,
            reason: `Slurm's ${program} is not installed here (JOB_EXECUTOR=slurm)`,
          };
      const ping = await slurm('scontrol', ['ping']);
      if (ping.code !== 0 || !/is UP/.test(ping.stdout))
        return {
          ok: false,
          reason: `Slurm's controller does not answer (scontrol ping: ${(ping.stdout + ping.stderr).trim() || ping.error?.message || 'no answer'})`,
        };
      return { ok: true };
    },

    run: (command, signal, tracking) => start(command, signal, tracking),

    async startInteractive(command, id = randomUUID(), chosenPort) {
      const existing = sessions.get(id);
      if (existing && existing.status() !== 'exited')
        throw new Error(`an interactive step ${id} is already running`);
      // Picked here and listened on by the node: the one node is this machine.
      const port = chosenPort ?? (await freeLoopbackPort());
      const stop = new AbortController();
      let markSubmitted!: () => void;
      const submitted = new Promise<void>((resolve) => (markSubmitted = resolve));
      const done = start(command, stop.signal, { submitted: markSubmitted }, port);
      void done.finally(markSubmitted);
      await submitted;
      const session = interactiveSession(
        { started: Promise.resolve(), done, stop: () => stop.abort() },
        port,
        id,
      );
      sessions.set(id, session);
      void session.done.then(() => {
        const forget = setTimeout(() => {
          if (sessions.get(id) === session) sessions.delete(id);
        }, endedSessionKeptMs);
        forget.unref();
      });
      return session;
    },

    interactive: (id) => sessions.get(id),

    async close() {
      closing.abort();
      await Promise.allSettled([...following.values()]);
    },
  };
}

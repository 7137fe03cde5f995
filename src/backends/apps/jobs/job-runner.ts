// Running analyses: a job moves Submitted → Running → Completed or Failed (or Canceled
// when stopped); each change is recorded in its history and sent to its user as a
// job_status_change notification. Jobs run in this process on the embedded executor; the runner
// holds a lease on each (job-leases.ts) and takes over those whose gateway died.
import { randomUUID } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely, Selectable } from 'kysely';
import { jobStatusNotification, type UserNotification } from '../../../common/notifications.ts';
import type { Database } from '../../../store/schema.ts';
import type { UsageRecord } from '../../../common/usages.ts';
import { shortUsername } from '../../../common/users.ts';
import { joinDataPath } from '../../../common/data-path.ts';
import { createFolders, type DataStore } from '../../data-info/index.ts';
import { executorsByTool } from './job-executors.ts';
import { concurrentJobLimit } from './job-limits.ts';
import { StepCanceled, StepError, type StepRun } from './job-step.ts';
import { interactiveHooks } from './interactive-steps.ts';
import { checkSubmission, type CheckedSubmission } from './job-submission.ts';
import { GatewayError, gatewayError } from '../../../common/errors.ts';
import { inSpan } from '../../../common/tracing.ts';
import type { ExecutorSettings } from '../../../config/index.ts';
import { StepDetached, type ExecutionEngine } from '../../executor/index.ts';
import {
  closeSteps,
  insertSteps,
  moveStep,
  recordHandle,
  recordStepCpuSeconds,
  stepsOf,
} from './analysis-steps.ts';
import type { AppDefinition } from '../shared/index.ts';
import { JobNotices } from './job-notices.ts';
import { runSandboxedStep } from './sandbox-step.ts';
import { dataPathBelow } from './step-outputs.ts';
import { stepEnding, writeStepLogs } from './step-logs.ts';
import {
  activeStatuses,
  lapsedLeases,
  releaseLeases,
  renewLeases,
  takeOver,
  type LeaseSeen,
} from './job-leases.ts';

export type AnalysisRow = Selectable<Database['analyses']>;

/** How long a stop waits for the job to leave its logs and partial outputs before it ends it. */
const haltWaitMs = 10_000;

export { activeStatuses };

export interface RunnerOptions {
  db: Kysely<Database>;
  /** The data store the executor reads and writes (shared with data-info in this process). */
  data: () => Promise<DataStore>;
  notify: (notification: UserNotification) => Promise<boolean>;
  now: () => number;
  log: FastifyBaseLogger;
  /** The limit of users without one of their own (MAX_CONCURRENT_JOBS). */
  maxConcurrentJobs: number;
  urlImport: StepRun['urlImport'];
  /** Where user tools' steps run (the executor's door). */
  engine: ExecutionEngine;
  /** Where registry-image tools run when CONTAINER_RUNTIME is set. */
  containerEngine?: ExecutionEngine;
  executor: ExecutorSettings;
  /** Records a usage with the QMS (the CPU hours of each analysis that ends); never throws. */
  recordUsage?: (usage: UsageRecord) => Promise<boolean>;
  /**
   * How long a job stays this runner's without renewal (JOB_LEASE_SECONDS): another gateway takes
   * over a job whose lease lapsed; renewed every third of it.
   */
  leaseMs: number;
}

/** The parameters of step `index` (0-based), in the form's order. */
const parametersOfStep = (definition: AppDefinition, index: number) =>
  definition.groups
    .filter((group) => (group.step_number ?? 1) - 1 === index)
    .flatMap((group) => group.parameters);

/** `name-2026-11-21-08-30-00.123`: a result folder name from the job name and its start. */
function resultFolderName(name: string, at: number): string {
  const stamp = new Date(at).toISOString().replace(/[:T]/g, '-').replace('Z', '');
  return `${name.replace(/[/\\]/g, '_').trim() || 'analysis'}-${stamp}`;
}

/**
 * Gives the later steps that a pipeline maps step `index`'s outputs to those outputs' data paths
 * in the result folder (into `mapped`, by step and parameter id).
 */
function carryOutputs(
  definition: AppDefinition,
  index: number,
  stepName: string,
  values: Record<string, unknown>,
  resultFolder: string,
  mapped: Record<string, unknown>[],
): void {
  for (const mapping of definition.mappings ?? []) {
    if (mapping.source_step !== index) continue;
    const target = parametersOfStep(definition, mapping.target_step);
    for (const [output, input] of Object.entries(mapping.map)) {
      const name = values[output];
      if (typeof name !== 'string' || name === '')
        throw new StepError(`step ${index + 1} (${stepName}) names no file for output ${output}`);
      const dataPath = dataPathBelow(resultFolder, name);
      const kind = target.find((parameter) => parameter.id === input)?.type;
      mapped[mapping.target_step]![input] = kind === 'MultiFileSelector' ? [dataPath] : dataPath;
    }
  }
}

export class JobRunner {
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();

  /** This runner's name in leases (analyses.lease_holder). */
  readonly holder = randomUUID();

  private leaseTimer: NodeJS.Timeout | undefined;

  /**
   * Aborted as the service closes: steps held by an engine outside the gateway (a container, a
   * Slurm job) are let go of, still running, for the gateway that takes their analyses over.
   */
  private readonly detaching = new AbortController();

  private readonly options: RunnerOptions;

  /** Status notifications, each recorded with its change and delivered once. */
  private readonly notices: JobNotices;

  constructor(options: RunnerOptions) {
    this.options = options;
    this.notices = new JobNotices({
      db: options.db,
      send: (notification) => options.notify(notification),
      now: options.now,
      log: options.log,
      holder: this.holder,
      holdMs: options.leaseMs,
    });
  }

  /** Refuses (ERR_LIMIT_REACHED) unless `user` may start `count` more jobs now. */
  async makeRoom(user: string, count = 1): Promise<void> {
    const { db } = this.options;
    const active = await db
      .selectFrom('analyses')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('username', '=', user)
      .where('status', 'in', activeStatuses)
      .executeTakeFirst();
    const limit = await concurrentJobLimit(db, user, this.options.maxConcurrentJobs);
    if (Number(active?.count ?? 0) + count > limit) {
      throw gatewayError(
        'ERR_LIMIT_REACHED',
        `${user} may have ${limit} analyses submitted or running at once`,
        { limit },
      );
    }
  }

  /** Records the job (Submitted), makes its result folder as the user, and starts it. */
  async submit(user: string, submission: CheckedSubmission): Promise<AnalysisRow> {
    const { db, now } = this.options;
    await this.makeRoom(user);
    const data = await this.options.data();
    const caller = await data.writer(user);
    const started = now();
    const outputDir = data.path(submission.outputDir, 'output_dir');
    const resultFolder = submission.createOutputSubdir
      ? joinDataPath(outputDir, resultFolderName(submission.name, started), 'name')
      : outputDir;
    await createFolders(data, caller, [resultFolder]);
    // A step of an interactive tool is an `Interactive` step (VICE), any other a batch (`DE`) one.
    const stepToolIds = submission.definition.steps.flatMap((step) =>
      step.tool_id ? [step.tool_id] : [],
    );
    const interactiveTools = new Set(
      stepToolIds.length === 0
        ? []
        : (
            await db
              .selectFrom('tools')
              .select('id')
              .where('id', 'in', stepToolIds)
              .where('interactive', '=', true)
              .execute()
          ).map((tool) => tool.id),
    );

    const row: AnalysisRow = {
      id: randomUUID(),
      name: submission.name,
      description: submission.description,
      username: user,
      app_id: submission.app.id,
      app_version_id: submission.versionId,
      system_id: submission.app.system_id,
      app_name: submission.app.name,
      app_description: submission.app.description,
      result_folder: resultFolder,
      status: 'Submitted',
      start_date: started,
      end_date: null,
      deleted: false,
      notify: submission.notify,
      submission: JSON.stringify(submission.raw),
      parent_id: null,
      lease_holder: this.holder,
      lease_expires_at: started + this.options.leaseMs,
    };
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('analyses')
        .values({ ...row, deleted: false, notify: submission.notify })
        .execute();
      await trx
        .insertInto('analysis_status_updates')
        .values({
          id: randomUUID(),
          analysis_id: row.id,
          status: 'Submitted',
          message: 'submitted',
          sent_on: started,
        })
        .execute();
      await insertSteps(
        trx,
        row.id,
        submission.definition.steps.map((step) => ({
          name: step.name,
          stepType: step.tool_id && interactiveTools.has(step.tool_id) ? 'Interactive' : 'DE',
        })),
        started,
      );
      await this.notices.record(trx, row.id, statusNotification(row));
    });
    await this.notices.flush(row.id);
    this.start(row, submission);
    return row;
  }

  /** Runs the job in this process (see run), stoppable through `running`. */
  private start(
    row: AnalysisRow,
    submission: CheckedSubmission,
    resume?: { step: number; handle: string },
  ): void {
    const abort = new AbortController();
    const done = this.run(row, submission, abort.signal, resume).finally(() =>
      this.running.delete(row.id),
    );
    this.running.set(row.id, { abort, done });
  }

  /** Moves a job to `status` unless it has already ended; records and announces the change. */
  private async move(
    row: AnalysisRow,
    status: string,
    message: string,
  ): Promise<AnalysisRow | undefined> {
    const { db, now } = this.options;
    const at = now();
    const ended = !activeStatuses.includes(status);
    const moved = { ...row, status, end_date: ended ? at : row.end_date };
    const updated = await db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('analyses')
        .set({ status, ...(ended ? { end_date: at } : {}) })
        .where('id', '=', row.id)
        .where('status', 'in', activeStatuses)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      await trx
        .insertInto('analysis_status_updates')
        .values({ id: randomUUID(), analysis_id: row.id, status, message, sent_on: at })
        .execute();
      if (ended) await closeSteps(trx, row.id, status, message, at);
      await this.notices.record(trx, row.id, statusNotification(moved, message));
      return true;
    });
    if (!updated) return undefined;
    if (ended) await this.recordCpuHours(row);
    await this.notices.flush(row.id);
    return moved;
  }

  /**
   * The CPU hours an ended analysis used, recorded with the QMS as its user's cpu.hours usage
   * (ADD): the CPU seconds its engine counted for each step where it did (a container's cgroup,
   * a sandbox's process tree), else the time the step ran, one CPU (routes.md §23,
   * docs/api/qms.md); at least a millisecond for each step that ran.
   */
  private async recordCpuHours(row: AnalysisRow): Promise<void> {
    if (!this.options.recordUsage) return;
    const steps = await stepsOf(this.options.db, row.id);
    const ms = steps.reduce(
      (sum, step) =>
        step.start_date === null || step.end_date === null
          ? sum
          : // A step that ran used some time, if less than the clock's millisecond.
            sum +
            Math.max(
              1,
              step.cpu_seconds !== null && step.cpu_seconds !== undefined
                ? Number(step.cpu_seconds) * 1000
                : Number(step.end_date) - Number(step.start_date),
            ),
      0,
    );
    if (ms === 0) return;
    await this.options.recordUsage({
      username: shortUsername(row.username),
      resourceName: 'cpu.hours',
      value: ms / 3_600_000,
      updateType: 'ADD',
    });
  }

  /**
   * Runs the job's steps in turn. `resume`: the job was taken over from a gateway that is gone
   * while its step `step` (1-based) ran on an engine that holds it as `handle`: the steps before
   * it are done (only their outputs' names are carried on to later steps) and that step is
   * followed, not started.
   */
  private async run(
    row: AnalysisRow,
    submission: CheckedSubmission,
    signal: AbortSignal,
    resume?: { step: number; handle: string },
  ): Promise<void> {
    const { db, log, now } = this.options;
    const { definition } = submission;
    let current = 0;
    try {
      const running = resume
        ? row
        : await this.move(row, 'Running', 'running on the embedded executor');
      if (!running) return;
      const toolIds = definition.steps
        .map((step) => step.tool_id)
        .filter((id): id is string => id !== null);
      const tools = new Map(
        toolIds.length === 0
          ? []
          : (await db.selectFrom('tools').selectAll().where('id', 'in', toolIds).execute()).map(
              (tool) => [tool.id, tool],
            ),
      );
      const steps = await stepsOf(db, row.id);
      const data = await this.options.data();
      const caller = await data.writer(row.username);
      const outputs: string[] = [];
      // Inputs of later steps that earlier steps' outputs give (pipelines' mappings), by step and
      // parameter id.
      const mapped: Record<string, unknown>[] = definition.steps.map(() => ({}));
      for (const [index, step] of definition.steps.entries()) {
        if (signal.aborted) {
          // The step that was to run next says it never did, and why.
          await this.leaveLogs(row, submission, { index, startedAt: now() }, signal);
          return;
        }
        current = index + 1;
        const parameters = parametersOfStep(definition, index);
        const values = { ...submission.stepValuesById[index], ...mapped[index] };
        if (resume && current < resume.step) {
          carryOutputs(definition, index, step.name, values, row.result_folder, mapped);
          continue;
        }
        const followed = resume?.step === current ? resume.handle : undefined;
        const stepStarted = now();
        if (followed === undefined)
          await moveStep(db, row.id, current, 'Running', `${step.name} running`, stepStarted);
        const stepRun: StepRun = {
          data,
          caller,
          resultFolder: row.result_folder,
          values: Object.fromEntries(
            parameters
              .filter((parameter) => values[parameter.id] !== undefined)
              .map((parameter) => [parameter.name || parameter.id, values[parameter.id]]),
          ),
          signal,
          log,
          notify: this.options.notify,
          urlImport: this.options.urlImport,
        };
        const tool = step.tool_id ? tools.get(step.tool_id) : undefined;
        const builtIn = tool?.executor ? executorsByTool[tool.executor] : undefined;
        // What the step leaves in logs/ when it left nothing there itself (step-logs.ts).
        const logged = (written: string[], failure?: unknown) =>
          stepRun.logsLeft
            ? Promise.resolve()
            : this.leaveLogs(
                row,
                submission,
                { index, tool, startedAt: stepStarted, values, written, failure },
                signal,
              );
        // The launch request's context is still the active one here (run() was started within
        // it): the step's span belongs to the trace of the request that launched the analysis.
        const written = await inSpan(
          'executor step',
          {
            'analysis.id': row.id,
            'analysis.step': current,
            'analysis.step_name': step.name,
            'analysis.tool': tool?.name ?? '',
            'analysis.executor': builtIn ? `built-in ${tool?.executor}` : 'sandbox',
          },
          () =>
            this.runStep(
              stepRun,
              async () => {
                if (!tool || (tool.executor !== null && !builtIn))
                  throw new StepError(
                    `step ${current} (${step.name}): ${tool ? `tool ${tool.name} has no executor on this platform` : 'the step has no tool'}`,
                  );
                return builtIn
                  ? await builtIn(stepRun)
                  : await runSandboxedStep({
                      run: stepRun,
                      number: current,
                      tool,
                      parameters,
                      values,
                      engine: this.options.engine,
                      ...(this.options.containerEngine
                        ? { containerEngine: this.options.containerEngine }
                        : {}),
                      requested: requirementOf(submission.raw, current),
                      ranFor: (cpuSeconds) =>
                        recordStepCpuSeconds(db, row.id, index + 1, cpuSeconds),
                      settings: this.options.executor,
                      folder: path.join(
                        this.options.executor.workDir,
                        'steps',
                        `${row.id}-${current}`,
                      ),
                      sessionId: steps[index]?.external_id ?? `${row.id}-${current}`,
                      interactive: interactiveHooks(
                        db,
                        steps[index]?.external_id ?? `${row.id}-${current}`,
                        now,
                      ),
                      tracking: {
                        submitted: (handle) => recordHandle(db, row.id, current, handle),
                        ...(followed !== undefined ? { attach: followed } : {}),
                        detach: this.detaching.signal,
                      },
                    });
              },
              logged,
            ),
        );
        outputs.push(...written);
        carryOutputs(definition, index, step.name, values, row.result_folder, mapped);
        if (signal.aborted) return;
        await moveStep(db, row.id, current, 'Completed', `${step.name} completed`, now());
      }
      if (signal.aborted) {
        if (current < definition.steps.length)
          await this.leaveLogs(row, submission, { index: current, startedAt: now() }, signal);
        return;
      }
      await this.move(
        running,
        'Completed',
        outputs.length > 0 ? `wrote ${outputs.join(', ')}` : 'completed',
      );
    } catch (error) {
      // Let go of as this gateway stops: the job, still Running, is the next gateway's to follow.
      if (error instanceof StepDetached) {
        log.info(
          { analysis: row.id, step: current, handle: error.handle },
          'an analysis step goes on without this gateway; another will follow it',
        );
        return;
      }
      // Stopped before its first step began: that step says it never ran.
      if (signal.aborted && current === 0)
        await this.leaveLogs(row, submission, { index: 0, startedAt: now() }, signal);
      if (signal.aborted) return;
      const known = error instanceof StepError || error instanceof GatewayError;
      if (!known) log.error({ err: error, analysis: row.id }, 'an analysis failed');
      const reason =
        error instanceof GatewayError
          ? error.reason
          : known
            ? (error as Error).message
            : 'an internal error stopped the job';
      // An interactive session exited on purpose ends Canceled, not Failed.
      const ending = error instanceof StepCanceled ? 'Canceled' : 'Failed';
      const record = async () => {
        if (current > 0) await moveStep(db, row.id, current, ending, reason, now());
        await this.move({ ...row, status: 'Running' }, ending, reason);
      };
      await record().catch((failure: unknown) =>
        log.error({ err: failure, analysis: row.id }, 'could not record a failed analysis'),
      );
    }
  }

  /**
   * Runs one step; whatever way it ends, `logged` leaves its logs (with the error, if it failed)
   * before the error goes on.
   */
  private async runStep(
    run: StepRun,
    body: () => Promise<string[]>,
    logged: (written: string[], failure?: unknown) => Promise<void>,
  ): Promise<string[]> {
    let written: string[];
    try {
      written = await body();
    } catch (error) {
      // A step let go of has not ended: its logs are written by whoever sees it end.
      if (!(error instanceof StepDetached)) await logged([], error);
      throw error;
    }
    // A step that ended as the job was stopped is logged as stopped (its outputs are kept).
    await logged(written);
    if (run.signal.aborted) throw new StepError('stopped');
    return written;
  }

  /**
   * Writes the logs of step `index` (0-based) of the job as the user: what ran and how it ended
   * (completed; failed, with the failure's reason; stopped, with why the job was stopped; or never
   * started). A failure to write them is logged, never the job's failure.
   */
  private async leaveLogs(
    row: AnalysisRow,
    submission: CheckedSubmission,
    facts: {
      /** 0-based. */
      index: number;
      /** The step's tool, once it was looked up to run. */
      tool?: Selectable<Database['tools']>;
      startedAt: number;
      /** Its values by parameter id (the submission's when not given). */
      values?: Record<string, unknown>;
      written?: string[];
      failure?: unknown;
    },
    signal: AbortSignal,
  ): Promise<void> {
    const { index, tool, startedAt, written = [], failure } = facts;
    const { definition } = submission;
    const step = definition.steps[index];
    if (!step) return;
    const ending = stepEnding(signal, {
      began: tool !== undefined || failure !== undefined || written.length > 0,
      failure,
      startedAt,
      endedAt: this.options.now(),
    });
    try {
      const data = await this.options.data();
      await writeStepLogs(
        { data, caller: await data.writer(row.username), resultFolder: row.result_folder },
        {
          number: index + 1,
          of: definition.steps.length,
          stepName: step.name,
          ...(tool ? { tool } : {}),
          parameters: parametersOfStep(definition, index),
          values: facts.values ?? submission.stepValuesById[index] ?? {},
          written,
          ending,
        },
      );
    } catch (error) {
      this.options.log.warn(
        { err: error, analysis: row.id, step: index + 1 },
        "could not write a step's logs",
      );
    }
  }

  /**
   * A status reported from outside this process (the third-party job API's callback): records and
   * announces it as any other change. A job that ends this way stops running here too. Undefined
   * when the job had already ended.
   */
  async report(
    row: AnalysisRow,
    status: string,
    message: string,
  ): Promise<AnalysisRow | undefined> {
    if (!activeStatuses.includes(status))
      await this.halt(row.id, `the third-party job API reported it ${status}`);
    return this.move(row, status, message);
  }

  /** Stops a running job of `user`; it ends as `status` (Canceled by default). */
  async stop(row: AnalysisRow, status: string): Promise<AnalysisRow> {
    await this.halt(row.id, `the analysis was stopped (${status})`);
    return (await this.move(row, status, `stopped (${status})`)) ?? row;
  }

  /**
   * Stops the job running here, if one is, and waits (at most haltWaitMs) for it to leave its
   * logs and partial outputs, so the job's end is announced with them in its result folder.
   */
  private async halt(id: string, reason: string): Promise<void> {
    const job = this.running.get(id);
    if (!job) return;
    job.abort.abort(reason);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      job.done,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, haltWaitMs);
      }),
    ]);
    clearTimeout(timer);
  }

  /**
   * Starts following jobs: renews this runner's leases every third of the lease and takes over
   * the active jobs whose lease lapsed (their gateway died). `alone`: this process is the only
   * one using the store (SQLite, one worker), so at start every job it does not hold is taken
   * over at once, without waiting for the lease to lapse.
   */
  follow(alone: boolean): void {
    const { leaseMs, log } = this.options;
    const tick = (everyOther: boolean) =>
      this.keepLeases(everyOther).catch((error: unknown) =>
        log.error({ err: error }, "could not renew or take over analyses' leases"),
      );
    this.recovery = tick(alone);
    this.leaseTimer = setInterval(() => void tick(false), Math.max(100, Math.floor(leaseMs / 3)));
    this.leaseTimer.unref();
  }

  /**
   * One round: this runner's leases renewed (a job it runs but no longer holds, because another
   * runner took it over while this one could not renew, is stopped here), then lapsed ones taken
   * over.
   */
  private async keepLeases(everyOther: boolean): Promise<void> {
    const { db, now, leaseMs } = this.options;
    const held = await renewLeases(db, this.holder, now() + leaseMs);
    // Notifications the agent did not take when they were recorded (or whose sender died).
    await this.notices
      .sendDue()
      .catch((error: unknown) =>
        this.options.log.warn({ err: error }, 'could not send waiting job notifications'),
      );
    for (const [id, job] of this.running)
      if (!held.has(id)) job.abort.abort('another gateway took the analysis over');
    for (const seen of await lapsedLeases(db, this.holder, now(), everyOther))
      if (!this.running.has(seen.id) && (await takeOver(db, seen, this.holder, now() + leaseMs)))
        await this.takenOver(seen);
  }

  /**
   * A job taken over from a runner that is gone. A batch step running on an engine that holds it
   * outside the gateway (its handle recorded) is followed from here on, and the job goes on. Else
   * its steps ran as that gateway's processes and ended with it, so it ends Failed (history and
   * notification as any other end), and its steps' folders (staged inputs, partial outputs) are
   * removed.
   */
  private async takenOver(seen: LeaseSeen): Promise<void> {
    const { db, log } = this.options;
    const row = await db
      .selectFrom('analyses')
      .selectAll()
      .where('id', '=', seen.id)
      .executeTakeFirst();
    if (!row) return;
    const step = (await stepsOf(db, row.id)).find(
      (candidate) => candidate.status === 'Running' && candidate.engine_handle !== null,
    );
    if (step && step.step_type !== 'Interactive' && row.status === 'Running') {
      // Checked again as at launch: the app as it is now must still take this submission.
      const submission = await checkSubmission(db, row.username, JSON.parse(row.submission)).catch(
        (error: unknown) => {
          log.warn({ err: error, analysis: row.id }, 'a taken-over analysis could not go on');
          return undefined;
        },
      );
      if (submission) {
        log.info(
          { analysis: row.id, step: step.step_number, handle: step.engine_handle },
          'following an analysis taken over from a gateway that stopped',
        );
        this.start(row, submission, { step: step.step_number, handle: step.engine_handle! });
        return;
      }
    }
    const moved = await this.move(
      row,
      'Failed',
      'the platform stopped while the job ran; launch it again',
    );
    if (!moved) return;
    this.options.log.warn(
      { analysis: row.id, holder: seen.lease_holder },
      'an analysis whose gateway stopped was marked Failed',
    );
    const steps = path.join(this.options.executor.workDir, 'steps');
    for (const folder of await readdir(steps).catch(() => []))
      if (folder.replace(/-\d+$/, '') === row.id)
        await rm(path.join(steps, folder), { recursive: true, force: true });
  }

  private recovery: Promise<void> = Promise.resolve();

  /**
   * Waits for the jobs still running (the service is closing). Steps an engine holds outside the
   * gateway are let go of, still running (a restart, or another gateway, follows them on); the
   * rest, this process's own, are stopped.
   */
  async drain(): Promise<void> {
    clearInterval(this.leaseTimer);
    await this.recovery;
    this.detaching.abort();
    for (const { abort } of this.running.values()) abort.abort('the platform was shutting down');
    await Promise.allSettled([...this.running.values()].map((job) => job.done));
    // What it ran is cut off: another gateway records that now rather than when the leases lapse.
    await releaseLeases(this.options.db, this.holder).catch((error: unknown) =>
      this.options.log.warn({ err: error }, "could not release analyses' leases"),
    );
    await this.options.engine.close();
    await this.options.containerEngine?.close();
  }
}

/** The job_status_change notification of `row` as it is now (a failure's reason in its message). */
function statusNotification(row: AnalysisRow, message?: string): UserNotification {
  const notification = jobStatusNotification({
    id: row.id,
    name: row.name,
    description: row.description,
    user: row.username,
    status: row.status,
    startDate: row.start_date,
    ...(row.end_date !== null ? { endDate: row.end_date } : {}),
    resultFolder: row.result_folder,
    appName: row.app_name,
    systemId: row.system_id,
  });
  return message && row.status === 'Failed'
    ? { ...notification, message: `${notification.subject}: ${message}` }
    : notification;
}

/** A submission's resource requirement for step `number` (1-based, as app definitions number them). */
function requirementOf(raw: Record<string, unknown>, number: number): Record<string, unknown> {
  const requirements = Array.isArray(raw.requirements) ? (raw.requirements as unknown[]) : [];
  const found = requirements.find(
    (item): item is Record<string, unknown> =>
      typeof item === 'object' &&
      item !== null &&
      ((item as Record<string, unknown>).step_number ?? 1) === number,
  );
  return found ?? {};
}

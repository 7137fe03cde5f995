// Running analyses: a job moves Submitted → Running → Completed or Failed (or Canceled
// when stopped); each change is recorded in its history and sent to its user as a
// job_status_change notification. Jobs run in this process on the embedded executor.
import { randomUUID } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely, Selectable } from 'kysely';
import { jobStatusNotification, type UserNotification } from '../../common/notifications.js';
import type { Database } from '../../store/schema.js';
import type { UsageRecord } from '../../common/usages.js';
import { shortUsername } from '../../common/users.js';
import { joinDataPath } from '../../common/data-path.js';
import { createFolders, type DataStore } from '../data-info/index.js';
import { executorsByTool } from './job-executors.js';
import { concurrentJobLimit } from './job-limits.js';
import { StepCanceled, StepError, type StepRun } from './job-step.js';
import { interactiveHooks } from './interactive-steps.js';
import type { CheckedSubmission } from './job-submission.js';
import { GatewayError, gatewayError } from '../../common/errors.js';
import type { ExecutorSettings } from '../../config.js';
import type { ExecutionEngine } from '../executor/index.js';
import { closeSteps, insertSteps, moveStep, stepsOf } from './analysis-steps.js';
import type { AppDefinition } from './definition.js';
import { runSandboxedStep } from './sandbox-step.js';
import { dataPathBelow } from './step-outputs.js';

export type AnalysisRow = Selectable<Database['analyses']>;

/** Statuses a job can still leave. */
export const activeStatuses = ['Submitted', 'Running'];

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

export class JobRunner {
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();

  constructor(private readonly options: RunnerOptions) {}

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
    });
    await this.announce(row);
    const abort = new AbortController();
    const done = this.run(row, submission, abort.signal).finally(() => this.running.delete(row.id));
    this.running.set(row.id, { abort, done });
    return row;
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
      return true;
    });
    if (!updated) return undefined;
    if (ended) await this.recordCpuHours(row);
    const moved = { ...row, status, end_date: ended ? at : row.end_date };
    await this.announce(moved, message);
    return moved;
  }

  /**
   * The CPU hours an ended analysis used, recorded with the QMS as its user's cpu.hours usage
   * (ADD): the time each of its steps ran (at least a millisecond), one CPU each (routes.md §23,
   * docs/api/qms.md).
   */
  private async recordCpuHours(row: AnalysisRow): Promise<void> {
    if (!this.options.recordUsage) return;
    const steps = await stepsOf(this.options.db, row.id);
    const ms = steps.reduce(
      (sum, step) =>
        step.start_date === null || step.end_date === null
          ? sum
          : // A step that ran used some time, if less than the clock's millisecond.
            sum + Math.max(1, Number(step.end_date) - Number(step.start_date)),
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

  private async announce(row: AnalysisRow, message?: string): Promise<void> {
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
    await this.options.notify(
      message && row.status === 'Failed'
        ? { ...notification, message: `${notification.subject}: ${message}` }
        : notification,
    );
  }

  private async run(
    row: AnalysisRow,
    submission: CheckedSubmission,
    signal: AbortSignal,
  ): Promise<void> {
    const { db, log, now } = this.options;
    const { definition } = submission;
    let current = 0;
    try {
      const running = await this.move(row, 'Running', 'running on the embedded executor');
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
        if (signal.aborted) return;
        current = index + 1;
        await moveStep(db, row.id, current, 'Running', `${step.name} running`, now());
        const parameters = parametersOfStep(definition, index);
        const values = { ...submission.stepValuesById[index], ...mapped[index] };
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
        if (!tool || (tool.executor !== null && !builtIn))
          throw new StepError(
            `step ${current} (${step.name}): ${tool ? `tool ${tool.name} has no executor on this platform` : 'the step has no tool'}`,
          );
        const written = builtIn
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
              settings: this.options.executor,
              folder: path.join(this.options.executor.workDir, 'steps', `${row.id}-${current}`),
              sessionId: steps[index]?.external_id ?? `${row.id}-${current}`,
              interactive: interactiveHooks(
                db,
                steps[index]?.external_id ?? `${row.id}-${current}`,
                now,
              ),
            });
        outputs.push(...written);
        for (const mapping of definition.mappings ?? []) {
          if (mapping.source_step !== index) continue;
          const target = parametersOfStep(definition, mapping.target_step);
          for (const [output, input] of Object.entries(mapping.map)) {
            const name = values[output];
            if (typeof name !== 'string' || name === '')
              throw new StepError(
                `step ${current} (${step.name}) names no file for output ${output}`,
              );
            const dataPath = dataPathBelow(row.result_folder, name);
            const kind = target.find((parameter) => parameter.id === input)?.type;
            mapped[mapping.target_step]![input] =
              kind === 'MultiFileSelector' ? [dataPath] : dataPath;
          }
        }
        if (signal.aborted) return;
        await moveStep(db, row.id, current, 'Completed', `${step.name} completed`, now());
      }
      if (signal.aborted) return;
      await this.move(
        running,
        'Completed',
        outputs.length > 0 ? `wrote ${outputs.join(', ')}` : 'completed',
      );
    } catch (error) {
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
   * A status reported from outside this process (the third-party job API's callback): records and
   * announces it as any other change. A job that ends this way stops running here too. Undefined
   * when the job had already ended.
   */
  async report(
    row: AnalysisRow,
    status: string,
    message: string,
  ): Promise<AnalysisRow | undefined> {
    if (!activeStatuses.includes(status)) this.running.get(row.id)?.abort.abort();
    return this.move(row, status, message);
  }

  /** Stops a running job of `user`; it ends as `status` (Canceled by default). */
  async stop(row: AnalysisRow, status: string): Promise<AnalysisRow> {
    this.running.get(row.id)?.abort.abort();
    return (await this.move(row, status, `stopped (${status})`)) ?? row;
  }

  /**
   * Jobs this process left unfinished when it last stopped: nothing runs them any more, and they
   * would count against their users' limits for ever. Only safe where one process owns the store.
   */
  failInterrupted(): void {
    const recovery = (async () => {
      const left = await this.options.db
        .selectFrom('analyses')
        .selectAll()
        .where('status', 'in', activeStatuses)
        .execute();
      for (const row of left)
        await this.move(row, 'Failed', 'the platform stopped while the job ran; launch it again');
      if (left.length > 0)
        this.options.log.warn(
          { failed: left.length },
          'analyses cut off by the last stop were marked Failed',
        );
      // Their steps' folders (staged inputs, partial outputs) are of no use to anyone now.
      const steps = path.join(this.options.executor.workDir, 'steps');
      const cutOff = new Set(left.map((row) => row.id));
      for (const folder of await readdir(steps).catch(() => []))
        if (cutOff.has(folder.replace(/-\d+$/, '')))
          await rm(path.join(steps, folder), { recursive: true, force: true });
    })().catch((error: unknown) =>
      this.options.log.error({ err: error }, 'could not mark cut-off analyses Failed'),
    );
    this.recovery = recovery;
  }

  private recovery: Promise<void> = Promise.resolve();

  /** Waits for the jobs still running (the service is closing). */
  async drain(): Promise<void> {
    await this.recovery;
    for (const { abort } of this.running.values()) abort.abort();
    await Promise.allSettled([...this.running.values()].map((job) => job.done));
    await this.options.engine.close();
    await this.options.containerEngine?.close();
  }
}

// The steps of an analysis as recorded (migration 025): each step of the app it launched has its
// own row with its status and times, and its own status updates (analysis_status_updates with a
// step number). A step is `Submitted` until it starts, `Running`, then `Completed`, `Failed` or
// `Canceled`; when the analysis ends, a step still running ends as the analysis did and one never
// started is `Canceled`.
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database } from '../../../store/schema.ts';

export type StepRow = Selectable<Database['analysis_steps']>;
type Db = Kysely<Database> | Transaction<Database>;

const stepActive = ['Submitted', 'Running'];

/** Records one update of one step. */
const recordUpdate = (
  trx: Db,
  analysisId: string,
  stepNumber: number,
  status: string,
  message: string,
  at: number,
) =>
  trx
    .insertInto('analysis_status_updates')
    .values({
      id: randomUUID(),
      analysis_id: analysisId,
      step_number: stepNumber,
      status,
      message,
      sent_on: at,
    })
    .execute();

/** Records the steps of a new analysis, each `Submitted`. */
export async function insertSteps(
  trx: Db,
  analysisId: string,
  steps: { name: string; stepType: string }[],
  at: number,
): Promise<void> {
  for (const [index, step] of steps.entries()) {
    await trx
      .insertInto('analysis_steps')
      .values({
        analysis_id: analysisId,
        step_number: index + 1,
        name: step.name,
        external_id: randomUUID(),
        step_type: step.stepType,
        status: 'Submitted',
        start_date: null,
        end_date: null,
      })
      .execute();
    await recordUpdate(trx, analysisId, index + 1, 'Submitted', `${step.name} submitted`, at);
  }
}

/** Moves one step to `status` (unless it has ended) and records the update. */
export async function moveStep(
  db: Kysely<Database>,
  analysisId: string,
  stepNumber: number,
  status: string,
  message: string,
  at: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('analysis_steps')
      .set({
        status,
        ...(status === 'Running' ? { start_date: at } : {}),
        ...(!stepActive.includes(status) ? { end_date: at } : {}),
      })
      .where('analysis_id', '=', analysisId)
      .where('step_number', '=', stepNumber)
      .where('status', 'in', stepActive)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return;
    await recordUpdate(trx, analysisId, stepNumber, status, message, at);
  });
}

/** Records the CPU seconds a step's engine counted for it (migration 039). */
export async function recordStepCpuSeconds(
  db: Kysely<Database>,
  analysisId: string,
  stepNumber: number,
  cpuSeconds: number,
): Promise<void> {
  await db
    .updateTable('analysis_steps')
    .set({ cpu_seconds: cpuSeconds })
    .where('analysis_id', '=', analysisId)
    .where('step_number', '=', stepNumber)
    .execute();
}

/** The analysis ended as `status`: its steps still open end too (in the same transaction). */
export async function closeSteps(
  trx: Db,
  analysisId: string,
  status: string,
  message: string,
  at: number,
): Promise<void> {
  const open = await trx
    .selectFrom('analysis_steps')
    .select(['step_number', 'status'])
    .where('analysis_id', '=', analysisId)
    .where('status', 'in', stepActive)
    .execute();
  for (const step of open) {
    const ending = step.status === 'Running' ? status : 'Canceled';
    await trx
      .updateTable('analysis_steps')
      .set({ status: ending, end_date: at })
      .where('analysis_id', '=', analysisId)
      .where('step_number', '=', step.step_number)
      .execute();
    await recordUpdate(
      trx,
      analysisId,
      step.step_number,
      ending,
      step.status === 'Running' ? message : `not run: the analysis ended (${status})`,
      at,
    );
  }
}

/** The steps of an analysis in order (none for one recorded before steps were). */
export const stepsOf = (db: Kysely<Database>, analysisId: string): Promise<StepRow[]> =>
  db
    .selectFrom('analysis_steps')
    .selectAll()
    .where('analysis_id', '=', analysisId)
    .orderBy('step_number')
    .execute();

/**
 * Records what names step `number` of analysis `id` in the engine that holds it (a container, a
 * Slurm job), for a gateway that takes the analysis over to follow it.
 */
export async function recordHandle(
  db: Kysely<Database>,
  id: string,
  number: number,
  handle: string,
): Promise<void> {
  await db
    .updateTable('analysis_steps')
    .set({ engine_handle: handle })
    .where('analysis_id', '=', id)
    .where('step_number', '=', number)
    .execute();
}

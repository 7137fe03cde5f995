// `POST /callbacks/extapi-job/{job-id}` (routes.md §2): the third-party job API telling the apps
// service a job's new status. No identity: the job id names the analysis (on this platform an
// analysis's id is its job id). The body is `{status, message?}` or `{state: {status, message?}}`;
// the status is one of the platform's (Submitted, Running, Completed, Failed, Canceled) or of the
// third-party API's own (PENDING, QUEUED, RUNNING, FINISHED, FAILED, STOPPED, ...), any case. The
// change is recorded and announced as every status change is (JobRunner.report). A job never moves
// back (a Running job told QUEUED, or told Running again, stays as it is: 200, nothing recorded);
// an ended one stays ended (400 ERR_ILLEGAL_ARGUMENT, as for stopping it).
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { isJsonObject } from '../../../common/request-body.ts';
import { gatewayError } from '../../../common/errors.ts';
import { activeStatuses, type JobRunner } from './job-runner.ts';

/** Upper-cased status names, the platform's and the third-party API's, to the platform's. */
const statusNames: Record<string, string> = {
  SUBMITTED: 'Submitted',
  PENDING: 'Submitted',
  PROCESSING_INPUTS: 'Submitted',
  STAGING_INPUTS: 'Submitted',
  STAGED: 'Submitted',
  STAGING_JOB: 'Submitted',
  SUBMITTING: 'Submitted',
  SUBMITTING_JOB: 'Submitted',
  QUEUED: 'Submitted',
  RUNNING: 'Running',
  CLEANING_UP: 'Running',
  ARCHIVING: 'Running',
  ARCHIVING_FINISHED: 'Running',
  COMPLETED: 'Completed',
  FINISHED: 'Completed',
  FAILED: 'Failed',
  ARCHIVING_FAILED: 'Failed',
  CANCELED: 'Canceled',
  CANCELLED: 'Canceled',
  STOPPED: 'Canceled',
};

const rank = (status: string) => (status === 'Submitted' ? 0 : status === 'Running' ? 1 : 2);

export const jobCallbackRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  runner: JobRunner;
}> = async (app, { db, runner }) => {
  app.post<{ Params: { jobId: string } }>('/callbacks/extapi-job/:jobId', async (request) => {
    const body = request.body;
    const state = isJsonObject(body) && isJsonObject(body.state) ? body.state : body;
    const given = isJsonObject(state) ? state.status : undefined;
    const status = typeof given === 'string' ? statusNames[given.toUpperCase()] : undefined;
    if (!status)
      throw gatewayError(
        'ERR_BAD_OR_MISSING_FIELD',
        `"status" must be one of ${Object.keys(statusNames).join(', ')}`,
        { field: 'status', ...(typeof given === 'string' ? { status: given } : {}) },
      );
    const jobId = request.params.jobId.toLowerCase();
    const row = await db
      .selectFrom('analyses')
      .selectAll()
      .where('id', '=', jobId)
      .executeTakeFirst();
    if (!row) throw gatewayError('ERR_NOT_FOUND', `no job ${jobId}`, { id: jobId });
    const ended = () =>
      gatewayError('ERR_ILLEGAL_ARGUMENT', `analysis ${row.id} has already ended (${row.status})`, {
        id: row.id,
        status: row.status,
      });
    if (!activeStatuses.includes(row.status)) throw ended();
    if (rank(status) < rank(row.status) || status === row.status)
      return { id: row.id, status: row.status };
    const text = isJsonObject(state) ? (state.message ?? state.lastStatusMessage) : undefined;
    const message =
      typeof text === 'string' && text.trim() !== ''
        ? text.slice(0, 1000)
        : `the third-party job API reported ${String(given)}`;
    const moved = await runner.report(row, status, message);
    if (!moved) throw ended();
    return { id: moved.id, status: moved.status };
  });
};

/**
 * The one way the gateway sends a user a notification: POST /notification to the notification
 * agent (backends.md §4.1, §4.4). Notifications report something that already happened, so a
 * failure to send one must never fail (or crash) the work it reports: it is logged and reported
 * as `false`, never thrown.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Forwarder } from './proxy.js';

export interface UserNotification {
  /** `data`, `analysis`, `tool`, …: at most 32 characters, no `.`. */
  type: string;
  /** Short username of the recipient. */
  user: string;
  subject: string;
  /** Longer text; the agent shows the subject when absent. */
  message?: string;
  payload?: Record<string, unknown>;
}

/** Sends one notification; answers whether the agent accepted it. */
export async function sendNotification(
  forwarder: Forwarder,
  notification: UserNotification,
  log: Pick<FastifyBaseLogger, 'warn'>,
  requestId?: string,
): Promise<boolean> {
  const { type, user, subject, message = subject, payload = {} } = notification;
  try {
    const response = await forwarder.call(
      'notification-agent',
      {
        method: 'POST',
        path: '/notification',
        identityStyle: 'none',
        json: { type, user, subject, message, email: false, payload },
      },
      requestId,
    );
    const text = await response.body.text();
    if (response.statusCode >= 200 && response.statusCode < 300) return true;
    log.warn(
      { status: response.statusCode, body: text.slice(0, 500), type, user, subject },
      'the notification agent refused a notification',
    );
  } catch (error) {
    log.warn({ err: error, type, user, subject }, 'could not send a notification');
  }
  return false;
}

/** A job's state as its status notification reports it (spec "Payload for types data and analysis"). */
export interface JobStatusChange {
  /** The job (analysis) id. */
  id: string;
  name: string;
  description?: string;
  user: string;
  /** `Submitted`, `Running`, `Completed`, `Failed`, … */
  status: string;
  /** Milliseconds since the epoch. */
  startDate: number;
  endDate?: number;
  /** The result folder's path. */
  resultFolder: string;
  appName?: string;
  systemId?: string;
}

/** The `analysis` notification of a job status change; the listing adds the app's description. */
export function jobStatusNotification(job: JobStatusChange): UserNotification {
  return {
    type: 'analysis',
    user: job.user,
    subject: `${job.name} ${job.status.toLowerCase()}`,
    payload: {
      action: 'job_status_change',
      'analysis-details': job.appName ?? '',
      analysis_id: job.id,
      analysis_name: job.name,
      description: job.description ?? '',
      enddate: job.endDate ?? 0,
      id: job.id,
      name: job.name,
      resultfolderid: job.resultFolder,
      startdate: job.startDate,
      status: job.status,
      user: job.user,
      ...(job.systemId ? { system_id: job.systemId } : {}),
    },
  };
}

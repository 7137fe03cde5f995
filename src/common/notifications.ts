// What a notification to a user is, for every part that sends one (the gateway's routes and the
// embedded backends alike); sending is the gateway's src/http/notifications.ts.

export interface UserNotification {
  /** `data`, `analysis`, `tool`, …: at most 32 characters, no `.`. */
  type: string;
  /** Short username of the recipient. */
  user: string;
  subject: string;
  /** Longer text; the agent shows the subject when absent. */
  message?: string;
  payload?: Record<string, unknown>;
  /**
   * A UUID the agent records the notification under once: sent again with the same key, it adds
   * nothing (the `Idempotency-Key` header; job-notices.ts).
   */
  key?: string;
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

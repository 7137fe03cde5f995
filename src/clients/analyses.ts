// Calls to the analyses service as the caller (`user` = their qualified name): the per-user
// concurrent-job limits it keeps (backends.md §6), which an administrator's approval of a VICE
// access request sets.
import type { FastifyRequest } from 'fastify';
import type { Forwarder } from '../http/proxy.ts';

export interface ConcurrentJobLimit {
  username: string;
  concurrent_jobs: number;
  is_default: boolean;
}

/** Sets `username`'s concurrent-job limit (`PUT /settings/concurrent-job-limits/{username}`). */
export function setConcurrentJobLimit(
  deps: { forwarder: Forwarder },
  request: FastifyRequest,
  username: string,
  concurrentJobs: number,
): Promise<ConcurrentJobLimit> {
  return deps.forwarder.callJson<ConcurrentJobLimit>(
    'analyses',
    {
      method: 'PUT',
      path: `/settings/concurrent-job-limits/${encodeURIComponent(username)}`,
      identity: request.identity,
      identityStyle: 'qualified-user',
      json: { concurrent_jobs: concurrentJobs },
    },
    request.id,
  );
}

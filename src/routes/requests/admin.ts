// Administrators' decisions on requests (routes.md §23): marking one in progress, rejecting and
// approving it. A VICE access request's decision is also a job limit, set at the analyses service
// before the status is recorded (so the requester is told only once it holds): approval sets the
// concurrent-job limit the administrator gives (else the one asked for), rejection sets it to 0.
// A completed (approved or rejected) request is refused before anything changes.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { gatewayError } from '../../common/errors.ts';
import { documentedNotEnforced, routeSecurity } from '../../http/openapi.ts';
import { setConcurrentJobLimit } from '../../clients/analyses.ts';
import { changeRequestStatus, requestById, type ServiceRequest } from '../../clients/requests.ts';
import type { AreaDeps } from '../shared/area.ts';
import {
  AdminIdParams,
  ApprovalBody,
  RequestDetails,
  StatusBody,
  viceRequestType,
} from './schemas.ts';

const adminOptions = (summary: string, description: string, body: unknown) => ({
  ...documentedNotEnforced,
  config: { auth: 'admin' as const },
  schema: {
    tags: ['admin-requests'],
    summary,
    description,
    security: routeSecurity('admin'),
    params: AdminIdParams,
    body,
    response: { 200: RequestDetails },
  },
});

type Decision = { message?: string; concurrent_jobs?: number };

const completed = ['approved', 'rejected'];

/** The request, refused (400 ERR_ILLEGAL_ARGUMENT) when it is already approved or rejected. */
async function openRequest(deps: AreaDeps, request: FastifyRequest): Promise<ServiceRequest> {
  const found = await requestById(deps, request, (request.params as { id: string }).id);
  if (completed.includes(found.status))
    throw gatewayError('ERR_ILLEGAL_ARGUMENT', `the request is already ${found.status}`, {
      id: found.id,
      status: found.status,
    });
  return found;
}

/** The job limit an approval sets: the administrator's, else the one the requester asked for. */
function approvedJobs(found: ServiceRequest, decision: Decision): number {
  const asked = found.details.concurrent_jobs;
  const jobs = decision.concurrent_jobs ?? asked;
  if (typeof jobs !== 'number' || !Number.isInteger(jobs) || jobs < 0)
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      '"concurrent_jobs" is needed: the request does not say how many jobs',
      { field: 'concurrent_jobs' },
    );
  return jobs;
}

export async function adminRequestRoutes(app: FastifyInstance, deps: AreaDeps): Promise<void> {
  const decide = async (request: FastifyRequest, status: string) => {
    const { message } = (request.body ?? {}) as Decision;
    const id = (request.params as { id: string }).id;
    return changeRequestStatus(deps, request, id, status, message);
  };

  app.post('/admin/requests/:id/in-progress', {
    ...adminOptions(
      'Mark a request as being processed',
      'The requester is notified (`requests`) with the message.',
      StatusBody,
    ),
    handler: async (request) => {
      await openRequest(deps, request);
      return decide(request, 'in-progress');
    },
  });

  app.post('/admin/requests/:id/rejected', {
    ...adminOptions(
      'Reject a request',
      "A VICE access request's rejection sets the requester's concurrent-job limit to 0. The requester is notified (`requests`) with the message.",
      StatusBody,
    ),
    handler: async (request) => {
      const found = await openRequest(deps, request);
      if (found.request_type === viceRequestType.name)
        await setConcurrentJobLimit(deps, request, found.requesting_user, 0);
      return decide(request, 'rejected');
    },
  });

  const approve = (onlyVice: boolean) => async (request: FastifyRequest) => {
    const found = await openRequest(deps, request);
    const isVice = found.request_type === viceRequestType.name;
    if (onlyVice && !isVice)
      throw gatewayError('ERR_ILLEGAL_ARGUMENT', `the request is a ${found.request_type} request`, {
        id: found.id,
        request_type: found.request_type,
      });
    if (isVice) {
      const jobs = approvedJobs(found, (request.body ?? {}) as Decision);
      await setConcurrentJobLimit(deps, request, found.requesting_user, jobs);
    }
    return decide(request, 'approved');
  };
  const approvalDescription =
    "Approving a VICE access request sets the requester's concurrent-job limit to `concurrent_jobs` (default: the number they asked for). The requester is notified (`requests`) with the message.";

  app.post('/admin/requests/:id/approved', {
    ...adminOptions('Approve a request', approvalDescription, ApprovalBody),
    handler: approve(false),
  });

  app.post('/admin/requests/:id/approved/vice', {
    ...adminOptions(
      'Approve a VICE access request',
      `${approvalDescription} 400 ERR_ILLEGAL_ARGUMENT for a request of another type.`,
      ApprovalBody,
    ),
    handler: approve(true),
  });
}

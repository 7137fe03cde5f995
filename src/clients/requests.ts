// Calls to the requests service (backends.md §8): request types, requests filed as the caller
// (`user` parameter), their status changes. A refusal keeps the service's status and body.
import type { FastifyRequest } from 'fastify';
import type { BackendCall, Forwarder } from '../http/proxy.ts';

/** A request as the requests service answers it, with its status history. */
export interface ServiceRequest {
  id: string;
  request_type: string;
  /** Short username. */
  requesting_user: string;
  details: Record<string, unknown>;
  created_date: string;
  status: string;
  updated_date: string;
  updates?: {
    id: string;
    status: string;
    created_date: string;
    updating_user: string;
    message: string;
  }[];
}

export type RequestsCall = Omit<BackendCall, 'identity' | 'identityStyle'>;

/** A requests-service JSON answer, called as the caller (`user` = their short name). */
export function requestsJson<T>(
  deps: { forwarder: Forwarder },
  request: FastifyRequest,
  call: RequestsCall,
): Promise<T> {
  return deps.forwarder.callJson<T>(
    'requests',
    { ...call, identity: request.identity, identityStyle: 'user' },
    request.id,
  );
}

/** Registers a request type unless it is there (its limits then kept as they stand). */
export function registerRequestType(
  deps: { forwarder: Forwarder },
  request: FastifyRequest,
  name: string,
  limits: { maximumRequestsPerUser: number; maximumConcurrentRequestsPerUser: number },
): Promise<unknown> {
  return requestsJson(deps, request, {
    method: 'POST',
    path: `/request-types/${encodeURIComponent(name)}`,
    query: {
      'maximum-requests-per-user': String(limits.maximumRequestsPerUser),
      'maximum-concurrent-requests-per-user': String(limits.maximumConcurrentRequestsPerUser),
    },
  });
}

/** One request with its history (404 from the service when there is none). */
export function requestById(
  deps: { forwarder: Forwarder },
  request: FastifyRequest,
  id: string,
): Promise<ServiceRequest> {
  return requestsJson<ServiceRequest>(deps, request, {
    method: 'GET',
    path: `/requests/${encodeURIComponent(id)}`,
  });
}

/** Adds a status to a request's history as the caller; the service tells the requester. */
export function changeRequestStatus(
  deps: { forwarder: Forwarder },
  request: FastifyRequest,
  id: string,
  status: string,
  message: string | undefined,
): Promise<ServiceRequest> {
  return requestsJson<ServiceRequest>(deps, request, {
    method: 'POST',
    path: `/requests/${encodeURIComponent(id)}/status`,
    json: { status, ...(message !== undefined ? { message } : {}) },
  });
}

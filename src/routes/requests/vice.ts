// A user's VICE access requests (routes.md §23, clients.md "vice"): filing one (the `vice` request
// type registered on first use, with its limits), listing one's own and reading one. The requests
// service names the requester by the `user` it is given, so a user reaches only their own.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { gatewayError, GatewayError } from '../../common/errors.ts';
import { documentedNotEnforced, routeSecurity } from '../../http/openapi.ts';
import {
  registerRequestType,
  requestById,
  requestsJson,
  type ServiceRequest,
} from '../../clients/requests.ts';
import type { AreaDeps } from '../shared/area.ts';
import {
  RequestDetails,
  RequestIdParams,
  RequestListing,
  ViceRequestBody,
  viceRequestType,
} from './schemas.ts';

const userOptions = (summary: string, description: string, schema: Record<string, unknown>) => ({
  ...documentedNotEnforced,
  config: { auth: 'user' as const },
  schema: {
    tags: ['requests'],
    summary,
    description,
    security: routeSecurity('user'),
    ...schema,
  },
});

type ViceRequest = {
  name?: string;
  email?: string;
  intended_use: string;
  concurrent_jobs: number;
};

/** The requester's name as their token has it, else as they typed it. */
function nameOf(request: FastifyRequest, typed: string | undefined): string | undefined {
  const identity = request.identity!;
  const joined = [identity.firstName, identity.lastName].filter(Boolean).join(' ');
  return identity.name || joined || typed;
}

export async function viceRequestRoutes(app: FastifyInstance, deps: AreaDeps): Promise<void> {
  app.get('/requests/vice', {
    ...userOptions(
      "List the caller's VICE access requests",
      'Every VICE access request the caller has filed, completed ones too, oldest first.',
      { response: { 200: RequestListing } },
    ),
    handler: async (request) =>
      requestsJson(deps, request, {
        method: 'GET',
        path: '/requests',
        query: {
          'request-type': viceRequestType.name,
          'requesting-user': request.identity!.username,
          'include-completed': 'true',
        },
      }),
  });

  app.post('/requests/vice', {
    ...userOptions(
      'Ask for access to VICE (interactive analyses)',
      `A user may file ${viceRequestType.maximumRequestsPerUser} VICE access request (400 ERR_LIMIT_REACHED for another). The requester's name and e-mail address are taken from their sign-in where it has them. The requester is notified (\`requests\`) of its receipt and of each later status.`,
      { body: ViceRequestBody, response: { 200: RequestDetails } },
    ),
    handler: async (request) => {
      const body = request.body as ViceRequest;
      await registerRequestType(deps, request, viceRequestType.name, viceRequestType);
      const name = nameOf(request, body.name);
      const email = request.identity!.email ?? body.email;
      return requestsJson<ServiceRequest>(deps, request, {
        method: 'POST',
        path: '/requests',
        json: {
          request_type: viceRequestType.name,
          details: { ...body, ...(name ? { name } : {}), ...(email ? { email } : {}) },
        },
      });
    },
  });

  app.get('/requests/vice/:requestId', {
    ...userOptions(
      'One of the caller’s VICE access requests',
      'With its status history; 404 for another user’s request or a request of another type.',
      { params: RequestIdParams, response: { 200: RequestDetails } },
    ),
    handler: async (request) => {
      const { requestId } = request.params as { requestId: string };
      const notFound = () =>
        gatewayError('ERR_NOT_FOUND', `no VICE access request with id "${requestId}"`, {
          id: requestId,
        });
      const found = await requestById(deps, request, requestId).catch((error: unknown) => {
        if (error instanceof GatewayError && error.statusCode === 404) throw notFound();
        throw error;
      });
      if (
        found.request_type !== viceRequestType.name ||
        found.requesting_user !== request.identity!.username
      )
        throw notFound();
      return found;
    },
  });
}

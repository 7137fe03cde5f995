// Tags: requests, admin-requests, admin-request-types. routes.md §23: the requests service keeps
// request types, requests and their status history (and tells the requester of each status); the
// gateway files VICE access requests for users (vice.ts) and carries out what an administrator's
// decision means (admin.ts: an approved VICE request sets the requester's concurrent-job limit, a
// rejected one sets it to 0). Listing and reading requests and types are passthroughs.
import type { FastifyInstance } from 'fastify';
import type { PassthroughRoute } from '../../http/passthrough.ts';
import type { AreaDeps } from '../shared/area.ts';
import type { Tag } from '../shared/tags.ts';
import { adminRequestRoutes } from './admin.ts';
import { viceRequestRoutes } from './vice.ts';

export const requestPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: 'GET',
    path: '/admin/request-types',
    backend: 'requests',
    backendPath: '/request-types',
    auth: 'admin',
    tag: 'admin-request-types',
    summary: 'List request types',
  },
  {
    method: ['GET', 'POST', 'PATCH'],
    path: '/admin/request-types/{name}',
    backend: 'requests',
    backendPath: '/request-types/{name}',
    auth: 'admin',
    tag: 'admin-request-types',
    summary: 'Get, register or update a request type',
  },
  {
    method: 'GET',
    path: '/admin/requests',
    backend: 'requests',
    backendPath: '/requests',
    auth: 'admin',
    tag: 'admin-requests',
    summary: 'List requests',
  },
  {
    method: 'GET',
    path: '/admin/requests/{id}',
    backend: 'requests',
    backendPath: '/requests/{id}',
    auth: 'admin',
    tag: 'admin-requests',
    summary: 'Get a request',
  },
];

export async function requestRoutes(app: FastifyInstance, deps: AreaDeps): Promise<void> {
  await viceRequestRoutes(app, deps);
  await adminRequestRoutes(app, deps);
}

// Tags: admin-settings, admin.
import type { PassthroughRoute } from '../http/passthrough.js';

export const adminRoutes: PassthroughRoute[] = [
  {
    method: 'GET',
    path: '/admin/settings/concurrent-job-limits',
    backend: 'analyses',
    backendPath: '/settings/concurrent-job-limits',
    auth: 'admin',
    tag: 'admin-settings',
    summary: 'List concurrent job limits',
  },
  {
    method: ['GET', 'PUT', 'DELETE'],
    path: '/admin/settings/concurrent-job-limits/{username}',
    backend: 'analyses',
    backendPath: '/settings/concurrent-job-limits/{username}',
    auth: 'admin',
    tag: 'admin-settings',
    summary: "Get, set or reset a user's concurrent job limit",
  },
  {
    method: 'GET',
    path: '/admin/groups/workshop',
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary: 'Get the workshop group',
  },
  {
    method: ['GET', 'PUT'],
    path: '/admin/groups/workshop/members',
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary: 'List or replace the workshop group members',
  },
  {
    method: ['GET', 'POST'],
    path: '/admin/integration-data',
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary: 'List or add integration data',
  },
  {
    method: ['GET', 'PUT', 'DELETE'],
    path: '/admin/integration-data/{id}',
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary: 'Get, update or delete integration data',
  },
];

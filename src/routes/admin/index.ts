// The admin area (routes.md §24, and §9 ontologies, §8 the admin's view of OAuth tokens): tags
// admin, admin-settings, admin-user-info, admin-token. All passthroughs, admins only.
import type { PassthroughRoute } from '../../http/passthrough.js';
import type { Tag } from '../shared/tags.js';
import { ontologyPassthroughs } from './ontologies.js';

export const adminPassthroughs: PassthroughRoute<Tag>[] = [
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
  {
    method: ['GET', 'DELETE'],
    path: '/admin/oauth/token-info/{api-name}',
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary:
      'Get (`{access_token, expires_at, refresh_token, webapp}`) or delete the OAuth token of `proxy-user` (default: the caller)',
  },
  ...ontologyPassthroughs,
];

// Tags: admin-apps, app-metadata (app metadata administration).
import type { PassthroughRoute } from '../http/passthrough.js';

export const appMetadataRoutes: PassthroughRoute[] = [
  { method: 'GET', path: '/admin/apps/categories', backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'List app categories' },
  { method: 'GET', path: '/admin/apps/categories/search', backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'Search app categories by name' },
  { method: 'POST', path: '/admin/apps/categories/{system-id}', backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'Add an app category' },
  { method: ['DELETE', 'PATCH'], path: '/admin/apps/categories/{system-id}/{category-id}', backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'Delete or update an app category' },
  { method: ['GET', 'POST', 'PUT'], path: '/admin/apps/{app-id}/metadata', backend: 'apps', auth: 'admin', tag: 'app-metadata', summary: 'Get, add or replace app metadata' },
  { method: ['GET', 'DELETE'], path: '/admin/workspaces', backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'List or delete workspaces' },
];

// Tags: admin-apps, admin-tools, admin-tool-requests, admin-reference-genomes.
import { Type } from 'typebox';
import type { PassthroughRoute } from '../http/passthrough.js';
import { AppListing, ErrorAnswer, listingParameters } from './app-schemas.js';

const AdminListingQuery = Type.Object(
  { ...listingParameters, 'app-subset': Type.Optional(Type.String({ description: 'public (default), private or all' })) },
  { additionalProperties: true },
);

/** `{categories: [{app_id, category_ids}]}`: each app's public categories become exactly those listed. */
const Placements = Type.Object({
  categories: Type.Array(
    Type.Object({
      system_id: Type.Optional(Type.String({ description: 'de (the default)' })),
      app_id: Type.String({ format: 'uuid' }),
      category_ids: Type.Array(Type.String({ format: 'uuid' }), { description: 'Empty: out of every public category' }),
    }),
  ),
});

const app = '/admin/apps/{system-id}/{app-id}';
const version = `${app}/versions/{version-id}`;

export const adminAppsRoutes: PassthroughRoute[] = [
  {
    method: 'GET', path: '/admin/apps', backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'List apps of a subset, each with job_stats',
    query: AdminListingQuery, responses: { 200: AppListing, 400: ErrorAnswer },
  },
  {
    method: 'POST', path: '/admin/apps', backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'Place apps in public categories',
    body: Placements, responses: { 200: Placements, 400: ErrorAnswer, 404: ErrorAnswer },
  },
  { method: 'GET', path: '/admin/apps/publication-requests', backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'List app publication requests' },
  { method: 'POST', path: '/admin/apps/sharing', backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'Share apps' },
  { method: 'POST', path: '/admin/apps/unsharing', backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'Unshare apps' },
  { method: 'POST', path: '/admin/apps/shredder', backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'Delete apps' },
  { method: ['DELETE', 'PATCH'], path: app, backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'Delete or update an app' },
  { method: ['POST', 'DELETE'], path: `${app}/blessing`, backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'Mark or unmark an app as reviewed' },
  { method: 'GET', path: `${app}/details`, backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'Get app details' },
  { method: ['PATCH', 'POST'], path: `${app}/documentation`, backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'Update or add app documentation' },
  { method: 'POST', path: `${app}/publish`, backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'Publish an app' },
  { method: 'PUT', path: `${app}/integration-data/{integration-data-id}`, backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'Set the integration data of an app' },
  { method: 'PATCH', path: version, backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'Update an app version' },
  { method: 'GET', path: `${version}/details`, backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'Get app version details' },
  { method: ['PATCH', 'POST'], path: `${version}/documentation`, backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'Update or add app version documentation' },
  { method: 'PUT', path: `${version}/integration-data/{integration-data-id}`, backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'Set the integration data of an app version' },
  { method: 'GET', path: '/admin/apps/communities/{community-id}/apps', backend: 'apps', auth: 'admin', tag: 'admin-apps', summary: 'List the apps of a community' },
  { method: 'GET', path: '/admin/tools', backend: 'apps', auth: 'admin', tag: 'admin-tools', summary: 'Search and list tools' },
  { method: ['GET', 'DELETE', 'PATCH'], path: '/admin/tools/{tool-id}', backend: 'apps', auth: 'admin', tag: 'admin-tools', summary: 'Get, delete or update a tool' },
  { method: 'GET', path: '/admin/tools/{tool-id}/apps', backend: 'apps', auth: 'admin', tag: 'admin-tools', summary: 'List the apps that use a tool' },
  { method: 'PUT', path: '/admin/tools/{tool-id}/integration-data/{integration-data-id}', backend: 'apps', auth: 'admin', tag: 'admin-tools', summary: 'Set the integration data of a tool' },
  { method: 'POST', path: '/admin/tools/{tool-id}/publish', backend: 'apps', auth: 'admin', tag: 'admin-tools', summary: 'Publish a tool' },
  { method: 'GET', path: '/admin/tool-requests', backend: 'apps', auth: 'admin', tag: 'admin-tool-requests', summary: 'List tool requests' },
  { method: ['GET', 'DELETE'], path: '/admin/tool-requests/{request-id}', backend: 'apps', auth: 'admin', tag: 'admin-tool-requests', summary: 'Get or delete a tool request' },
  { method: 'DELETE', path: '/admin/tool-requests/status-codes/{status-code-id}', backend: 'apps', auth: 'admin', tag: 'admin-tool-requests', summary: 'Delete a tool request status code' },
  { method: 'POST', path: '/admin/tool-requests/{request-id}/status', backend: 'apps', auth: 'admin', tag: 'admin-tool-requests', summary: 'Update the status of a tool request' },
  { method: 'POST', path: '/admin/reference-genomes', backend: 'apps', auth: 'admin', tag: 'admin-reference-genomes', summary: 'Add a reference genome' },
  { method: ['DELETE', 'PATCH'], path: '/admin/reference-genomes/{reference-genome-id}', backend: 'apps', auth: 'admin', tag: 'admin-reference-genomes', summary: 'Delete or update a reference genome' },
];

// Tags: tools, gpu-models, tool-requests, reference-genomes, webhooks.
import type { PassthroughRoute } from '../http/passthrough.js';

export const toolsRoutes: PassthroughRoute[] = [
  { method: ['GET', 'POST'], path: '/tools', backend: 'apps', tag: 'tools', summary: 'Search tools or import a private tool' },
  { method: 'POST', path: '/tools/permission-lister', backend: 'apps', tag: 'tools', summary: 'List tool permissions' },
  { method: 'POST', path: '/tools/sharing', backend: 'apps', tag: 'tools', summary: 'Share tools' },
  { method: 'POST', path: '/tools/unsharing', backend: 'apps', tag: 'tools', summary: 'Unshare tools' },
  { method: 'GET', path: '/tools/gpu-models', backend: 'apps', tag: 'gpu-models', summary: 'List GPU models' },
  { method: ['GET', 'PATCH', 'DELETE'], path: '/tools/{tool-id}', backend: 'apps', tag: 'tools', summary: 'Get, update or delete a tool' },
  { method: 'GET', path: '/tools/{tool-id}/apps', backend: 'apps', tag: 'tools', summary: 'List the apps that use a tool' },
  { method: 'GET', path: '/tools/{tool-id}/integration-data', backend: 'apps', tag: 'tools', summary: 'Get the integration data of a tool' },
  { method: 'GET', path: '/tool-requests', backend: 'apps', tag: 'tool-requests', summary: "List the user's tool requests" },
  { method: 'GET', path: '/tool-requests/status-codes', backend: 'apps', tag: 'tool-requests', summary: 'List tool request status codes' },
  { method: 'GET', path: '/reference-genomes', backend: 'apps', tag: 'reference-genomes', summary: 'List reference genomes' },
  { method: 'GET', path: '/reference-genomes/{reference-genome-id}', backend: 'apps', tag: 'reference-genomes', summary: 'Get a reference genome' },
  { method: ['GET', 'PUT'], path: '/webhooks', backend: 'apps', tag: 'webhooks', summary: 'List or replace webhooks' },
  { method: 'GET', path: '/webhooks/topics', backend: 'apps', tag: 'webhooks', summary: 'List webhook topics' },
  { method: 'GET', path: '/webhooks/types', backend: 'apps', tag: 'webhooks', summary: 'List webhook types' },
];

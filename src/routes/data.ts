// Tags: data, admin-filesystem (data metadata, metadata templates, file types).
import type { FastifyInstance } from 'fastify';
import type { GatewayConfig } from '../config.js';
import type { PassthroughRoute } from '../http/passthrough.js';
import type { Forwarder } from '../http/proxy.js';

export const dataRoutes: PassthroughRoute[] = [
  { method: 'GET', path: '/filesystem/{data-id}/metadata', backend: 'data-info', backendPath: '/data/{data-id}/metadata', auth: 'optional', securedAlias: true, tag: 'data', summary: 'Get the metadata of a file or folder' },
  { method: 'POST', path: '/filesystem/{data-id}/metadata/copy', backend: 'data-info', backendPath: '/data/{data-id}/metadata/copy', securedAlias: true, tag: 'data', summary: 'Copy metadata to other files or folders' },
  { method: 'POST', path: '/filesystem/{data-id}/metadata/save', backend: 'data-info', backendPath: '/data/{data-id}/metadata/save', securedAlias: true, tag: 'data', summary: 'Save metadata to a file' },
  { method: 'POST', path: '/filesystem/{data-id}/ore/save', backend: 'data-info', backendPath: '/data/{data-id}/ore/save', securedAlias: true, tag: 'data', summary: 'Export metadata as OAI-ORE' },
  { method: 'POST', path: '/filesystem/metadata/search', backend: 'metadata', backendPath: '/avus/search', auth: 'optional', securedAlias: true, tag: 'data', summary: 'Search metadata' },
  { method: 'GET', path: '/filesystem/metadata/templates', backend: 'metadata', backendPath: '/templates', auth: 'optional', securedAlias: true, tag: 'data', summary: 'List metadata templates' },
  { method: 'GET', path: '/filesystem/metadata/template/{template-id}', backend: 'metadata', backendPath: '/templates/{template-id}', auth: 'optional', securedAlias: true, tag: 'data', summary: 'Get a metadata template' },
  { method: 'GET', path: '/filesystem/metadata/template/{template-id}/blank-csv', backend: 'metadata', backendPath: '/templates/{template-id}/blank-csv', securedAlias: true, tag: 'data', summary: 'Download a blank CSV for a metadata template' },
  { method: 'GET', path: '/filesystem/metadata/template/{template-id}/guide-csv', backend: 'metadata', backendPath: '/templates/{template-id}/guide-csv', securedAlias: true, tag: 'data', summary: 'Download a guide CSV for a metadata template' },
  { method: 'GET', path: '/filesystem/metadata/template/{template-id}/zip-csv', backend: 'metadata', backendPath: '/templates/{template-id}/zip-csv', securedAlias: true, tag: 'data', summary: 'Download the CSV files of a metadata template as a zip' },
  { method: 'GET', path: '/filesystem/metadata/template/attr/{attribute-id}', backend: 'metadata', backendPath: '/templates/attr/{attribute-id}', auth: 'optional', securedAlias: true, tag: 'data', summary: 'Get a metadata template attribute' },
  { method: ['GET', 'POST'], path: '/admin/filesystem/metadata/templates', backend: 'metadata', backendPath: '/admin/templates', auth: 'data-store-admin', tag: 'admin-filesystem', summary: 'List or add metadata templates' },
  { method: 'DELETE', path: '/admin/filesystem/metadata/templates/{template-id}', backend: 'metadata', backendPath: '/admin/templates/{template-id}', auth: 'data-store-admin', tag: 'admin-filesystem', summary: 'Delete a metadata template' },
  { method: 'GET', path: '/filetypes/type-list', backend: 'data-info', backendPath: '/file-types', auth: 'optional', securedAlias: true, tag: 'data', summary: 'List file types' },
];

export interface DataDeps {
  forwarder: Forwarder;
  config: GatewayConfig;
}

/** Sharing (routes.md §13): one data-info call per sharee, per-path results. */
// TODO(issue 4)
export async function sharingRoutes(_app: FastifyInstance, _deps: DataDeps): Promise<void> {}

// Tags: filesystem.
import type { FastifyInstance } from 'fastify';
import type { GatewayConfig } from '../config.js';
import type { PassthroughRoute } from '../http/passthrough.js';
import type { Forwarder } from '../http/proxy.js';

export const filesystemRoutes: PassthroughRoute[] = [
  { method: 'POST', path: '/secured/filesystem/exists', backend: 'data-info', backendPath: '/existence-marker', tag: 'filesystem', summary: 'Check whether paths exist' },
  { method: 'POST', path: '/secured/filesystem/tickets', backend: 'data-info', backendPath: '/tickets', tag: 'filesystem', summary: 'Create access tickets' },
  { method: 'POST', path: '/secured/filesystem/list-tickets', backend: 'data-info', backendPath: '/ticket-lister', tag: 'filesystem', summary: 'List the tickets of paths' },
  { method: 'POST', path: '/secured/filesystem/delete-tickets', backend: 'data-info', backendPath: '/ticket-deleter', tag: 'filesystem', summary: 'Delete tickets' },
  { method: 'POST', path: '/filesystem/path-list-creator', backend: 'data-info', backendPath: '/path-list-creator', securedAlias: true, tag: 'filesystem', summary: 'Create a path-list file' },
  { method: 'POST', path: '/filesystem/directories', backend: 'data-info', backendPath: '/data/directories', securedAlias: true, tag: 'filesystem', summary: 'Create folders' },
  { method: 'POST', path: '/filesystem/move', backend: 'data-info', backendPath: '/mover', securedAlias: true, tag: 'filesystem', summary: 'Move files and folders' },
  { method: 'POST', path: '/filesystem/delete', backend: 'data-info', backendPath: '/deleter', securedAlias: true, tag: 'filesystem', summary: 'Move files and folders to the trash' },
  { method: 'DELETE', path: '/filesystem/trash', backend: 'data-info', backendPath: '/trash', securedAlias: true, tag: 'filesystem', summary: 'Empty the trash' },
  { method: 'POST', path: '/filesystem/restore', backend: 'data-info', backendPath: '/restorer', securedAlias: true, tag: 'filesystem', summary: 'Restore items from the trash' },
  { method: 'POST', path: '/filesystem/user-permissions', backend: 'data-info', backendPath: '/permissions-gatherer', securedAlias: true, tag: 'filesystem', summary: 'List the user permissions of paths' },
  { method: 'POST', path: '/filesystem/anon-files', backend: 'data-info', backendPath: '/anonymizer', securedAlias: true, tag: 'filesystem', summary: 'Make files publicly readable' },
];

export interface FilesystemDeps {
  forwarder: Forwarder;
  config: GatewayConfig;
}

/** Filesystem routes that reshape data-info answers or take several calls (routes.md §12). */
// TODO(issue 4)
export async function filesystemAggregateRoutes(_app: FastifyInstance, _deps: FilesystemDeps): Promise<void> {}

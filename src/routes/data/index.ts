// The data area (routes.md §13, §20): files and folders as data (tag data: file types, sharing,
// AVU metadata and its files, sharing.ts and metadata*.ts), metadata templates (tag
// admin-filesystem) and each user's tags on them (tag tags, tags.ts).
import type { FastifyInstance } from 'fastify';
import type { PassthroughRoute } from '../../http/passthrough.ts';
import type { Tag } from '../shared/tags.ts';
import { fileTypeRoutes } from './file-types.ts';
import { dataMetadataRoutes } from './metadata.ts';
import { sharingRoutes, type DataDeps } from './sharing.ts';
import { dataTagPassthroughs, dataTagRoutes } from './tags.ts';

// File and folder metadata (AVUs, saving, ORE, CSV) are aggregates in metadata.ts.
const dataFileRows: PassthroughRoute<Tag>[] = [
  {
    method: 'GET',
    path: '/filesystem/metadata/templates',
    backend: 'metadata',
    backendPath: '/templates',
    auth: 'optional',
    securedAlias: true,
    tag: 'data',
    summary: 'List metadata templates',
  },
  {
    method: 'GET',
    path: '/filesystem/metadata/template/{template-id}',
    backend: 'metadata',
    backendPath: '/templates/{template-id}',
    auth: 'optional',
    securedAlias: true,
    tag: 'data',
    summary: 'Get a metadata template',
  },
  {
    method: 'GET',
    path: '/filesystem/metadata/template/{template-id}/blank-csv',
    backend: 'metadata',
    backendPath: '/templates/{template-id}/blank-csv',
    securedAlias: true,
    tag: 'data',
    summary: 'Download a blank CSV for a metadata template',
  },
  {
    method: 'GET',
    path: '/filesystem/metadata/template/{template-id}/guide-csv',
    backend: 'metadata',
    backendPath: '/templates/{template-id}/guide-csv',
    securedAlias: true,
    tag: 'data',
    summary: 'Download a guide CSV for a metadata template',
  },
  {
    method: 'GET',
    path: '/filesystem/metadata/template/{template-id}/zip-csv',
    backend: 'metadata',
    backendPath: '/templates/{template-id}/zip-csv',
    securedAlias: true,
    tag: 'data',
    summary: 'Download the CSV files of a metadata template as a zip',
  },
  {
    method: 'GET',
    path: '/filesystem/metadata/template/attr/{attribute-id}',
    backend: 'metadata',
    backendPath: '/templates/attr/{attribute-id}',
    auth: 'optional',
    securedAlias: true,
    tag: 'data',
    summary: 'Get a metadata template attribute',
  },
  {
    method: ['GET', 'POST'],
    path: '/admin/filesystem/metadata/templates',
    backend: 'metadata',
    backendPath: '/admin/templates',
    auth: 'data-store-admin',
    tag: 'admin-filesystem',
    summary: 'List or add metadata templates',
  },
  {
    method: 'DELETE',
    path: '/admin/filesystem/metadata/templates/{template-id}',
    backend: 'metadata',
    backendPath: '/admin/templates/{template-id}',
    auth: 'data-store-admin',
    tag: 'admin-filesystem',
    summary: 'Delete a metadata template',
  },
  {
    method: 'GET',
    path: '/filetypes/type-list',
    backend: 'data-info',
    backendPath: '/file-types',
    auth: 'optional',
    securedAlias: true,
    tag: 'data',
    summary: 'List file types',
  },
];

export const dataPassthroughs: PassthroughRoute<Tag>[] = [...dataFileRows, ...dataTagPassthroughs];

export async function dataRoutes(app: FastifyInstance, deps: DataDeps): Promise<void> {
  await app.register(sharingRoutes, deps);
  await app.register(dataMetadataRoutes, deps);
  await app.register(dataTagRoutes, deps);
  await app.register(fileTypeRoutes, deps);
}

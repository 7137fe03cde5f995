// The administrators' routes of the apps service in the authorization matrix (apps.md,
// tools.md, reference-genomes.md), refused to everyone but administrators as admin.ts says: any
// user's app (the owner's private one) and tool requests, and the catalog's own categories,
// tools, reference genomes and integrator records, which an administrator makes here.
import { builtInApps } from '../../src/backends/apps/catalog/built-in.ts';
import { adminKind } from './admin.ts';
import { forbidden, type Kind, type Resource, type Row } from './model.ts';
import { bystander, markerOf, type Call } from './platform.ts';

const get = (url: string): Call => ({ method: 'GET', url });

const tool = (name: string) => ({
  name,
  description: `${name}, imported by an administrator`,
  type: 'executable',
  version: '1.0',
  location: '/usr/bin',
  container: { image: { name: 'authz/admin-tool', tag: '1' } },
});

export const adminAppKinds: Record<string, Kind> = {
  category: adminKind(
    'a public app category an administrator made',
    async (platform, marker) => {
      const made = await platform.ok('admin', {
        method: 'POST',
        url: '/admin/apps/categories/de',
        json: { name: marker },
      });
      return { id: made.id };
    },
    () => [get('/admin/apps/categories')],
  ),
  'admin tool': adminKind(
    'a tool an administrator imported',
    async (platform, marker) => {
      const made = await platform.ok('admin', {
        method: 'POST',
        url: '/admin/tools',
        json: { tools: [tool(marker)] },
      });
      const id = made.tool_ids[0];
      const record = await platform.ok('admin', get(`/tools/${id}/integration-data`));
      return { id, integrationData: record.id };
    },
    (tool) => [get(`/admin/tools/${tool.id}`)],
  ),
  'integration data': adminKind(
    'an integrator record an administrator made',
    async (platform, marker) => {
      const made = await platform.ok('admin', {
        method: 'POST',
        url: '/admin/integration-data',
        json: { integrator_name: marker, integrator_email: `${marker}@example.org` },
      });
      return { id: made.id };
    },
    (record) => [get(`/admin/integration-data/${record.id}`)],
  ),
  'reference genome': adminKind(
    'a reference genome an administrator added',
    async (platform, marker) => {
      const made = await platform.ok('admin', {
        method: 'POST',
        url: '/admin/reference-genomes',
        json: { name: marker, path: `/platform/home/shared/genomes/${marker}` },
      });
      return { id: made.id };
    },
    (genome) => [get(`/reference-genomes/${genome.id}`)],
  ),
  'tool request status': {
    about: 'a status code of tool requests an administrator made, no longer used',
    owner: 'admin',
    grants: {},
    hidden: forbidden,
    short: forbidden,
    make: async (platform) => {
      const marker = markerOf('status');
      const request = await platform.ok('owner', {
        method: 'POST',
        url: '/tool-requests',
        json: {
          name: marker,
          description: 'a tool',
          source_url: 'https://example.org/t.tgz',
          version: '1',
        },
      });
      await platform.ok('admin', {
        method: 'POST',
        url: `/admin/tool-requests/${request.id}/status`,
        json: { status: marker },
      });
      await platform.ok('admin', { method: 'DELETE', url: `/admin/tool-requests/${request.id}` });
      const codes = (await platform.ok('owner', get('/tool-requests/status-codes'))).status_codes;
      return { marker, id: codes.find((code: { name: string }) => code.name === marker).id };
    },
    readBack: () => [get('/tool-requests/status-codes')],
  },
};

const app = (resource: Resource) => ({ systemId: 'de', appId: resource.id });
const version = (resource: Resource) => ({ ...app(resource), versionId: resource.firstVersion });
const byId = (resource: Resource) => ({ id: resource.id });
const documentation = (resource: Resource) => ({
  documentation: `${resource.marker}, as administered`,
});

export const adminAppRows: Row[] = [
  // Apps: any app, the owner's private one here.
  { ops: ['GET /admin/apps', 'GET /admin/apps/publication-requests'], on: 'app', needs: 'admin' },
  {
    ops: [
      'GET /admin/apps/{systemId}/{appId}/details',
      'GET /admin/apps/{systemId}/{appId}/versions/{versionId}/details',
    ],
    on: 'app',
    needs: 'admin',
    params: version,
  },
  {
    ops: ['PATCH /admin/apps/{systemId}/{appId}'],
    on: 'app',
    needs: 'admin',
    writes: true,
    params: app,
    json: (app) => ({ description: `${app.marker}, as administered` }),
  },
  {
    ops: ['PATCH /admin/apps/{systemId}/{appId}/versions/{versionId}'],
    on: 'app',
    needs: 'admin',
    writes: true,
    params: version,
    json: (app) => ({ description: `${app.marker}, as administered` }),
  },
  {
    ops: [
      'POST /admin/apps/{systemId}/{appId}/documentation',
      'PATCH /admin/apps/{systemId}/{appId}/documentation',
    ],
    on: 'app',
    needs: 'admin',
    writes: true,
    params: app,
    json: documentation,
    readBack: (app) => [get(`/apps/de/${app.id}/documentation`)],
  },
  {
    ops: [
      'POST /admin/apps/{systemId}/{appId}/versions/{versionId}/documentation',
      'PATCH /admin/apps/{systemId}/{appId}/versions/{versionId}/documentation',
    ],
    on: 'app',
    needs: 'admin',
    writes: true,
    params: version,
    json: documentation,
    readBack: (app) => [get(`/apps/de/${app.id}/versions/${app.firstVersion}/documentation`)],
  },
  {
    ops: [
      'POST /admin/apps/{systemId}/{appId}/blessing',
      'DELETE /admin/apps/{systemId}/{appId}/blessing',
    ],
    on: 'app',
    needs: 'admin',
    writes: true,
    params: app,
    readBack: (app) => [get(`/apps/de/${app.id}/listing`)],
  },
  {
    ops: [
      'PUT /admin/apps/{systemId}/{appId}/integration-data/{integrationDataId}',
      'PUT /admin/apps/{systemId}/{appId}/versions/{versionId}/integration-data/{integrationDataId}',
    ],
    on: 'app',
    needs: 'admin',
    writes: true,
    params: (app) => ({ ...version(app), integrationDataId: app.integrationData }),
    readBack: (app) => [get(`/apps/de/${app.id}/integration-data`)],
  },
  {
    ops: ['DELETE /admin/apps/{systemId}/{appId}'],
    on: 'app',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: app,
  },
  {
    ops: ['POST /admin/apps/{systemId}/{appId}/publish'],
    on: 'app',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: app,
  },
  {
    ops: ['POST /admin/apps/shredder'],
    on: 'app',
    needs: 'admin',
    writes: true,
    fresh: true,
    json: (app) => ({ app_ids: [app.id] }),
  },
  {
    ops: ['POST /admin/apps/sharing'],
    on: 'app',
    needs: 'admin',
    writes: true,
    fresh: true,
    json: (app) => ({
      sharing: [
        {
          subject: { id: 'commoner', source_id: 'ldap' },
          apps: [{ system_id: 'de', app_id: app.id, permission: 'read' }],
        },
      ],
    }),
  },
  {
    ops: ['POST /admin/apps/unsharing'],
    on: 'app',
    needs: 'admin',
    writes: true,
    fresh: true,
    json: (app) => ({
      unsharing: [
        {
          subject: { id: bystander, source_id: 'ldap' },
          apps: [{ system_id: 'de', app_id: app.id }],
        },
      ],
    }),
  },
  {
    ops: ['GET /admin/apps/{appId}/metadata'],
    on: 'app',
    needs: 'admin',
    params: (app) => ({ appId: app.id }),
  },
  {
    ops: ['POST /admin/apps/{appId}/metadata', 'PUT /admin/apps/{appId}/metadata'],
    on: 'app',
    needs: 'admin',
    writes: true,
    params: (app) => ({ appId: app.id }),
    json: (app) => ({ avus: [{ attr: 'reviewed', value: app.marker, unit: '' }] }),
    readBack: (app) => [get(`/apps/${app.id}/metadata`)],
  },
  // Categories.
  { ops: ['GET /admin/apps/categories'], on: 'category', needs: 'admin' },
  {
    ops: ['GET /admin/apps/categories/search'],
    on: 'category',
    needs: 'admin',
    query: (category) => ({ name: category.marker }),
  },
  {
    ops: ['POST /admin/apps/categories/{systemId}'],
    on: 'category',
    needs: 'admin',
    writes: true,
    params: () => ({ systemId: 'de' }),
    json: () => ({ name: markerOf('category') }),
  },
  {
    ops: ['PATCH /admin/apps/categories/{systemId}/{categoryId}'],
    on: 'category',
    needs: 'admin',
    writes: true,
    params: (category) => ({ systemId: 'de', categoryId: category.id }),
    json: (category) => ({ name: category.marker }),
  },
  {
    ops: ['DELETE /admin/apps/categories/{systemId}/{categoryId}'],
    on: 'category',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: (category) => ({ systemId: 'de', categoryId: category.id }),
  },
  {
    ops: ['POST /admin/apps'],
    on: 'category',
    needs: 'admin',
    writes: true,
    json: (category) => ({
      categories: [{ app_id: builtInApps[1]!.id, category_ids: [category.id] }],
    }),
  },
  // Workspaces (the bystander's: a next request makes another).
  {
    ops: ['GET /admin/workspaces', 'DELETE /admin/workspaces'],
    on: 'platform',
    needs: 'admin',
    writes: true,
    query: () => ({ username: bystander }),
    readBack: () => [],
  },
  // Tools.
  { ops: ['GET /admin/tools'], on: 'admin tool', needs: 'admin' },
  {
    ops: ['GET /admin/tools/{toolId}', 'GET /admin/tools/{toolId}/apps'],
    on: 'admin tool',
    needs: 'admin',
    params: (tool) => ({ toolId: tool.id }),
  },
  {
    ops: ['POST /admin/tools'],
    on: 'admin tool',
    needs: 'admin',
    writes: true,
    json: () => ({ tools: [tool(markerOf('imported'))] }),
  },
  {
    ops: ['PATCH /admin/tools/{toolId}'],
    on: 'admin tool',
    needs: 'admin',
    writes: true,
    params: (tool) => ({ toolId: tool.id }),
    json: (tool) => ({ description: `${tool.marker}, changed` }),
  },
  {
    ops: ['PUT /admin/tools/{toolId}/integration-data/{integrationDataId}'],
    on: 'admin tool',
    needs: 'admin',
    writes: true,
    params: (tool) => ({ toolId: tool.id, integrationDataId: tool.integrationData }),
  },
  {
    ops: ['POST /admin/tools/{toolId}/publish'],
    on: 'admin tool',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: (tool) => ({ toolId: tool.id }),
  },
  {
    ops: ['DELETE /admin/tools/{toolId}'],
    on: 'admin tool',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: (tool) => ({ toolId: tool.id }),
  },
  // Tool requests: any user's (the owner's here).
  { ops: ['GET /admin/tool-requests'], on: 'tool request', needs: 'admin' },
  {
    ops: ['GET /admin/tool-requests/{requestId}'],
    on: 'tool request',
    needs: 'admin',
    params: (request) => ({ requestId: request.id }),
  },
  {
    ops: ['POST /admin/tool-requests/{requestId}/status'],
    on: 'tool request',
    needs: 'admin',
    writes: true,
    params: (request) => ({ requestId: request.id }),
    json: () => ({ status: 'Evaluation', comments: 'looking' }),
  },
  {
    ops: ['DELETE /admin/tool-requests/{requestId}'],
    on: 'tool request',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: (request) => ({ requestId: request.id }),
  },
  {
    ops: ['DELETE /admin/tool-requests/status-codes/{statusCodeId}'],
    on: 'tool request status',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: (code) => ({ statusCodeId: code.id }),
  },
  // Reference genomes.
  {
    ops: ['POST /admin/reference-genomes'],
    on: 'reference genome',
    needs: 'admin',
    writes: true,
    json: () => ({ name: markerOf('genome'), path: '/platform/home/shared/genomes/another' }),
  },
  {
    ops: ['PATCH /admin/reference-genomes/{referenceGenomeId}'],
    on: 'reference genome',
    needs: 'admin',
    writes: true,
    params: (genome) => ({ referenceGenomeId: genome.id }),
    json: (genome) => ({ name: genome.marker }),
  },
  {
    ops: ['DELETE /admin/reference-genomes/{referenceGenomeId}'],
    on: 'reference genome',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: (genome) => ({ referenceGenomeId: genome.id }),
  },
  // Integration data.
  { ops: ['GET /admin/integration-data'], on: 'integration data', needs: 'admin' },
  {
    ops: ['GET /admin/integration-data/{id}'],
    on: 'integration data',
    needs: 'admin',
    params: byId,
  },
  {
    ops: ['POST /admin/integration-data'],
    on: 'integration data',
    needs: 'admin',
    writes: true,
    json: () => {
      const marker = markerOf('integrator');
      return { integrator_name: marker, integrator_email: `${marker}@example.org` };
    },
  },
  {
    ops: ['PUT /admin/integration-data/{id}'],
    on: 'integration data',
    needs: 'admin',
    writes: true,
    params: byId,
    json: (record) => ({
      integrator_name: record.marker,
      integrator_email: `${record.marker}@example.org`,
    }),
  },
  {
    ops: ['DELETE /admin/integration-data/{id}'],
    on: 'integration data',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: byId,
  },
];

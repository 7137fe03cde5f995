// The administrators' and service accounts' routes in the authorization matrix: each is refused,
// 403 ERR_FORBIDDEN, to every user without the role (the owner of what it touches included) and
// to the service account, 401 to an anonymous caller, and answers an administrator (or the
// service account) 2xx on a resource of its own making. Users' resources come from the other
// parts (the owner's app, tool requests, VICE and permanent-ID requests, subscription); the
// platform's own (categories, add-ons, feeds...) are made by an administrator here.
import { builtInApps } from '../../src/backends/apps/catalog/built-in.ts';
import { markerOf } from './data.ts';
import type { Kind, Resource, Row } from './model.ts';
import { bystander, type Call, type Platform } from './platform.ts';

const get = (url: string): Call => ({ method: 'GET', url });
const forbidden = { status: 403, code: 'ERR_FORBIDDEN' } as const;

/** A kind the administrator makes: `make` answers the fields its rows need. */
function adminKind(
  about: string,
  make: (platform: Platform, marker: string) => Promise<Record<string, unknown>>,
  readBack: (resource: Resource) => Call[],
): Kind {
  return {
    about,
    owner: 'admin',
    grants: {},
    hidden: forbidden,
    short: forbidden,
    make: async (platform) => {
      const marker = markerOf('admin');
      return { marker, ...(await make(platform, marker)) };
    },
    readBack,
  };
}

/** The request types' limits, raised once per platform: the rows file many requests. */
const raised = new WeakMap<Platform, Promise<unknown>>();
function raiseRequestLimits(platform: Platform) {
  let done = raised.get(platform);
  if (!done) {
    const limits = 'maximum-requests-per-user=1000&maximum-concurrent-requests-per-user=1000';
    done = (async () => {
      // Made when missing (answered as it stands when there), then its limits changed.
      await platform.ok('admin', { method: 'POST', url: `/admin/request-types/vice?${limits}` });
      await platform.ok('admin', { method: 'PATCH', url: `/admin/request-types/vice?${limits}` });
    })();
    raised.set(platform, done);
  }
  return done;
}

const tool = (name: string) => ({
  name,
  description: `${name}, imported by an administrator`,
  type: 'executable',
  version: '1.0',
  location: '/usr/bin',
  container: { image: { name: 'authz/admin-tool', tag: '1' } },
});

export const adminKinds: Record<string, Kind> = {
  platform: adminKind(
    'the platform itself: its configuration, status and listings',
    async () => ({}),
    () => [],
  ),
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
  addon: adminKind(
    "a QMS add-on an administrator made, applied to the owner's subscription",
    async (platform, marker) => {
      const { addon } = await platform.ok('admin', {
        method: 'POST',
        url: '/admin/qms/addons',
        json: {
          name: marker,
          description: 'more data',
          resource_type: 'data.size',
          default_amount: 1024,
          default_paid: true,
        },
      });
      const plan = await platform.ok('owner', get('/qms/user/plan'));
      const applied = await platform.ok('admin', {
        method: 'POST',
        url: `/admin/qms/subscriptions/${plan.result.id}/addons`,
        json: { uuid: addon.uuid },
      });
      return {
        id: addon.uuid,
        subscription: plan.result.id,
        applied: applied.subscription_addon.uuid,
      };
    },
    (addon) => [get(`/admin/qms/subscriptions/${addon.subscription}/addons`)],
  ),
  'spare addon': adminKind(
    'a QMS add-on an administrator made, applied to no subscription',
    async (platform, marker) => {
      const { addon } = await platform.ok('admin', {
        method: 'POST',
        url: '/admin/qms/addons',
        json: {
          name: marker,
          description: 'spare',
          resource_type: 'cpu.hours',
          default_amount: 1,
          default_paid: false,
        },
      });
      return { id: addon.uuid };
    },
    () => [get('/admin/qms/addons')],
  ),
  'feed item': adminKind(
    'an item of the dashboard news feed an administrator posted',
    async (platform, marker) => {
      const made = await platform.ok('admin', {
        method: 'POST',
        url: '/admin/dashboard/feeds/news',
        json: {
          title: marker,
          link: 'https://example.org/news',
          publication_date: '2030-01-01T00:00:00.000Z',
        },
      });
      return { id: made.id };
    },
    () => [get('/admin/dashboard/feeds')],
  ),
  alert: adminKind(
    'a global alert an administrator posted',
    async (platform, marker) => {
      const end = new Date(Date.now() + 86_400_000).toISOString();
      await platform.ok('admin', {
        method: 'POST',
        url: '/admin/alerts',
        json: { 'end-date': end, 'alert-text': marker },
      });
      return { end };
    },
    () => [get('/alerts/all')],
  ),
  template: adminKind(
    'a metadata template an administrator made',
    async (platform, marker) => {
      const made = await platform.ok('admin', {
        method: 'POST',
        url: '/admin/filesystem/metadata/templates',
        json: {
          name: marker,
          description: 'a template of the authorization matrix',
          attributes: [
            { name: 'sample', description: 'Sample id', type: 'String', required: true },
          ],
        },
      });
      return { id: made.id, body: made };
    },
    (template) => [get(`/secured/filesystem/metadata/template/${template.id}`)],
  ),
  'filed request': {
    about: 'a VICE access request the owner filed, open',
    grants: {},
    hidden: forbidden,
    short: forbidden,
    make: async (platform) => {
      await raiseRequestLimits(platform);
      const marker = markerOf('filed');
      const request = await platform.ok('owner', {
        method: 'POST',
        url: '/requests/vice',
        json: { intended_use: marker, concurrent_jobs: 2 },
      });
      return { marker, id: request.id };
    },
    readBack: (request) => [get(`/requests/vice/${request.id}`)],
  },
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
const user = (name: string) => () => ({ username: name });

export const adminRows: Row[] = [
  // The platform.
  { ops: ['GET /admin/config', 'GET /admin/status'], on: 'platform', needs: 'admin' },
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
  // Subscriptions and usage: any user's (the owner's).
  {
    ops: [
      'GET /admin/qms/users/{username}/plan',
      'GET /admin/qms/users/{username}/subscriptions',
      'GET /admin/qms/users/{username}/usages',
    ],
    on: 'subscription',
    needs: 'admin',
    params: user('owner'),
  },
  { ops: ['GET /admin/qms/subscriptions'], on: 'subscription', needs: 'admin' },
  {
    ops: ['PUT /admin/qms/users/{username}/plan/{planName}'],
    on: 'subscription',
    needs: 'admin',
    writes: true,
    params: () => ({ username: 'owner', planName: 'Basic' }),
    readBack: () => [get('/qms/user/subscriptions')],
  },
  {
    ops: ['POST /admin/qms/users/{username}/plan/{resourceType}/quota'],
    on: 'subscription',
    needs: 'admin',
    writes: true,
    params: () => ({ username: 'owner', resourceType: 'cpu.hours' }),
    json: () => ({ quota: 1000 }),
  },
  {
    ops: ['POST /admin/qms/usages'],
    on: 'subscription',
    needs: 'admin',
    writes: true,
    json: () => ({
      username: 'owner',
      resource_name: 'cpu.hours',
      usage_value: 1.25,
      update_type: 'SET',
    }),
    readBack: () => [get('/qms/user/usages')],
  },
  {
    ops: ['POST /admin/qms/subscriptions'],
    on: 'subscription',
    needs: 'admin',
    writes: true,
    json: () => ({ subscriptions: [{ username: bystander, plan_name: 'Regular' }] }),
    readBack: () => [get('/qms/user/subscriptions')],
  },
  { ops: ['GET /admin/qms/addons'], on: 'addon', needs: 'admin' },
  {
    ops: ['POST /admin/qms/addons'],
    on: 'addon',
    needs: 'admin',
    writes: true,
    json: () => ({
      name: markerOf('addon'),
      description: 'more cpu',
      resource_type: 'cpu.hours',
      default_amount: 10,
      default_paid: false,
    }),
  },
  {
    ops: ['PUT /admin/qms/addons'],
    on: 'addon',
    needs: 'admin',
    writes: true,
    json: (addon) => ({ uuid: addon.id, description: `${addon.marker}, described` }),
    readBack: () => [get('/admin/qms/addons')],
  },
  {
    ops: [
      'GET /admin/qms/subscriptions/{subUuid}/addons',
      'GET /admin/qms/subscriptions/{subUuid}/addons/{uuid}',
    ],
    on: 'addon',
    needs: 'admin',
    params: (addon) => ({ subUuid: addon.subscription, uuid: addon.applied }),
  },
  {
    ops: ['POST /admin/qms/subscriptions/{subUuid}/addons'],
    on: 'addon',
    needs: 'admin',
    writes: true,
    params: (addon) => ({ subUuid: addon.subscription }),
    json: (addon) => ({ uuid: addon.id }),
  },
  {
    ops: ['PUT /admin/qms/subscriptions/{subUuid}/addons/{uuid}'],
    on: 'addon',
    needs: 'admin',
    writes: true,
    params: (addon) => ({ subUuid: addon.subscription, uuid: addon.applied }),
    json: () => ({ amount: 2048, paid: false }),
  },
  {
    ops: ['DELETE /admin/qms/subscriptions/{subUuid}/addons/{uuid}'],
    on: 'addon',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: (addon) => ({ subUuid: addon.subscription, uuid: addon.applied }),
  },
  {
    ops: ['DELETE /admin/qms/addons/{uuid}'],
    on: 'spare addon',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: (addon) => ({ uuid: addon.id }),
  },
  // The same for the subscription updater's service account.
  {
    ops: [
      'GET /service/qms/users/{username}/plan',
      'GET /service/qms/users/{username}/subscriptions',
    ],
    on: 'subscription',
    needs: 'service',
    params: user('owner'),
  },
  {
    ops: ['PUT /service/qms/users/{username}/plan/{planName}'],
    on: 'subscription',
    needs: 'service',
    writes: true,
    params: () => ({ username: 'owner', planName: 'Basic' }),
    readBack: () => [get('/qms/user/subscriptions')],
  },
  { ops: ['GET /service/qms/addons'], on: 'addon', needs: 'service' },
  {
    ops: [
      'GET /service/qms/subscriptions/{subUuid}/addons',
      'GET /service/qms/subscriptions/{subUuid}/addons/{uuid}',
    ],
    on: 'addon',
    needs: 'service',
    params: (addon) => ({ subUuid: addon.subscription, uuid: addon.applied }),
  },
  {
    ops: ['POST /service/qms/subscriptions/{subUuid}/addons'],
    on: 'addon',
    needs: 'service',
    writes: true,
    params: (addon) => ({ subUuid: addon.subscription }),
    json: (addon) => ({ uuid: addon.id }),
  },
  {
    ops: ['PUT /service/qms/subscriptions/{subUuid}/addons/{uuid}'],
    on: 'addon',
    needs: 'service',
    writes: true,
    params: (addon) => ({ subUuid: addon.subscription, uuid: addon.applied }),
    json: () => ({ amount: 4096 }),
  },
  {
    ops: ['DELETE /service/qms/subscriptions/{subUuid}/addons/{uuid}'],
    on: 'addon',
    needs: 'service',
    writes: true,
    fresh: true,
    params: (addon) => ({ subUuid: addon.subscription, uuid: addon.applied }),
  },
  {
    ops: ['POST /service/email'],
    on: 'platform',
    needs: 'service',
    writes: true,
    json: () => ({
      to: 'owner@example.org',
      subject: 'Your plan',
      template: 'plan_changed',
      values: { plan: 'Pro' },
    }),
  },
  // VICE access requests: any user's (the owner's).
  { ops: ['GET /admin/requests'], on: 'filed request', needs: 'admin' },
  { ops: ['GET /admin/requests/{id}'], on: 'filed request', needs: 'admin', params: byId },
  {
    ops: [
      'POST /admin/requests/{id}/in-progress',
      'POST /admin/requests/{id}/rejected',
      'POST /admin/requests/{id}/approved',
    ],
    on: 'filed request',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: byId,
    json: () => ({ message: 'decided' }),
  },
  {
    ops: ['POST /admin/requests/{id}/approved/vice'],
    on: 'filed request',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: byId,
    json: () => ({ message: 'enjoy', concurrent_jobs: 100 }),
  },
  { ops: ['GET /admin/request-types'], on: 'platform', needs: 'admin' },
  {
    ops: ['GET /admin/request-types/{name}'],
    on: 'filed request',
    needs: 'admin',
    params: () => ({ name: 'vice' }),
  },
  {
    ops: ['POST /admin/request-types/{name}', 'PATCH /admin/request-types/{name}'],
    on: 'platform',
    needs: 'admin',
    writes: true,
    params: () => ({ name: 'vice' }),
    query: () => ({
      'maximum-requests-per-user': '1000',
      'maximum-concurrent-requests-per-user': '1000',
    }),
    readBack: () => [get('/admin/request-types/vice')],
  },
  // Permanent-ID requests: any user's (the owner's).
  { ops: ['GET /admin/permanent-id-requests'], on: 'permanent-id request', needs: 'admin' },
  {
    ops: [
      'GET /admin/permanent-id-requests/{requestId}',
      'GET /admin/permanent-id-requests/{requestId}/preview-submission',
    ],
    on: 'permanent-id request',
    needs: 'admin',
    params: (request) => ({ requestId: request.id }),
  },
  {
    ops: ['POST /admin/permanent-id-requests/{requestId}/status'],
    on: 'permanent-id request',
    needs: 'admin',
    writes: true,
    params: (request) => ({ requestId: request.id }),
    json: () => ({ status: 'Evaluation', comments: 'looking at it' }),
  },
  {
    ops: [
      'POST /admin/permanent-id-requests/{requestId}/pidprovider',
      'POST /admin/permanent-id-requests/{requestId}/ezid',
    ],
    on: 'permanent-id request',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: (request) => ({ requestId: request.id }),
  },
  // Concurrent job limits (the bystander's), groups and accounts.
  {
    ops: ['GET /admin/settings/concurrent-job-limits'],
    on: 'platform',
    needs: 'admin',
  },
  {
    ops: [
      'PUT /admin/settings/concurrent-job-limits/{username}',
      'GET /admin/settings/concurrent-job-limits/{username}',
      'DELETE /admin/settings/concurrent-job-limits/{username}',
    ],
    on: 'platform',
    needs: 'admin',
    writes: true,
    params: user(bystander),
    json: () => ({ concurrent_jobs: 3 }),
    readBack: () => [get(`/admin/settings/concurrent-job-limits/${bystander}`)],
  },
  {
    ops: ['GET /admin/groups/workshop', 'GET /admin/groups/workshop/members'],
    on: 'platform',
    needs: 'admin',
  },
  {
    ops: ['PUT /admin/groups/workshop/members'],
    on: 'platform',
    needs: 'admin',
    writes: true,
    json: () => ({ members: [bystander] }),
    readBack: () => [get('/admin/groups/workshop/members')],
  },
  {
    ops: ['DELETE /admin/groups/de-users/members/{subjectId}'],
    on: 'platform',
    needs: 'admin',
    writes: true,
    params: () => ({ subjectId: bystander }),
    readBack: () => [get(`/admin/users/${bystander}/groups`)],
  },
  {
    ops: ['GET /admin/users/{username}/groups'],
    on: 'account',
    needs: 'admin',
    params: user('owner'),
  },
  {
    ops: ['GET /admin/oauth/token-info/{apiName}'],
    on: 'oauth token',
    needs: 'admin',
    params: () => ({ apiName: 'extapi' }),
    query: () => ({ 'proxy-user': 'owner' }),
  },
  {
    ops: ['DELETE /admin/oauth/token-info/{apiName}'],
    on: 'oauth token',
    needs: 'admin',
    writes: true,
    fresh: true,
    spoils: true,
    params: () => ({ apiName: 'extapi' }),
    query: () => ({ 'proxy-user': 'owner' }),
  },
  // Dashboard feeds, alerts, metadata templates, the instant launches' default mappings.
  { ops: ['GET /admin/dashboard/feeds'], on: 'feed item', needs: 'admin' },
  {
    ops: ['POST /admin/dashboard/feeds/{feed}'],
    on: 'feed item',
    needs: 'admin',
    writes: true,
    params: () => ({ feed: 'events' }),
    json: () => ({ title: markerOf('event'), description: 'an event', author: 'the matrix' }),
  },
  {
    ops: ['DELETE /admin/dashboard/feeds/items/{id}'],
    on: 'feed item',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: byId,
  },
  {
    ops: ['POST /admin/alerts'],
    on: 'alert',
    needs: 'admin',
    writes: true,
    json: () => ({
      'end-date': new Date(Date.now() + 3_600_000).toISOString(),
      'alert-text': markerOf('alert'),
    }),
  },
  {
    ops: ['DELETE /admin/alerts'],
    on: 'alert',
    needs: 'admin',
    writes: true,
    fresh: true,
    json: (alert) => ({ 'end-date': alert.end, 'alert-text': alert.marker }),
  },
  { ops: ['GET /admin/filesystem/metadata/templates'], on: 'template', needs: 'admin' },
  {
    ops: ['POST /admin/filesystem/metadata/templates'],
    on: 'template',
    needs: 'admin',
    writes: true,
    json: () => ({
      name: markerOf('template'),
      description: 'another template',
      attributes: [{ name: 'site', description: 'Site', type: 'String', required: false }],
    }),
  },
  {
    ops: ['POST /admin/filesystem/metadata/templates/{templateId}'],
    on: 'template',
    needs: 'admin',
    writes: true,
    params: (template) => ({ templateId: template.id }),
    json: (template) => ({
      name: template.marker,
      description: 'changed',
      attributes: [{ name: 'sample', description: 'Sample id', type: 'String', required: false }],
    }),
  },
  {
    ops: ['DELETE /admin/filesystem/metadata/templates/{templateId}'],
    on: 'template',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: (template) => ({ templateId: template.id }),
  },
  {
    ops: [
      'PUT /admin/instant-launches/mappings/defaults/latest',
      'POST /admin/instant-launches/mappings/defaults/latest',
    ],
    on: 'public instant launch',
    needs: 'admin',
    writes: true,
    json: (instant) => ({
      '*.authz': { kind: 'glob', pattern: '*.authz', default: { id: instant.id }, compatible: [] },
    }),
    readBack: () => [get('/instantlaunches/mappings/defaults/latest')],
  },
  {
    ops: ['DELETE /admin/instant-launches/mappings/defaults/latest'],
    on: 'public instant launch',
    needs: 'admin',
    writes: true,
    readBack: () => [get('/instantlaunches/mappings/defaults/latest')],
  },
  // VICE operators come from configuration: changing them is refused to everyone, administrators
  // told why (400 ERR_ILLEGAL_ARGUMENT), as the web UI's Operators tab shows.
  {
    ops: ['GET /admin/vice/operators', 'GET /admin/vice/operators/capacities'],
    on: 'platform',
    needs: 'admin',
  },
  {
    ops: [
      'POST /admin/vice/operators',
      'PATCH /admin/vice/operators/id/{id}',
      'DELETE /admin/vice/operators/id/{id}',
    ],
    on: 'platform',
    needs: 'admin',
    writes: true,
    params: () => ({ id: 'local' }),
    json: () => ({ name: 'another', url: 'https://operator.example.org' }),
    except: { admin: { status: 400, code: 'ERR_ILLEGAL_ARGUMENT' } },
    readBack: () => [get('/admin/vice/operators')],
  },
];

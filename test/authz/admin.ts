// The administrators' and service accounts' routes in the authorization matrix: each is refused,
// 403 ERR_FORBIDDEN, to every user without the role (the owner of what it touches included) and
// to the service account, 401 to an anonymous caller, and answers an administrator (or the
// service account) 2xx on a resource of its own making. Users' resources come from the other
// parts (the owner's subscription, VICE and permanent-ID requests, OAuth token); the platform's
// own (add-ons, feeds, alerts, templates...) are made by an administrator here. The apps
// service's administrators' routes are in admin-apps.ts.
import { forbidden, type Kind, type Resource, type Row } from './model.ts';
import { bystander, markerOf, type Call, type Platform } from './platform.ts';

const get = (url: string): Call => ({ method: 'GET', url });

/** A kind the administrator makes: `make` answers the fields its rows need. */
export function adminKind(
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

export const adminKinds: Record<string, Kind> = {
  platform: adminKind(
    'the platform itself: its configuration, status and listings',
    async () => ({}),
    () => [],
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
};

const byId = (resource: Resource) => ({ id: resource.id });
const user = (name: string) => () => ({ username: name });
/** The owner's subscription an add-on is applied to, and the add-on as applied there. */
const addonSubscription = (addon: Resource) => ({ subUuid: addon.subscription });
const appliedAddon = (addon: Resource) => ({ ...addonSubscription(addon), uuid: addon.applied });

export const adminRows: Row[] = [
  // The platform.
  { ops: ['GET /admin/config', 'GET /admin/status'], on: 'platform', needs: 'admin' },
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
    params: appliedAddon,
  },
  {
    ops: ['POST /admin/qms/subscriptions/{subUuid}/addons'],
    on: 'addon',
    needs: 'admin',
    writes: true,
    params: addonSubscription,
    json: (addon) => ({ uuid: addon.id }),
  },
  {
    ops: ['PUT /admin/qms/subscriptions/{subUuid}/addons/{uuid}'],
    on: 'addon',
    needs: 'admin',
    writes: true,
    params: appliedAddon,
    json: () => ({ amount: 2048, paid: false }),
  },
  {
    ops: ['DELETE /admin/qms/subscriptions/{subUuid}/addons/{uuid}'],
    on: 'addon',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: appliedAddon,
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
    params: appliedAddon,
  },
  {
    ops: ['POST /service/qms/subscriptions/{subUuid}/addons'],
    on: 'addon',
    needs: 'service',
    writes: true,
    params: addonSubscription,
    json: (addon) => ({ uuid: addon.id }),
  },
  {
    ops: ['PUT /service/qms/subscriptions/{subUuid}/addons/{uuid}'],
    on: 'addon',
    needs: 'service',
    writes: true,
    params: appliedAddon,
    json: () => ({ amount: 4096 }),
  },
  {
    ops: ['DELETE /service/qms/subscriptions/{subUuid}/addons/{uuid}'],
    on: 'addon',
    needs: 'service',
    writes: true,
    fresh: true,
    params: appliedAddon,
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

// The part of the authorization matrix for what each user keeps for themselves (user-info.md,
// notifications.md, webhooks.md, metadata.md's tags, requests.md, tools.md's tool requests):
// sessions, preferences, saved searches, bags, notifications, webhooks, tags, tool requests and
// VICE access requests. None is shared:
// a route naming one (by id) is the owner's alone, 404 to anyone else; a route of the caller's
// own (no id) answers everyone, each about themselves, and neither shows nor changes the owner's
// (`listing`: blind, the owner's read-back unchanged).
import type { Denial, Kind, Resource, Row } from './model.ts';
import { markerOf, type Actor, type Call, type Platform } from './platform.ts';

const notFound: Denial = { status: 404, code: 'ERR_NOT_FOUND' };

const get = (url: string): Call => ({ method: 'GET', url });

/** A kind kept by the owner alone: made by `make`, read back by `readBack`. */
function ownKind(
  about: string,
  make: (platform: Platform, marker: string) => Promise<Record<string, unknown>>,
  readBack: (resource: Resource) => Call[],
  hidden: Denial = notFound,
): Kind {
  return {
    about,
    grants: {},
    hidden,
    short: hidden,
    make: async (platform) => {
      const marker = markerOf('own');
      return { marker, ...(await make(platform, marker)) };
    },
    readBack,
  };
}

export const ownKinds: Record<string, Kind> = {
  'session document': ownKind(
    "the owner's session document (what the web UI keeps of its state)",
    async (platform, marker) => {
      await platform.ok('owner', { method: 'POST', url: '/secured/sessions', json: { marker } });
      return {};
    },
    () => [get('/secured/sessions')],
  ),
  preferences: ownKind(
    "the owner's preferences",
    async (platform, marker) => {
      await platform.ok('owner', { method: 'POST', url: '/secured/preferences', json: { marker } });
      return {};
    },
    () => [get('/secured/preferences')],
  ),
  'saved searches': ownKind(
    "the owner's saved searches",
    async (platform, marker) => {
      await platform.ok('owner', {
        method: 'POST',
        url: '/secured/saved-searches',
        json: { marker },
      });
      return {};
    },
    () => [get('/secured/saved-searches')],
  ),
  bag: ownKind(
    "a bag of the owner's, also their default",
    async (platform, marker) => {
      const bag = await platform.ok('owner', {
        method: 'PUT',
        url: '/bags',
        json: { files: [marker] },
      });
      await platform.ok('owner', {
        method: 'POST',
        url: '/bags/default',
        json: { files: [marker] },
      });
      return { id: bag.id };
    },
    // The default bag first: reading it makes one when there is none.
    (bag) => [get('/bags/default'), get('/bags'), get(`/bags/${bag.id}`)],
  ),
  notification: ownKind(
    "an unseen notification of the owner's, of a type of its own (the platform's others come and go)",
    async (platform, marker) => {
      const sent = await platform.ok('anonymous', {
        method: 'POST',
        url: '/send-notification',
        json: { type: 'authz', user: 'owner', subject: marker, message: marker },
      });
      return { id: sent.notification?.message?.id ?? sent.message?.id ?? sent.id };
    },
    () => [get('/secured/notifications/messages?limit=0&filter=authz')],
  ),
  webhook: ownKind(
    "the owner's webhook",
    async (platform, marker) => {
      await platform.ok('owner', {
        method: 'PUT',
        url: '/webhooks',
        json: {
          webhooks: [
            { url: `http://127.0.0.1:9/${marker}`, type: { type: 'Custom' }, topics: ['data'] },
          ],
        },
      });
      return {};
    },
    () => [get('/webhooks')],
  ),
  tag: ownKind(
    "a tag of the owner's, attached to a file of theirs",
    async (platform, marker) => {
      const tag = await platform.ok('owner', {
        method: 'POST',
        url: '/secured/tags/user',
        json: { value: marker, description: 'a tag of the authorization matrix' },
      });
      return { id: tag.id };
    },
    () => [get('/secured/tags/user'), get('/secured/filesystem/entry/tags')],
  ),
  'tool request': ownKind(
    "a tool request of the owner's",
    async (platform, marker) => {
      const request = await platform.ok('owner', {
        method: 'POST',
        url: '/tool-requests',
        json: {
          name: marker,
          description: 'a tool of the authorization matrix',
          source_url: 'https://example.org/tool.tar.gz',
          version: '1.0',
          attribution: 'the matrix',
          multithreaded: false,
          test_data_path: '/platform/home/owner',
          cmd_line: 'tool --help',
        },
      });
      return { id: request.id };
    },
    () => [get('/tool-requests')],
  ),
  'vice request': ownKind(
    "the owner's request for VICE access",
    async (platform, marker) => {
      const request = await platform.ok('owner', {
        method: 'POST',
        url: '/requests/vice',
        json: { intended_use: marker, concurrent_jobs: 2 },
      });
      return { id: request.id };
    },
    (request) => [get('/requests/vice'), get(`/requests/vice/${request.id}`)],
  ),
};

/** A row of the caller's own: `writes` when it changes them (the owner's must not change). */
const mine = (ops: string[], on: string, extra: Partial<Row> = {}): Row => ({
  ops,
  on,
  needs: 'listing',
  ...extra,
});

const body = (json: (resource: Resource, actor: Actor) => unknown) => ({ json });

export const ownRows: Row[] = [
  mine(['GET /secured/sessions'], 'session document'),
  mine(['POST /secured/sessions'], 'session document', {
    writes: true,
    ...body((_, actor) => ({ by: actor })),
  }),
  mine(['DELETE /secured/sessions'], 'session document', {
    writes: true,
    fresh: true,
    spoils: true,
  }),
  mine(['GET /secured/preferences'], 'preferences'),
  mine(['POST /secured/preferences'], 'preferences', {
    writes: true,
    ...body((_, actor) => ({ by: actor })),
  }),
  mine(['DELETE /secured/preferences'], 'preferences', { writes: true, fresh: true, spoils: true }),
  mine(['GET /saved-searches', 'GET /secured/saved-searches'], 'saved searches'),
  mine(['POST /saved-searches', 'POST /secured/saved-searches'], 'saved searches', {
    writes: true,
    ...body((_, actor) => ({ by: actor })),
  }),
  mine(['DELETE /saved-searches', 'DELETE /secured/saved-searches'], 'saved searches', {
    writes: true,
    fresh: true,
    spoils: true,
  }),
  // Bags.
  mine(['GET /bags', 'GET /bags/default'], 'bag'),
  mine(['PUT /bags'], 'bag', { writes: true, ...body((_, actor) => ({ files: [actor] })) }),
  mine(['DELETE /bags'], 'bag', { writes: true, fresh: true, spoils: true }),
  mine(['POST /bags/default'], 'bag', {
    writes: true,
    ...body((_, actor) => ({ files: [actor] })),
  }),
  mine(['DELETE /bags/default'], 'bag', { writes: true, fresh: true, spoils: true }),
  { ops: ['GET /bags/{bagId}'], on: 'bag', needs: 'own', params: (bag) => ({ bagId: bag.id }) },
  {
    ops: ['POST /bags/{bagId}'],
    on: 'bag',
    needs: 'own',
    writes: true,
    params: (bag) => ({ bagId: bag.id }),
    json: (bag) => ({ files: [bag.marker, 'more'] }),
  },
  {
    // Deleting a bag that is not the caller's deletes nothing and answers 200, as deleting one
    // that is not there (backends.md §7.4): the owner's stays.
    ops: ['DELETE /bags/{bagId}'],
    on: 'bag',
    needs: 'own',
    writes: true,
    fresh: true,
    params: (bag) => ({ bagId: bag.id }),
    hidden: 'blind',
  },
  // Notifications: the caller's own, by id or all at once.
  mine(
    [
      'GET /secured/notifications/messages',
      'GET /secured/notifications/unseen-messages',
      'GET /secured/notifications/last-ten-messages',
    ],
    'notification',
  ),
  mine(['POST /secured/notifications/seen', 'POST /secured/notifications/delete'], 'notification', {
    writes: true,
    fresh: true,
    json: (notification) => ({ uuids: [notification.id] }),
  }),
  mine(
    ['POST /secured/notifications/mark-all-seen', 'DELETE /secured/notifications/delete-all'],
    'notification',
    { writes: true, fresh: true, spoils: true },
  ),
  // Webhooks.
  mine(['GET /webhooks'], 'webhook'),
  mine(['PUT /webhooks'], 'webhook', {
    writes: true,
    json: (_, actor) => ({
      webhooks: [{ url: `http://127.0.0.1:9/${actor}`, type: { type: 'Slack' }, topics: ['apps'] }],
    }),
  }),
  // Tags.
  mine(['GET /secured/tags/user'], 'tag'),
  mine(['GET /secured/tags/suggestions'], 'tag', { query: (tag) => ({ contains: tag.marker }) }),
  mine(['POST /secured/tags/user'], 'tag', {
    writes: true,
    json: (tag, actor) => ({ value: `${tag.marker} of ${actor}` }),
  }),
  mine(['DELETE /secured/tags/user'], 'tag', { writes: true, fresh: true, spoils: true }),
  {
    ops: ['PATCH /secured/tags/user/{tagId}'],
    on: 'tag',
    needs: 'own',
    writes: true,
    params: (tag) => ({ tagId: tag.id }),
    json: (tag) => ({ value: tag.marker, description: 'renamed' }),
  },
  {
    ops: ['DELETE /secured/tags/user/{tagId}'],
    on: 'tag',
    needs: 'own',
    writes: true,
    fresh: true,
    params: (tag) => ({ tagId: tag.id }),
  },
  // Tool requests and VICE access requests.
  mine(['GET /tool-requests'], 'tool request'),
  mine(['POST /tool-requests'], 'tool request', {
    writes: true,
    json: (_, actor) => ({
      name: `a tool for ${actor}`,
      description: 'another tool',
      source_url: 'https://example.org/other.tar.gz',
      version: '2.0',
      attribution: 'the matrix',
      multithreaded: false,
      test_data_path: '/platform/home',
      cmd_line: 'other --help',
    }),
  }),
  mine(['GET /requests/vice'], 'vice request'),
  mine(['POST /requests/vice'], 'vice request', {
    writes: true,
    json: (_, actor) => ({ intended_use: `work of ${actor}`, concurrent_jobs: 1 }),
    // The owner has one open already: another is over the limit, not a refusal of the caller.
    except: { owner: { status: 400, code: 'ERR_LIMIT_REACHED' } },
  }),
  {
    ops: ['GET /requests/vice/{requestId}'],
    on: 'vice request',
    needs: 'own',
    params: (request) => ({ requestId: request.id }),
  },
];

// Accounts and the services around them in the authorization matrix (user-info.md, qms.md,
// oauth.md, permanent-ids.md, genomes.md, notifications.md's system messages): the owner's
// account (its directory details, subscription and usage, OAuth token and pending authorization),
// a permanent-ID request, a FASTA file and a genome loaded from it, and a system message.
import type { Denial, Kind, Resource, Row } from './model.ts';
import { homeOf, markerOf, until, uploadForm, type Call, type Platform } from './platform.ts';

const notFound: Denial = { status: 404, code: 'ERR_NOT_FOUND' };
const forbidden: Denial = { status: 403, code: 'ERR_FORBIDDEN' };
const get = (url: string): Call => ({ method: 'GET', url });

/** The OAuth provider's code the owner was sent back with (the platform's stand-in grants it). */
export const grantedCode = (resource: Resource) => `code-${resource.state}`;

/** Shares the owner's `path` read, write and own with the reader, the writer and the co-owner. */
async function shareReadWriteOwn(platform: Platform, path: string) {
  await platform.ok('owner', {
    method: 'POST',
    url: '/secured/share',
    json: {
      sharing: [
        { user: 'reader', paths: [{ path, permission: 'read' }] },
        { user: 'writer', paths: [{ path, permission: 'write' }] },
        { user: 'coowner', paths: [{ path, permission: 'own' }] },
      ],
    },
  });
}

async function folderWithFile(platform: Platform, marker: string) {
  const path = `${homeOf('owner')}/${marker}`;
  await platform.ok('owner', {
    method: 'POST',
    url: '/secured/filesystem/directory/create',
    json: { path },
  });
  await platform.ok('owner', {
    method: 'POST',
    url: `/secured/fileio/upload?dest=${encodeURIComponent(path)}`,
    form: uploadForm('data.txt', 'some data'),
  });
  const stat = await platform.ok('owner', {
    method: 'POST',
    url: '/secured/filesystem/stat',
    json: { paths: [path] },
  });
  await shareReadWriteOwn(platform, path);
  return { path, id: stat.paths[path].id };
}

export const accountKinds: Record<string, Kind> = {
  account: {
    about: "the owner's account: their directory details, seen by them and administrators",
    grants: { admin: 'read' },
    hidden: forbidden,
    short: forbidden,
    make: async () => ({ marker: '"owner"', username: 'owner' }),
    readBack: () => [get('/secured/user-info?username=owner')],
  },
  subscription: {
    about: "the owner's subscription, quotas and usage",
    grants: {},
    hidden: notFound,
    short: notFound,
    make: async (platform) => {
      await platform.ok('owner', get('/qms/user/plan'));
      await platform.ok('admin', {
        method: 'POST',
        url: '/admin/qms/usages',
        json: {
          username: 'owner',
          resource_name: 'cpu.hours',
          usage_value: 1.25,
          update_type: 'SET',
        },
      });
      return { marker: '"owner"' };
    },
    readBack: () => [get('/qms/user/plan')],
  },
  'oauth token': {
    about: "the owner's token for the third-party API (extapi), from a granted authorization",
    grants: {},
    hidden: notFound,
    short: notFound,
    make: async (platform, shared) => {
      const state = await accountKinds['oauth state']!.make(platform, shared);
      await platform.ok('owner', {
        method: 'GET',
        url: `/secured/oauth/access-code/extapi?code=${grantedCode(state)}&state=${state.state}`,
      });
      return { marker: 'extapi' };
    },
    readBack: () => [get('/secured/oauth/token-info/extapi')],
  },
  'oauth state': {
    about: "an authorization request of the owner's for the third-party API, pending",
    grants: {},
    hidden: { status: 400, code: 'ERR_BAD_OR_MISSING_FIELD' },
    short: notFound,
    make: async (platform) => {
      // The provider is asked only while the owner holds no token.
      await platform.call('owner', { method: 'DELETE', url: '/secured/oauth/token-info/extapi' });
      const uris = await platform.ok('owner', get('/secured/oauth/redirect-uris'));
      const state = new URL(uris.extapi).searchParams.get('state')!;
      platform.grantOAuthCode(`code-${state}`);
      return { marker: state, state };
    },
    readBack: () => [],
  },
  'permanent-id request': {
    about: "a DOI request of the owner's for a folder of theirs (shared read, write and own)",
    grants: {},
    also: ['reader', 'coowner'],
    hidden: notFound,
    short: notFound,
    make: async (platform) => {
      const marker = markerOf('pid');
      const folder = await folderWithFile(platform, marker);
      const request = await platform.ok('owner', {
        method: 'POST',
        url: '/permanent-id-requests',
        json: { type: 'DOI', folder: folder.id },
      });
      return { marker: request.id, id: request.id, folder: folder.id };
    },
    readBack: (request) => [get(`/permanent-id-requests/${request.id}`)],
  },
  'pid folder': {
    about:
      "a non-empty folder of the owner's (shared read, write and own), for a permanent-ID request",
    grants: { reader: 'read', writer: 'write', coowner: 'own' },
    hidden: { status: 404, code: 'ERR_DOES_NOT_EXIST' },
    short: { status: 403, code: 'ERR_NOT_OWNER' },
    make: async (platform) => {
      const marker = markerOf('pid-folder');
      return { marker, ...(await folderWithFile(platform, marker)) };
    },
    readBack: () => [get('/permanent-id-requests')],
  },
  fasta: {
    about: "a FASTA file of the owner's, shared read, write and own",
    grants: { reader: 'read', writer: 'write', coowner: 'own' },
    hidden: { status: 403, code: 'ERR_NOT_READABLE' },
    short: { status: 403, code: 'ERR_NOT_READABLE' },
    make: async (platform) => {
      const marker = markerOf('fasta');
      await platform.ok('owner', {
        method: 'POST',
        url: `/secured/fileio/upload?dest=${encodeURIComponent(homeOf('owner'))}`,
        form: uploadForm(`${marker}.fasta`, `>${marker}\nACGTACGT\n`),
      });
      const path = `${homeOf('owner')}/${marker}.fasta`;
      await shareReadWriteOwn(platform, path);
      return { marker, path };
    },
    readBack: (fasta) => [
      { method: 'POST', url: '/secured/filesystem/stat', json: { paths: [fasta.path] } },
    ],
  },
  genome: {
    about: 'a genome the owner loaded from their FASTA file: restricted to them',
    grants: {},
    hidden: notFound,
    short: notFound,
    make: async (platform, shared) => {
      const fasta = await shared('fasta');
      await platform.ok('owner', {
        method: 'POST',
        url: '/genomesvc/genomes/load',
        json: { paths: [fasta.path] },
      });
      const genome = await until(
        async () =>
          (await platform.ok('owner', get(`/genomesvc/genomes?search=${fasta.marker}`))).genomes[0],
        `the genome of ${fasta.marker} to load`,
      );
      return { marker: genome.id, id: genome.id };
    },
    readBack: (genome) => [get(`/genomesvc/genomes?search=${genome.id}`)],
  },
  'system message': {
    about: 'an active system message an administrator made: every user reads it',
    owner: 'admin',
    grants: { owner: 'read', reader: 'read', stranger: 'read' },
    hidden: notFound,
    short: forbidden,
    make: async (platform) => {
      const marker = markerOf('system-message');
      const made = await platform.ok('admin', {
        method: 'PUT',
        url: '/admin/notifications/system',
        json: {
          type: 'announcement',
          message: marker,
          deactivation_date: Date.now() + 86_400_000,
          dismissible: true,
        },
      });
      return { marker, id: made['system-notification'].uuid };
    },
    readBack: (message) => [get(`/admin/notifications/system/${message.id}`)],
  },
};

const uuids = (message: Resource) => ({ uuids: [message.id] });

export const accountRows: Row[] = [
  // The account: what the platform knows of a user is for them and for administrators; the
  // sharing dialog's look-up (user-info) gives every signed-in user others' names and e-mail.
  { ops: ['GET /secured/bootstrap'], on: 'home', needs: 'listing' },
  {
    ops: ['GET /api/users/{username}', 'GET /api/users/{username}/status'],
    on: 'account',
    needs: 'read',
    params: () => ({ username: 'owner' }),
  },
  {
    ops: ['GET /secured/user-info'],
    on: 'account',
    needs: 'anyone',
    query: () => ({ username: 'owner' }),
  },
  {
    ops: ['GET /service/users/{username}'],
    on: 'account',
    needs: 'service',
    params: () => ({ username: 'owner' }),
  },
  // Subscriptions and usage: the caller's own.
  {
    ops: [
      'GET /qms/user/plan',
      'GET /qms/user/subscriptions',
      'GET /resource-usage/summary',
      'GET /resource-usage/data/current',
    ],
    on: 'subscription',
    needs: 'listing',
  },
  {
    // Usages name no user: the owner's is the one the administrator set.
    ops: ['GET /qms/user/usages'],
    on: 'subscription',
    needs: 'listing',
    seen: (answer) => answer.text.includes('"usage":1.25'),
  },
  // OAuth: each user's own pending authorizations and token.
  {
    ops: ['GET /oauth/redirect-uris', 'GET /secured/oauth/redirect-uris'],
    on: 'oauth state',
    needs: 'listing',
    // Each call asks for a new authorization of the caller's own: never another's state.
    except: { owner: 'blind' },
  },
  {
    ops: ['GET /secured/oauth/access-code/{apiName}', 'GET /oauth/access-code/{apiName}'],
    on: 'oauth state',
    needs: 'own',
    writes: true,
    fresh: true,
    params: () => ({ apiName: 'extapi' }),
    query: (state) => ({ code: grantedCode(state), state: state.state }),
  },
  {
    ops: ['GET /oauth/token-info/{apiName}', 'GET /secured/oauth/token-info/{apiName}'],
    on: 'oauth token',
    needs: 'own',
    params: () => ({ apiName: 'extapi' }),
  },
  {
    ops: ['DELETE /oauth/token-info/{apiName}', 'DELETE /secured/oauth/token-info/{apiName}'],
    on: 'oauth token',
    needs: 'own',
    writes: true,
    fresh: true,
    // A fresh token replaces the owner's one: the next row makes another.
    spoils: true,
    params: () => ({ apiName: 'extapi' }),
  },
  // Permanent-ID requests: for folders one owns; each user's own.
  { ops: ['GET /permanent-id-requests'], on: 'permanent-id request', needs: 'listing' },
  {
    ops: ['GET /permanent-id-requests/{requestId}'],
    on: 'permanent-id request',
    needs: 'own',
    params: (request) => ({ requestId: request.id }),
  },
  {
    ops: ['POST /permanent-id-requests'],
    on: 'pid folder',
    needs: 'own',
    writes: true,
    fresh: true,
    json: (folder) => ({ type: 'DOI', folder: folder.id }),
  },
  // Genomes: loaded from files one reads; restricted to their owner.
  {
    // The genome service's refusal (403) is relayed as routes.md §15 maps it: ERR_REQUEST_FAILED.
    ops: ['POST /genomesvc/genomes/load'],
    on: 'fasta',
    needs: 'read',
    writes: true,
    json: (fasta) => ({ paths: [fasta.path] }),
    hidden: { status: 500, code: 'ERR_REQUEST_FAILED' },
  },
  {
    ops: ['GET /genomesvc/genomes'],
    on: 'genome',
    needs: 'listing',
    query: (genome) => ({ search: genome.id }),
  },
  {
    ops: ['POST /genomesvc/genomes/{genomeId}/export-fasta'],
    on: 'genome',
    needs: 'own',
    writes: true,
    params: (genome) => ({ genomeId: genome.id }),
    query: () => ({ overwrite: 'true' }),
  },
  // System messages: every user reads the active ones and keeps their own received, seen and
  // dismissed marks; administrators make them.
  {
    ops: [
      'GET /secured/notifications/system/messages',
      'GET /secured/notifications/system/new-messages',
      'GET /secured/notifications/system/unseen-messages',
    ],
    on: 'system message',
    needs: 'listing',
  },
  {
    ops: [
      'POST /secured/notifications/system/received',
      'POST /secured/notifications/system/seen',
      'POST /secured/notifications/system/delete',
    ],
    on: 'system message',
    needs: 'read',
    writes: true,
    json: uuids,
  },
  {
    ops: [
      'POST /secured/notifications/system/mark-all-received',
      'POST /secured/notifications/system/mark-all-seen',
      'DELETE /secured/notifications/system/delete-all',
    ],
    on: 'system message',
    needs: 'read',
    writes: true,
  },
  {
    ops: ['GET /admin/notifications/system', 'GET /admin/notifications/system-types'],
    on: 'system message',
    needs: 'admin',
  },
  {
    ops: ['GET /admin/notifications/system/{uuid}'],
    on: 'system message',
    needs: 'admin',
    params: (message) => ({ uuid: message.id }),
  },
  {
    ops: ['POST /admin/notifications/system/{uuid}'],
    on: 'system message',
    needs: 'admin',
    writes: true,
    params: (message) => ({ uuid: message.id }),
    json: (message) => ({ message: `${message.marker}, updated` }),
  },
  {
    ops: ['DELETE /admin/notifications/system/{uuid}'],
    on: 'system message',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: (message) => ({ uuid: message.id }),
  },
  {
    ops: ['PUT /admin/notifications/system'],
    on: 'system message',
    needs: 'admin',
    writes: true,
    json: () => ({
      type: 'warning',
      message: markerOf('warning'),
      deactivation_date: Date.now() + 60_000,
    }),
    readBack: () => [get('/secured/notifications/system/messages')],
  },
];

// Quick launches and instant launches in the authorization matrix (quick-launches.md,
// instant-launches.md): a private quick launch of the owner's (on the app shared with others,
// which they see but the quick launch they do not), a public one (everyone views it, only its
// creator changes it), the owner's favourites and defaults of them, a global default (read by
// all, kept by administrators) and instant launches of the private and the public one.
import { builtInApps } from '../../src/backends/apps/catalog/built-in.ts';
import { inputOf } from './apps.ts';
import type { Denial, Kind, Resource, Row } from './model.ts';
import { markerOf, type Actor, type Platform } from './platform.ts';

const notFound: Denial = { status: 404, code: 'ERR_NOT_FOUND' };
const notOwner: Denial = { status: 403, code: 'ERR_NOT_OWNER' };
const wordCount = builtInApps[1]!;
/** Every user but the owner, who sees a public thing. */
const everyone = {
  reader: 'read',
  writer: 'read',
  coowner: 'read',
  teammate: 'read',
  listmate: 'read',
  stranger: 'read',
  admin: 'read',
  anonymous: 'read',
} as const;

async function makeQuickLaunch(
  platform: Platform,
  shared: (kind: string) => Promise<Resource>,
  isPublic: boolean,
  builtIn = wordCount,
) {
  const marker = markerOf(isPublic ? 'public-ql' : 'ql');
  // The private one runs the owner's app shared with others; the public one a built-in app.
  const app = isPublic ? undefined : await shared('app');
  const appId = app?.id ?? builtIn.id;
  const form = await platform.ok('owner', { method: 'GET', url: `/apps/de/${appId}` });
  const input = form.groups[0].parameters.find((parameter: any) => parameter.type === 'FileInput');
  const ql = await platform.ok('owner', {
    method: 'POST',
    url: '/quicklaunches',
    json: {
      name: marker,
      app_id: appId,
      is_public: isPublic,
      submission: {
        name: marker,
        output_dir: '/platform/home/owner',
        config: input ? { [input.id]: await inputOf(platform) } : {},
      },
    },
  });
  return { marker, id: ql.id, appId };
}

const quickLaunchKind = (isPublic: boolean, builtIn = wordCount): Kind => ({
  about: isPublic
    ? `a public quick launch of the owner's, of the built-in app ${builtIn.name}: everyone views it`
    : "a private quick launch of the owner's, of the owner's app shared with others",
  grants: isPublic ? everyone : {},
  also: isPublic ? [] : ['reader'],
  hidden: notFound,
  short: notOwner,
  make: (platform, shared) => makeQuickLaunch(platform, shared, isPublic, builtIn),
  readBack: (ql) => [{ method: 'GET', url: `/quicklaunches/${ql.id}` }],
});

/** An instant launch the owner added, of one of their quick launches. */
const instantLaunchKind = (isPublic: boolean): Kind => ({
  about: `an instant launch the owner added, of their ${isPublic ? 'public' : 'private'} quick launch`,
  grants: isPublic ? everyone : {},
  hidden: notFound,
  short: notOwner,
  make: async (platform, shared) => {
    const ql = await shared(isPublic ? 'public quick launch' : 'quick launch');
    const instant = await platform.ok('owner', {
      method: 'PUT',
      url: '/instantlaunches',
      json: { quick_launch_id: ql.id },
    });
    // An administrator's AVU on it, as the navigation drawer's are.
    await platform.ok('admin', {
      method: 'POST',
      url: `/admin/instant-launches/${instant.id}/metadata`,
      json: { avus: [{ attr: 'authz', value: instant.id }] },
    });
    return { marker: instant.id, id: instant.id, ql: ql.id, qlMarker: ql.marker };
  },
  readBack: (instant) => [{ method: 'GET', url: `/instantlaunches/${instant.id}/full` }],
});

const id = (resource: Resource) => ({ qlId: resource.id });
/** How many user defaults each platform's owner has: each is for another built-in app. */
const defaults = new WeakMap<Platform, number>();
const byId = (resource: Resource) => ({ id: resource.id });

export const launchKinds: Record<string, Kind> = {
  'quick launch': quickLaunchKind(false),
  'public quick launch': quickLaunchKind(true),
  // Of another app, which has no global default yet (an app has one at most).
  'another public quick launch': quickLaunchKind(true, builtInApps[3]!),
  'quick launch favourite': {
    about: "the owner's favourite of their public quick launch",
    grants: {},
    hidden: notFound,
    short: notFound,
    make: async (platform, shared) => {
      const ql = await makeQuickLaunch(platform, shared, true);
      const favourite = await platform.ok('owner', {
        method: 'POST',
        url: '/quicklaunches/favorites',
        json: { quick_launch_id: ql.id },
      });
      return { marker: favourite.id, id: favourite.id };
    },
    readBack: () => [{ method: 'GET', url: '/quicklaunches/favorites' }],
  },
  'quick launch default': {
    about: "the owner's default quick launch for an app (their public quick launch)",
    grants: {},
    hidden: notFound,
    short: notFound,
    make: async (platform, shared) => {
      // A user has one default per app: each is of another built-in app's quick launch.
      const made = defaults.get(platform) ?? 0;
      defaults.set(platform, made + 1);
      const ql = await makeQuickLaunch(
        platform,
        shared,
        true,
        builtInApps[made % builtInApps.length]!,
      );
      const userDefault = await platform.ok('owner', {
        method: 'POST',
        url: '/quicklaunches/defaults/user',
        json: { quick_launch_id: ql.id, app_id: ql.appId },
      });
      return { marker: userDefault.id, id: userDefault.id, ql: ql.id, appId: ql.appId };
    },
    readBack: () => [{ method: 'GET', url: '/quicklaunches/defaults/user' }],
  },
  'global default': {
    about: 'the global default quick launch of an app (the public one), which administrators keep',
    owner: 'admin',
    grants: { ...everyone, owner: 'read' },
    hidden: notFound,
    short: { status: 403, code: 'ERR_FORBIDDEN' },
    make: async (platform, shared) => {
      const ql = await shared('public quick launch');
      const made = await platform.ok('admin', {
        method: 'POST',
        url: '/quicklaunches/defaults/global',
        json: { quick_launch_id: ql.id, app_id: ql.appId },
      });
      return { marker: made.id, id: made.id, ql: ql.id, appId: ql.appId };
    },
    readBack: () => [{ method: 'GET', url: '/quicklaunches/defaults/global' }],
  },
  'instant launch': instantLaunchKind(false),
  'public instant launch': instantLaunchKind(true),
};

const favourite = (ql: Resource) => ({ quick_launch_id: ql.id });
const userDefault = (ql: Resource) => ({ quick_launch_id: ql.id, app_id: ql.appId });
const renamed = (ql: Resource, actor: Actor) => ({
  description: `${ql.marker} described by ${actor}`,
});

export const launchRows: Row[] = [
  // Quick launches: the creator's own and the public ones are viewed; only the creator changes one.
  { ops: ['GET /quicklaunches'], on: 'quick launch', needs: 'listing' },
  { ops: ['GET /quicklaunches'], on: 'public quick launch', needs: 'listing' },
  {
    // The quick launches of an app the caller sees: a reader of the app sees it, not the private one.
    ops: ['GET /quicklaunches/apps/{appId}'],
    on: 'quick launch',
    needs: 'listing',
    params: (ql) => ({ appId: ql.appId }),
    except: { stranger: notFound, admin: notFound, anonymous: notFound },
  },
  {
    ops: ['GET /quicklaunches/apps/{appId}'],
    on: 'public quick launch',
    needs: 'listing',
    params: (ql) => ({ appId: ql.appId }),
  },
  {
    ops: ['GET /quicklaunches/{qlId}', 'GET /quicklaunches/{qlId}/app-info'],
    on: 'quick launch',
    needs: 'read',
    params: id,
  },
  {
    ops: ['GET /quicklaunches/{qlId}', 'GET /quicklaunches/{qlId}/app-info'],
    on: 'public quick launch',
    needs: 'read',
    params: id,
  },
  {
    ops: ['PATCH /quicklaunches/{qlId}'],
    on: 'quick launch',
    needs: 'own',
    writes: true,
    params: id,
    json: renamed,
  },
  {
    ops: ['PATCH /quicklaunches/{qlId}'],
    on: 'public quick launch',
    needs: 'own',
    writes: true,
    params: id,
    json: renamed,
  },
  {
    ops: ['DELETE /quicklaunches/{qlId}'],
    on: 'quick launch',
    needs: 'own',
    writes: true,
    fresh: true,
    params: id,
  },
  {
    ops: ['DELETE /quicklaunches/{qlId}'],
    on: 'public quick launch',
    needs: 'own',
    writes: true,
    fresh: true,
    params: id,
  },
  {
    // A quick launch of an app the caller sees, with the owner's (public) input.
    ops: ['POST /quicklaunches'],
    on: 'app',
    needs: 'read',
    writes: true,
    json: (app, actor) => ({
      name: `${app.marker} quick launch of ${actor}`,
      app_id: app.id,
      app_version_id: app.version,
      submission: {
        name: 'saved',
        output_dir: `/platform/home/${actor}`,
        config: { [app.input]: '/platform/home/owner/authz-words.txt' },
      },
    }),
  },
  // Favourites and defaults: the caller's own, of quick launches they view.
  {
    ops: ['POST /quicklaunches/favorites'],
    on: 'quick launch',
    needs: 'read',
    writes: true,
    json: favourite,
  },
  {
    ops: ['POST /quicklaunches/favorites'],
    on: 'public quick launch',
    needs: 'read',
    writes: true,
    fresh: true,
    json: favourite,
  },
  { ops: ['GET /quicklaunches/favorites'], on: 'quick launch favourite', needs: 'listing' },
  {
    ops: ['GET /quicklaunches/favorites/{faveId}'],
    on: 'quick launch favourite',
    needs: 'own',
    params: (fave) => ({ faveId: fave.id }),
  },
  {
    ops: ['DELETE /quicklaunches/favorites/{faveId}'],
    on: 'quick launch favourite',
    needs: 'own',
    writes: true,
    fresh: true,
    params: (fave) => ({ faveId: fave.id }),
  },
  {
    ops: ['POST /quicklaunches/defaults/user'],
    on: 'quick launch',
    needs: 'read',
    writes: true,
    json: userDefault,
  },
  { ops: ['GET /quicklaunches/defaults/user'], on: 'quick launch default', needs: 'listing' },
  {
    ops: ['GET /quicklaunches/defaults/user/{id}'],
    on: 'quick launch default',
    needs: 'own',
    params: byId,
  },
  {
    ops: ['PATCH /quicklaunches/defaults/user/{id}'],
    on: 'quick launch default',
    needs: 'own',
    writes: true,
    params: byId,
    json: (made) => ({ quick_launch_id: made.ql, app_id: made.appId }),
  },
  {
    ops: ['DELETE /quicklaunches/defaults/user/{id}'],
    on: 'quick launch default',
    needs: 'own',
    writes: true,
    fresh: true,
    spoils: true,
    params: byId,
  },
  // Global defaults: everyone reads them; administrators keep them.
  { ops: ['GET /quicklaunches/defaults/global'], on: 'global default', needs: 'listing' },
  {
    ops: ['GET /quicklaunches/defaults/global/{id}'],
    on: 'global default',
    needs: 'read',
    params: byId,
  },
  {
    ops: ['PATCH /quicklaunches/defaults/global/{id}'],
    on: 'global default',
    needs: 'admin',
    writes: true,
    params: byId,
    json: (made) => ({ quick_launch_id: made.ql, app_id: made.appId }),
  },
  {
    // One per app: the administrator deletes the kind's own (made again when next needed).
    ops: ['DELETE /quicklaunches/defaults/global/{id}'],
    on: 'global default',
    needs: 'admin',
    writes: true,
    spoils: true,
    params: byId,
  },
  {
    ops: ['POST /quicklaunches/defaults/global'],
    on: 'another public quick launch',
    needs: 'admin',
    writes: true,
    json: userDefault,
    readBack: () => [{ method: 'GET', url: '/quicklaunches/defaults/global' }],
  },
  // Instant launches: seen with their quick launch; changed by who added them.
  {
    ops: ['GET /instantlaunches', 'GET /instantlaunches/full'],
    on: 'instant launch',
    needs: 'listing',
  },
  {
    ops: ['GET /instantlaunches', 'GET /instantlaunches/full'],
    on: 'public instant launch',
    needs: 'listing',
  },
  {
    ops: ['GET /instantlaunches/{id}', 'GET /instantlaunches/{id}/full'],
    on: 'instant launch',
    needs: 'read',
    params: byId,
  },
  {
    ops: ['GET /instantlaunches/{id}', 'GET /instantlaunches/{id}/full'],
    on: 'public instant launch',
    needs: 'read',
    params: byId,
  },
  {
    ops: ['POST /instantlaunches/{id}'],
    on: 'public instant launch',
    needs: 'own',
    writes: true,
    params: byId,
    json: (instant) => ({ quick_launch_id: instant.ql }),
  },
  {
    ops: ['DELETE /instantlaunches/{id}'],
    on: 'public instant launch',
    needs: 'own',
    writes: true,
    fresh: true,
    params: byId,
  },
  {
    ops: ['PUT /instantlaunches'],
    on: 'quick launch',
    needs: 'read',
    writes: true,
    json: favourite,
  },
  {
    ops: ['GET /instantlaunches/metadata/full'],
    on: 'instant launch',
    needs: 'listing',
    query: (instant) => ({ attribute: 'authz', value: instant.id }),
  },
  {
    ops: ['GET /instantlaunches/metadata/full'],
    on: 'public instant launch',
    needs: 'listing',
    query: (instant) => ({ attribute: 'authz', value: instant.id }),
  },
  // Administrators: every instant launch, its metadata, and the default mappings.
  {
    ops: ['GET /admin/instant-launches/metadata', 'GET /admin/instant-launches/metadata/full'],
    on: 'instant launch',
    needs: 'admin',
    query: (instant) => ({ attribute: 'authz', value: instant.id }),
  },
  {
    ops: ['GET /admin/instant-launches/{id}/metadata'],
    on: 'instant launch',
    needs: 'admin',
    params: byId,
  },
  {
    ops: [
      'POST /admin/instant-launches/{id}/metadata',
      'PUT /admin/instant-launches/{id}/metadata',
    ],
    on: 'instant launch',
    needs: 'admin',
    writes: true,
    params: byId,
    json: (instant) => ({ avus: [{ attr: 'authz', value: instant.id }] }),
    readBack: (instant) => [
      { method: 'GET', url: `/admin/instant-launches/${instant.id}/metadata` },
    ],
  },
  {
    ops: ['POST /admin/instant-launches/{id}'],
    on: 'instant launch',
    needs: 'admin',
    writes: true,
    params: byId,
    json: (instant) => ({ quick_launch_id: instant.ql }),
  },
  {
    ops: ['DELETE /admin/instant-launches/{id}'],
    on: 'instant launch',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: byId,
  },
  {
    ops: ['PUT /admin/instant-launches'],
    on: 'quick launch',
    needs: 'admin',
    writes: true,
    json: (ql) => ({ quick_launch_id: ql.id, added_by: 'owner' }),
    readBack: () => [{ method: 'GET', url: '/instantlaunches' }],
  },
  {
    ops: ['GET /instantlaunches/quicklaunches/public'],
    on: 'public quick launch',
    needs: 'listing',
  },
];

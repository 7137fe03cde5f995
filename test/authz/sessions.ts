// VICE sessions in the authorization matrix (vice.md): an interactive analysis of the owner's,
// running (a tiny HTTP server the tests ship, test/fixtures/tools/vice.sh), shared as the apps
// service shares analyses (read, write and own with three users, read with a team, write with a
// collaborator list). Those who may read the analysis reach the session and read about it; those
// who may write it extend its time or end it; anyone else gets 404, as for a session that does not
// exist. Administrators reach every session through /admin/vice. Beside it, a running analysis
// without a session (a URL import that never ends) for stopping one, and the third-party job
// API's status updates, taken from its addresses only.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtInApps } from '../../src/backends/apps/catalog/built-in.ts';
import { appKinds, listed, shareAnalysis } from './apps.ts';
import type { Denial, Kind, Resource, Row } from './model.ts';
import { homeOf, markerOf, until, type Call, type Platform } from './platform.ts';

/** The folder of the session's program, which the platform is told to allow. */
export const sessionTools = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../fixtures/tools',
);
export const sessionProgram = `${sessionTools}/vice.sh`;

const notFound: Denial = { status: 404, code: 'ERR_NOT_FOUND' };
const forbidden: Denial = { status: 403, code: 'ERR_FORBIDDEN' };

/** The owner's interactive app (its tool the session program), made once per platform. */
const apps = new WeakMap<Platform, Promise<{ id: string; marker: string }>>();
function sessionApp(platform: Platform) {
  let app = apps.get(platform);
  if (!app) {
    app = (async () => {
      const tool = await platform.ok('owner', {
        method: 'POST',
        url: '/tools',
        json: {
          name: 'vice.sh',
          location: sessionTools,
          type: 'interactive',
          interactive: true,
          version: 'authz',
          container: { image: { name: 'host' } },
        },
      });
      const made = await platform.ok('owner', {
        method: 'POST',
        url: '/apps/de',
        json: {
          name: markerOf('session-app'),
          tools: [{ id: tool.id }],
          groups: [{ label: 'Session', parameters: [{ type: 'Text', name: '', label: 'Marker' }] }],
        },
      });
      const form = await platform.ok('owner', { method: 'GET', url: `/apps/de/${made.id}` });
      return { id: made.id, marker: form.groups[0].parameters[0].id };
    })();
    apps.set(platform, app);
  }
  return app;
}

const sessionReadBack = (session: Resource): Call[] => [
  { method: 'GET', url: `/vice/${session.host}/url-ready` },
  { method: 'GET', url: `/analyses/${session.id}/time-limit` },
  { method: 'POST', url: '/analyses/permission-lister', json: { analyses: [session.id] } },
];

/** The URL import app's parameter of the address, as a launch's config names it. */
const urlImport = builtInApps[0]!;
const addressKey = `${urlImport.definition.steps[0]!.id}_${
  urlImport.definition.groups
    .flatMap((group) => group.parameters)
    .find((parameter) => parameter.name === 'address')!.id
}`;

/** Whom an analysis is shared with (shareAnalysis), as the ended analyses of apps.ts are. */
const analysisGrants = appKinds.analysis!.grants;

export const sessionKinds: Record<string, Kind> = {
  'running analysis': {
    about:
      "a running analysis of the owner's (a URL import of an address that never answers), shared as analyses are",
    grants: analysisGrants,
    hidden: notFound,
    short: forbidden,
    make: async (platform, shared) => {
      const marker = markerOf('running');
      const launched = await platform.ok('owner', {
        method: 'POST',
        url: '/analyses',
        json: {
          system_id: 'de',
          app_id: urlImport.id,
          name: marker,
          output_dir: homeOf('owner'),
          config: { [addressKey]: `${platform.silentUrl}/${marker}.txt` },
        },
      });
      await until(
        async () => (await listed(platform, launched.id))?.status === 'Running',
        `analysis ${marker} to run`,
      );
      await shareAnalysis(platform, shared, launched.id);
      return { marker, id: launched.id };
    },
    readBack: (analysis) => [
      { method: 'POST', url: '/analyses/permission-lister', json: { analyses: [analysis.id] } },
      { method: 'GET', url: `/analyses/${analysis.id}/steps` },
    ],
  },
  'vice session': {
    about:
      "a running VICE session of the owner's, its analysis shared read, write and own, read with a team and write with a collaborator list",
    grants: analysisGrants,
    hidden: notFound,
    short: forbidden,
    make: async (platform, shared) => {
      const app = await sessionApp(platform);
      const marker = markerOf('session');
      const launched = await platform.ok('owner', {
        method: 'POST',
        url: '/analyses',
        json: {
          system_id: 'de',
          app_id: app.id,
          name: marker,
          output_dir: homeOf('owner'),
          config: { [app.marker]: marker },
        },
      });
      // The session's host is its step's external id; it is ready once it listens.
      const host = await until(
        async () =>
          (await platform.ok('owner', { method: 'GET', url: `/analyses/${launched.id}/steps` }))
            .steps[0]?.external_id as string | undefined,
        `session ${marker} to have a host`,
      );
      await until(
        async () =>
          (await platform.ok('owner', { method: 'GET', url: `/vice/${host}/url-ready` })).ready,
        `session ${marker} to listen`,
      );
      await shareAnalysis(platform, shared, launched.id);
      return { marker, id: launched.id, host };
    },
    readBack: sessionReadBack,
  },
};

const analysis = (session: Resource) => ({ analysisId: session.id });
/** An address of the public internet (TEST-NET-3), outside every default allow list. */
const outside = '203.0.113.9';
const refusedFromOutside = Object.fromEntries(
  ['reader', 'writer', 'coowner', 'teammate', 'listmate', 'stranger', 'admin', 'anonymous'].map(
    (actor) => [actor, forbidden],
  ),
);
const id = (session: Resource) => ({ id: session.id });
const host = (session: Resource) => ({ host: session.host, '*': 'page' });

export const sessionRows: Row[] = [
  {
    // The session itself, every method: what its program answers, to those who may read it.
    ops: [
      'GET /vice/{host}/{*}',
      'HEAD /vice/{host}/{*}',
      'POST /vice/{host}/{*}',
      'PUT /vice/{host}/{*}',
      'PATCH /vice/{host}/{*}',
      'DELETE /vice/{host}/{*}',
      'OPTIONS /vice/{host}/{*}',
    ],
    on: 'vice session',
    needs: 'read',
    params: host,
  },
  {
    ops: ['GET /vice/{host}/url-ready', 'GET /vice/{host}/description'],
    on: 'vice session',
    needs: 'read',
    params: host,
  },
  {
    ops: ['GET /vice/resources'],
    on: 'vice session',
    needs: 'listing',
    except: {
      reader: 'blind',
      writer: 'blind',
      coowner: 'blind',
      teammate: 'blind',
      listmate: 'blind',
    },
  },
  {
    ops: ['GET /vice/async-data'],
    on: 'vice session',
    needs: 'read',
    query: (session) => ({ 'external-id': session.host }),
  },
  { ops: ['GET /vice/analyses/{id}/external-id'], on: 'vice session', needs: 'read', params: id },
  {
    ops: ['GET /analyses/{analysisId}/logs', 'GET /analyses/{analysisId}/time-limit'],
    on: 'vice session',
    needs: 'read',
    params: analysis,
  },
  {
    ops: ['POST /analyses/{analysisId}/time-limit'],
    on: 'vice session',
    needs: 'write',
    writes: true,
    params: analysis,
  },
  {
    ops: ['POST /vice/analyses/{id}/exit'],
    on: 'vice session',
    needs: 'write',
    writes: true,
    fresh: true,
    params: id,
  },
  {
    ops: ['POST /analyses/{analysisId}/stop'],
    on: 'running analysis',
    needs: 'write',
    writes: true,
    fresh: true,
    params: analysis,
  },
  {
    // The third-party job API's status updates carry no credentials: they are taken only from its
    // addresses (CALLBACKS_ALLOW, loopback by default), never for knowing an analysis's id (its
    // readers see it). The owner stands for the job API, calling from loopback; everyone else
    // calls from the public internet. A running analysis told it runs changes nothing.
    ops: ['POST /callbacks/extapi-job/{jobId}'],
    on: 'vice session',
    needs: 'anyone',
    writes: true,
    params: (session) => ({ jobId: session.id }),
    json: () => ({ status: 'RUNNING' }),
    from: (actor) => (actor === 'owner' ? undefined : outside),
    except: refusedFromOutside,
  },
  // Administrators: every session.
  {
    ops: ['GET /admin/vice/analyses/{id}/time-limit', 'GET /admin/vice/analyses/{id}/external-id'],
    on: 'vice session',
    needs: 'admin',
    params: id,
  },
  {
    ops: ['GET /admin/vice/{host}/url-ready', 'GET /admin/vice/{host}/description'],
    on: 'vice session',
    needs: 'admin',
    params: host,
  },
  { ops: ['GET /admin/vice/resources'], on: 'vice session', needs: 'admin' },
  {
    ops: ['GET /admin/vice/async-data'],
    on: 'vice session',
    needs: 'admin',
    query: (session) => ({ 'external-id': session.host }),
  },
  {
    ops: [
      'POST /admin/vice/analyses/{id}/time-limit',
      'POST /admin/vice/analyses/{id}/save-output-files',
    ],
    on: 'vice session',
    needs: 'admin',
    writes: true,
    params: id,
  },
  {
    ops: ['POST /admin/vice/analyses/{id}/download-input-files'],
    on: 'vice session',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: id,
  },
  {
    ops: ['POST /admin/vice/analyses/{id}/save-and-exit', 'POST /admin/vice/analyses/{id}/exit'],
    on: 'vice session',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: id,
  },
];

// The apps service's part of the authorization matrix (docs/api/sharing.md, apps.md, tools.md,
// analyses.md, pipelines.md): a private app, tool and analysis of the owner's, each shared read,
// write and own with three users, read with a team and write with a collaborator list (so their
// members hold those levels through the group), and the routes on them. What a caller cannot see
// is 404 ERR_NOT_FOUND; what they see without the level a change needs is 403 (ERR_NOT_OWNER for
// apps and analyses, ERR_NOT_WRITEABLE for a tool's change).
import { builtInApps } from '../../src/backends/apps/catalog/built-in.ts';
import type { Denial, Kind, Resource, Row, Shared } from './model.ts';
import {
  bystander,
  homeOf,
  markerOf,
  until,
  uploadForm,
  type Actor,
  type Platform,
} from './platform.ts';

const wordCountTool = builtInApps[1]!.tool.id;
const notFound: Denial = { status: 404, code: 'ERR_NOT_FOUND' };
const notOwner: Denial = { status: 403, code: 'ERR_NOT_OWNER' };
const notWriteable: Denial = { status: 403, code: 'ERR_NOT_WRITEABLE' };
const forbidden: Denial = { status: 403, code: 'ERR_FORBIDDEN' };
/** An app or tool named in a body that the caller cannot see is a bad field of that body. */
const unseenInBody: Denial = { status: 400, code: 'ERR_BAD_OR_MISSING_FIELD' };
/** Deleting and publishing stay the integrator's, an `own` grant aside (apps.md "Who may"). */
const integratorOnly = { coowner: notOwner };

/** Whom the kinds of this file are shared with: users by name, groups by their id. */
const grants = {
  reader: 'read',
  writer: 'write',
  coowner: 'own',
  teammate: 'read',
  listmate: 'write',
} as const;

const user = (id: string) => ({ id, source_id: 'ldap' });
const group = (id: string) => ({ id, source_id: 'g:gsa' });

/** The sharing subjects of `grants`, and the bystander (read), for a body of `/<type>/sharing`. */
async function subjects(shared: Shared) {
  const [team, list] = await Promise.all([shared('team'), shared('list')]);
  return [
    [user('reader'), 'read'],
    [user('writer'), 'write'],
    [user('coowner'), 'own'],
    [group(team.id), 'read'],
    [group(list.id), 'write'],
    [user(bystander), 'read'],
  ] as const;
}

/** Shares the owner's app (or pipeline) `id` with the matrix's subjects, as apps are shared. */
async function shareApp(platform: Platform, shared: Shared, id: string) {
  await platform.ok('owner', {
    method: 'POST',
    url: '/apps/sharing',
    json: {
      sharing: (await subjects(shared)).map(([subject, permission]) => ({
        subject,
        apps: [{ system_id: 'de', app_id: id, permission }],
      })),
    },
  });
}

async function makeApp(platform: Platform, shared: Shared, marker: string) {
  const app = await platform.ok('owner', {
    method: 'POST',
    url: '/apps/de',
    json: {
      name: marker,
      description: `${marker}, an app of the authorization matrix`,
      tools: [{ id: wordCountTool }],
      groups: [
        { label: 'Inputs', parameters: [{ type: 'FileInput', label: 'Text', required: true }] },
      ],
    },
  });
  const base = `/apps/de/${app.id}`;
  const first = await platform.ok('owner', { method: 'GET', url: `${base}/ui` });
  // A second version (the current one), so that a version may be deleted.
  await platform.ok('owner', {
    method: 'POST',
    url: `${base}/versions`,
    json: { ...first, version: '2.0' },
  });
  const ui = await platform.ok('owner', { method: 'GET', url: `${base}/ui` });
  const form = await platform.ok('owner', { method: 'GET', url: base });
  await shareApp(platform, shared, app.id);
  const integrationData = await platform.ok('owner', {
    method: 'GET',
    url: `${base}/integration-data`,
  });
  // A form's parameter ids are `<step id>_<parameter id>`: the step is what pipelines name.
  const input: string = form.groups[0].parameters[0].id;
  return {
    marker,
    id: app.id,
    integrationData: integrationData.id,
    ui,
    firstVersion: app.version_id,
    version: form.version_id,
    input,
    task: input.slice(0, input.indexOf('_')),
  };
}

/** An input file of the owner's, readable by every user (the analyses' and quick launches'). */
const inputs = new WeakMap<Platform, Promise<string>>();
function inputOf(platform: Platform): Promise<string> {
  let path = inputs.get(platform);
  if (!path) {
    path = (async () => {
      const file = `${homeOf('owner')}/authz-words.txt`;
      await platform.ok('owner', {
        method: 'POST',
        url: `/secured/fileio/upload?dest=${encodeURIComponent(homeOf('owner'))}`,
        form: uploadForm('authz-words.txt', 'one two two\n'),
      });
      await platform.ok('owner', {
        method: 'POST',
        url: '/secured/filesystem/anon-files',
        json: { paths: [file] },
      });
      return file;
    })();
    inputs.set(platform, path);
  }
  return path;
}

const listed = async (platform: Platform, id: string) =>
  (
    await platform.ok('owner', {
      method: 'GET',
      url: `/analyses?filter=${encodeURIComponent(JSON.stringify([{ field: 'id', value: id }]))}`,
    })
  ).analyses[0];

async function shareAnalysis(platform: Platform, shared: Shared, id: string) {
  await platform.ok('owner', {
    method: 'POST',
    url: '/analyses/sharing',
    json: {
      sharing: (await subjects(shared)).map(([subject, permission]) => ({
        subject,
        analyses: [{ analysis_id: id, permission }],
      })),
    },
  });
}

export const appKinds: Record<string, Kind> = {
  app: {
    about:
      "a private app of the owner's with two versions, shared read, write and own, read with a team and write with a collaborator list",
    grants,
    hidden: notFound,
    short: notOwner,
    make: (platform, shared) => makeApp(platform, shared, markerOf('app')),
    readBack: (app) => [
      { method: 'GET', url: `/apps/de/${app.id}/ui` },
      {
        method: 'POST',
        url: '/apps/permission-lister',
        json: { apps: [{ system_id: 'de', app_id: app.id }] },
      },
    ],
  },
  tool: {
    about: "a private tool of the owner's, shared as the app is",
    grants,
    hidden: notFound,
    short: notWriteable,
    make: async (platform, shared) => {
      const marker = markerOf('tool');
      const tool = await platform.ok('owner', {
        method: 'POST',
        url: '/tools',
        json: {
          name: marker,
          type: 'executable',
          version: '1.0',
          location: '/usr/bin',
          container: { image: { name: 'authz/tool', tag: '1' } },
        },
      });
      await platform.ok('owner', {
        method: 'POST',
        url: '/tools/sharing',
        json: {
          sharing: (await subjects(shared)).map(([subject, permission]) => ({
            subject,
            tools: [{ tool_id: tool.id, permission }],
          })),
        },
      });
      return { marker, id: tool.id };
    },
    readBack: (tool) => [
      { method: 'GET', url: `/tools/${tool.id}` },
      { method: 'POST', url: '/tools/permission-lister', json: { tools: [tool.id] } },
    ],
  },
  analysis: {
    about: "an ended analysis of the owner's (the shared app run), shared as the app is",
    grants,
    hidden: notFound,
    short: forbidden,
    make: async (platform, shared) => {
      const app = await shared('app');
      const marker = markerOf('analysis');
      const launched = await platform.ok('owner', {
        method: 'POST',
        url: '/analyses',
        json: {
          system_id: 'de',
          app_id: app.id,
          app_version_id: app.version,
          name: marker,
          output_dir: homeOf('owner'),
          config: { [app.input]: await inputOf(platform) },
        },
      });
      await until(
        async () => ['Completed', 'Failed'].includes((await listed(platform, launched.id))?.status),
        `analysis ${marker} to end`,
      );
      await shareAnalysis(platform, shared, launched.id);
      return { marker, id: launched.id };
    },
    readBack: (analysis) => [
      { method: 'POST', url: '/analyses/permission-lister', json: { analyses: [analysis.id] } },
      {
        method: 'GET',
        url: `/analyses?include-deleted=true&filter=${encodeURIComponent(JSON.stringify([{ field: 'id', value: analysis.id }]))}`,
      },
    ],
  },
};

const app = (resource: Resource) => ({ systemId: 'de', appId: resource.id });
const version = (resource: Resource) => ({ ...app(resource), versionId: resource.firstVersion });
const tool = (resource: Resource) => ({ toolId: resource.id });
const analysis = (resource: Resource) => ({ analysisId: resource.id });
const documentation = (resource: Resource) => ({ documentation: `how to use ${resource.marker}` });

/** Launching the app as `actor`: its output in the caller's home. */
const launch = (resource: Resource, actor: Actor) => ({
  system_id: 'de',
  app_id: resource.id,
  // The version whose form the kind read (rows add newer ones).
  app_version_id: resource.version,
  name: `${resource.marker} by ${actor}`,
  output_dir: homeOf(actor),
  config: { [resource.input]: `${homeOf('owner')}/authz-words.txt` },
});

export const appRows: Row[] = [
  // Apps: listed and read with read, edited with write, deleted and published by the integrator.
  { ops: ['GET /apps'], on: 'app', needs: 'listing', query: (app) => ({ search: app.marker }) },
  {
    ops: ['GET /apps/categories/{systemId}/{categoryId}'],
    on: 'app',
    needs: 'listing',
    // "Shared with me": what others shared with the caller (the owner's own app is not there).
    params: () => ({ systemId: 'de', categoryId: 'eeeeeeee-eeee-eeee-eeee-eeeeeeeeeeee' }),
    except: { owner: 'blind' },
  },
  {
    ops: [
      'GET /apps/{systemId}/{appId}',
      'GET /apps/{systemId}/{appId}/listing',
      'GET /apps/{systemId}/{appId}/details',
      'GET /apps/{systemId}/{appId}/documentation',
      'GET /apps/{systemId}/{appId}/integration-data',
      'GET /apps/{systemId}/{appId}/tasks',
      'GET /apps/{systemId}/{appId}/tools',
    ],
    on: 'app',
    needs: 'read',
    params: app,
  },
  {
    ops: [
      'GET /apps/{systemId}/{appId}/versions/{versionId}',
      'GET /apps/{systemId}/{appId}/versions/{versionId}/details',
      'GET /apps/{systemId}/{appId}/versions/{versionId}/documentation',
      'GET /apps/{systemId}/{appId}/versions/{versionId}/integration-data',
      'GET /apps/{systemId}/{appId}/versions/{versionId}/tasks',
      'GET /apps/{systemId}/{appId}/versions/{versionId}/tools',
    ],
    on: 'app',
    needs: 'read',
    params: version,
  },
  {
    ops: [
      'GET /apps/{systemId}/{appId}/ui',
      'GET /apps/{systemId}/{appId}/is-publishable',
      'GET /apps/{systemId}/{appId}/versions/{versionId}/ui',
    ],
    on: 'app',
    needs: 'write',
    params: version,
  },
  {
    ops: ['PUT /apps/{systemId}/{appId}'],
    on: 'app',
    needs: 'write',
    writes: true,
    params: app,
    json: (app) => ({ ...app.ui, description: `${app.marker}, as the editor sent it` }),
  },
  {
    ops: ['PATCH /apps/{systemId}/{appId}'],
    on: 'app',
    needs: 'write',
    writes: true,
    params: app,
    json: (app) => ({ description: `${app.marker}, relabelled` }),
  },
  {
    ops: [
      'POST /apps/{systemId}/{appId}/documentation',
      'PATCH /apps/{systemId}/{appId}/documentation',
    ],
    on: 'app',
    needs: 'write',
    writes: true,
    params: app,
    json: documentation,
    readBack: (app) => [{ method: 'GET', url: `/apps/de/${app.id}/documentation` }],
  },
  {
    ops: [
      'POST /apps/{systemId}/{appId}/versions/{versionId}/documentation',
      'PATCH /apps/{systemId}/{appId}/versions/{versionId}/documentation',
    ],
    on: 'app',
    needs: 'write',
    writes: true,
    params: version,
    json: documentation,
    readBack: (app) => [
      { method: 'GET', url: `/apps/de/${app.id}/versions/${app.firstVersion}/documentation` },
    ],
  },
  {
    ops: ['PATCH /apps/{systemId}/{appId}/versions/{versionId}'],
    on: 'app',
    needs: 'write',
    writes: true,
    params: version,
    json: () => ({ version: '1.0' }),
  },
  {
    ops: ['PUT /apps/{systemId}/{appId}/versions/{versionId}'],
    on: 'app',
    needs: 'write',
    writes: true,
    params: (resource) => ({ ...app(resource), versionId: resource.version }),
    json: (resource) => ({ ...resource.ui, description: `${resource.marker}, version replaced` }),
  },
  {
    ops: ['POST /apps/{systemId}/{appId}/versions'],
    on: 'app',
    needs: 'write',
    writes: true,
    params: app,
    json: (app, actor) => ({ ...app.ui, version: `${markerOf('version')} by ${actor}` }),
  },
  {
    ops: ['PUT /apps/{systemId}/{appId}/versions'],
    on: 'app',
    needs: 'write',
    writes: true,
    fresh: true,
    params: app,
    json: (app) => ({ versions: [{ version_id: app.firstVersion }, { version_id: app.version }] }),
  },
  {
    ops: ['POST /apps/{systemId}/{appId}/versions/{versionId}/copy'],
    on: 'app',
    needs: 'write',
    writes: true,
    params: version,
  },
  {
    ops: ['DELETE /apps/{systemId}/{appId}/versions/{versionId}'],
    on: 'app',
    needs: 'own',
    writes: true,
    fresh: true,
    params: version,
    except: integratorOnly,
  },
  {
    ops: ['DELETE /apps/{systemId}/{appId}'],
    on: 'app',
    needs: 'own',
    writes: true,
    fresh: true,
    params: app,
    except: integratorOnly,
  },
  {
    ops: ['POST /apps/shredder'],
    on: 'app',
    needs: 'own',
    writes: true,
    fresh: true,
    json: (app) => ({ app_ids: [app.id] }),
    except: integratorOnly,
  },
  {
    ops: ['POST /apps/{systemId}/{appId}/publish'],
    on: 'app',
    needs: 'own',
    writes: true,
    fresh: true,
    params: app,
    json: documentation,
    except: integratorOnly,
  },
  // What a reader does with an app of their own making: a copy, a favourite, a rating, a launch.
  {
    ops: ['POST /apps/{systemId}/{appId}/copy'],
    on: 'app',
    needs: 'read',
    writes: true,
    params: app,
  },
  {
    ops: [
      'PUT /apps/{systemId}/{appId}/favorite',
      'DELETE /apps/{systemId}/{appId}/favorite',
      'DELETE /apps/{systemId}/{appId}/rating',
    ],
    on: 'app',
    needs: 'read',
    writes: true,
    params: app,
  },
  {
    ops: ['POST /apps/{systemId}/{appId}/rating'],
    on: 'app',
    needs: 'read',
    writes: true,
    params: app,
    json: () => ({ rating: 4 }),
  },
  { ops: ['POST /analyses'], on: 'app', needs: 'read', writes: true, json: launch },
  // The app's AVUs: read by whoever sees it, changed by its integrator.
  {
    ops: ['GET /apps/{appId}/metadata'],
    on: 'app',
    needs: 'read',
    params: (app) => ({ appId: app.id }),
  },
  {
    ops: ['POST /apps/{appId}/metadata', 'PUT /apps/{appId}/metadata'],
    on: 'app',
    needs: 'own',
    writes: true,
    params: (app) => ({ appId: app.id }),
    json: (app) => ({ avus: [{ attr: 'colour', value: app.marker, unit: '' }] }),
    except: integratorOnly,
    readBack: (app) => [{ method: 'GET', url: `/apps/${app.id}/metadata` }],
  },
  // Sharing: the owner's (own); each item reports its outcome.
  {
    ops: ['POST /apps/permission-lister'],
    on: 'app',
    needs: 'read',
    json: (app) => ({ apps: [{ system_id: 'de', app_id: app.id }] }),
  },
  {
    ops: ['POST /apps/sharing'],
    on: 'app',
    needs: 'own',
    writes: true,
    fresh: true,
    json: (app) => ({
      sharing: [
        {
          subject: user('commoner'),
          apps: [{ system_id: 'de', app_id: app.id, permission: 'read' }],
        },
      ],
    }),
    hidden: { item: 'ERR_NOT_FOUND' },
    short: { item: 'ERR_NOT_OWNER' },
  },
  {
    ops: ['POST /apps/unsharing'],
    on: 'app',
    needs: 'own',
    writes: true,
    fresh: true,
    json: (app) => ({
      unsharing: [{ subject: user(bystander), apps: [{ system_id: 'de', app_id: app.id }] }],
    }),
    hidden: { item: 'ERR_NOT_FOUND' },
    short: { item: 'ERR_NOT_OWNER' },
  },
  // Pipelines: made of apps the caller sees.
  {
    ops: ['POST /apps/pipelines'],
    on: 'app',
    needs: 'read',
    writes: true,
    json: (app) => ({
      name: `pipeline of ${app.marker}`,
      steps: [{ name: 'only', task_id: app.task, app_type: 'DE' }],
      mappings: [],
    }),
    hidden: unseenInBody,
  },
  // Tools.
  { ops: ['GET /tools'], on: 'tool', needs: 'listing', query: (tool) => ({ search: tool.marker }) },
  {
    ops: [
      'GET /tools/{toolId}',
      'GET /tools/{toolId}/apps',
      'GET /tools/{toolId}/integration-data',
    ],
    on: 'tool',
    needs: 'read',
    params: tool,
  },
  {
    ops: ['PATCH /tools/{toolId}'],
    on: 'tool',
    needs: 'write',
    writes: true,
    params: tool,
    json: (tool) => ({ description: `${tool.marker}, changed` }),
  },
  {
    ops: ['DELETE /tools/{toolId}'],
    on: 'tool',
    needs: 'own',
    writes: true,
    fresh: true,
    params: tool,
    short: notOwner,
  },
  {
    // An app made of a tool the caller sees.
    ops: ['POST /apps/{systemId}'],
    on: 'tool',
    needs: 'read',
    writes: true,
    params: () => ({ systemId: 'de' }),
    json: (tool, actor) => ({
      name: `an app of ${tool.marker} by ${actor}`,
      tools: [{ id: tool.id }],
      groups: [],
    }),
    hidden: unseenInBody,
  },
  {
    ops: ['POST /tools/permission-lister'],
    on: 'tool',
    needs: 'read',
    json: (tool) => ({ tools: [tool.id] }),
  },
  {
    ops: ['POST /tools/sharing'],
    on: 'tool',
    needs: 'own',
    writes: true,
    fresh: true,
    json: (tool) => ({
      sharing: [{ subject: user('commoner'), tools: [{ tool_id: tool.id, permission: 'read' }] }],
    }),
    hidden: { item: 'ERR_NOT_FOUND' },
    short: { item: 'ERR_NOT_OWNER' },
  },
  {
    ops: ['POST /tools/unsharing'],
    on: 'tool',
    needs: 'own',
    writes: true,
    fresh: true,
    json: (tool) => ({ unsharing: [{ subject: user(bystander), tools: [tool.id] }] }),
    hidden: { item: 'ERR_NOT_FOUND' },
    short: { item: 'ERR_NOT_OWNER' },
  },
  // Analyses: read with read, renamed with write, deleted and shared by the owner.
  { ops: ['GET /dashboard'], on: 'analysis', needs: 'listing' },
  {
    ops: ['GET /analyses'],
    on: 'analysis',
    needs: 'listing',
    query: (analysis) => ({
      filter: JSON.stringify([{ field: 'id', value: analysis.id }]),
    }),
  },
  {
    ops: [
      'GET /analyses/{analysisId}/history',
      'GET /analyses/{analysisId}/parameters',
      'GET /analyses/{analysisId}/relaunch-info',
      'GET /analyses/{analysisId}/steps',
    ],
    on: 'analysis',
    needs: 'read',
    params: analysis,
  },
  {
    ops: ['PATCH /analyses/{analysisId}'],
    on: 'analysis',
    needs: 'write',
    writes: true,
    params: analysis,
    json: (analysis) => ({ description: `${analysis.marker}, described` }),
  },
  {
    // Deleting stays the submitter's: to anyone else the analysis is not theirs to delete (404).
    ops: ['DELETE /analyses/{analysisId}'],
    on: 'analysis',
    needs: 'own',
    writes: true,
    fresh: true,
    params: analysis,
    short: notFound,
    except: { coowner: notFound },
  },
  {
    ops: ['POST /analyses/shredder'],
    on: 'analysis',
    needs: 'own',
    writes: true,
    fresh: true,
    json: (analysis) => ({ analyses: [analysis.id] }),
    short: notFound,
    except: { coowner: notFound },
  },
  {
    ops: ['POST /analyses/relauncher'],
    on: 'analysis',
    needs: 'read',
    writes: true,
    json: (analysis) => ({ analyses: [analysis.id] }),
  },
  {
    ops: ['POST /analyses/permission-lister'],
    on: 'analysis',
    needs: 'read',
    json: (analysis) => ({ analyses: [analysis.id] }),
  },
  {
    ops: ['POST /analyses/sharing'],
    on: 'analysis',
    needs: 'own',
    writes: true,
    fresh: true,
    json: (analysis) => ({
      sharing: [
        { subject: user('commoner'), analyses: [{ analysis_id: analysis.id, permission: 'read' }] },
      ],
    }),
    hidden: { item: 'ERR_NOT_FOUND' },
    short: { item: 'ERR_NOT_OWNER' },
  },
  {
    ops: ['POST /analyses/unsharing'],
    on: 'analysis',
    needs: 'own',
    writes: true,
    fresh: true,
    json: (analysis) => ({ unsharing: [{ subject: user(bystander), analyses: [analysis.id] }] }),
    hidden: { item: 'ERR_NOT_FOUND' },
    short: { item: 'ERR_NOT_OWNER' },
  },
];

export { listed, shareAnalysis, shareApp, inputOf, launch };

// The apps catalog around the apps in the authorization matrix (pipelines.md, apps.md's
// communities, ontologies.md): a pipeline of the owner's (made of their shared app, shared as apps
// are), the owner's app tagged into their community, an active ontology and an app classified
// under it. Pipelines follow the apps' levels; an app joins or leaves a community by its
// integrator or an admin of the community; listings show only the apps the caller sees.
import { ontologyXml, iri } from '../support/ontology-fixture.ts';
import { appKinds, shareApp } from './apps.ts';
import type { Denial, Kind, Resource, Row } from './model.ts';
import { markerOf, type Platform } from './platform.ts';

const notFound: Denial = { status: 404, code: 'ERR_NOT_FOUND' };
const notOwner: Denial = { status: 403, code: 'ERR_NOT_OWNER' };
const forbidden: Denial = { status: 403, code: 'ERR_FORBIDDEN' };
const communityTag = 'cyverse-community';
/** The attribute that classifies apps under the ontology's classes. */
const classAttr = 'rdf:type';

/** The ontology made active on a platform, once: its version. */
const ontologies = new WeakMap<Platform, Promise<string>>();
export function activeOntology(platform: Platform): Promise<string> {
  let version = ontologies.get(platform);
  if (!version) {
    version = (async () => {
      const form = new FormData();
      form.append('ontology-xml', new Blob([ontologyXml({ version: 'authz' })]), 'ontology.owl');
      const uploaded = await platform.ok('admin', {
        method: 'POST',
        url: '/admin/ontologies',
        form,
      });
      const path = `/admin/ontologies/${encodeURIComponent(uploaded.version)}`;
      await platform.ok('admin', {
        method: 'PUT',
        url: `${path}/${encodeURIComponent(iri('Topic'))}`,
      });
      await platform.ok('admin', { method: 'POST', url: path });
      return uploaded.version as string;
    })();
    ontologies.set(platform, version);
  }
  return version;
}

const appGrants = appKinds.app!.grants;

export const catalogKinds: Record<string, Kind> = {
  pipeline: {
    about: "a pipeline of the owner's, of their shared app, shared as apps are",
    grants: appGrants,
    hidden: notFound,
    short: notOwner,
    make: async (platform, shared) => {
      const app = await shared('app');
      const marker = markerOf('pipeline');
      const made = await platform.ok('owner', {
        method: 'POST',
        url: '/apps/pipelines',
        json: {
          name: marker,
          steps: [{ name: 'only', task_id: app.task, app_type: 'DE' }],
          mappings: [],
        },
      });
      await shareApp(platform, shared, made.id);
      return { marker, id: made.id, version: made.version_id, ui: made };
    },
    readBack: (pipeline) => [{ method: 'GET', url: `/apps/pipelines/${pipeline.id}/ui` }],
  },
  'community app': {
    about:
      "the owner's shared app, tagged into the owner's community (whose other admin is the co-owner)",
    grants: appGrants,
    hidden: notFound,
    short: forbidden,
    make: async (platform, shared) => {
      const [app, community] = await Promise.all([shared('app'), shared('community')]);
      await platform.ok('owner', {
        method: 'POST',
        url: `/apps/${app.id}/communities`,
        json: { avus: [{ attr: communityTag, value: community.name, unit: '' }] },
      });
      return { ...app, community: community.name };
    },
    readBack: (app) => [{ method: 'GET', url: `/apps/${app.id}/metadata` }],
  },
  'spare ontology': {
    about:
      'an ontology version an administrator uploaded (not the active one), its Operation hierarchy saved',
    owner: 'admin',
    grants: {},
    hidden: forbidden,
    short: forbidden,
    make: async (platform) => {
      const marker = markerOf('ontology');
      const form = new FormData();
      form.append('ontology-xml', new Blob([ontologyXml({ version: marker })]), 'ontology.owl');
      const uploaded = await platform.ok('admin', {
        method: 'POST',
        url: '/admin/ontologies',
        form,
      });
      await platform.ok('admin', {
        method: 'PUT',
        url: `/admin/ontologies/${encodeURIComponent(uploaded.version)}/${encodeURIComponent(iri('Operation'))}`,
      });
      return { marker, version: uploaded.version };
    },
    readBack: (ontology) => [
      { method: 'GET', url: '/admin/ontologies' },
      { method: 'GET', url: `/admin/ontologies/${encodeURIComponent(ontology.version)}` },
    ],
  },
  'unclassified app': {
    about:
      "an app of the owner's (shared as apps are) classified nowhere, under the active ontology",
    grants: appGrants,
    hidden: notFound,
    short: notOwner,
    make: async (platform, shared) => {
      await activeOntology(platform);
      return appKinds.app!.make(platform, shared);
    },
    readBack: (app) => [{ method: 'GET', url: `/apps/${app.id}/metadata` }],
  },
  'classified app': {
    about:
      "an app of the owner's (shared as apps are) classified under the active ontology's Genomics",
    grants: appGrants,
    hidden: notFound,
    short: notOwner,
    make: async (platform, shared) => {
      await activeOntology(platform);
      const app = await appKinds.app!.make(platform, shared);
      await platform.ok('owner', {
        method: 'POST',
        url: `/apps/${app.id}/metadata`,
        json: { avus: [{ attr: classAttr, value: iri('Genomics'), unit: '' }] },
      });
      return { ...app, version: await activeOntology(platform) };
    },
    readBack: (app) => [{ method: 'GET', url: `/apps/${app.id}/metadata` }],
  },
};

const pipeline = (resource: Resource) => ({ appId: resource.id });
const pipelineVersion = (resource: Resource) => ({
  appId: resource.id,
  versionId: resource.version,
});
/** The editor's body: the pipeline as `ui` answers it, with a label of its own. */
const pipelineBody = (label?: string) => (resource: Resource) => ({
  name: resource.marker,
  description: `${resource.marker}, saved again`,
  ...(label ? { version: label } : {}),
  steps: resource.ui.steps,
  mappings: resource.ui.mappings,
});
const tag = (app: Resource) => ({ avus: [{ attr: communityTag, value: app.community, unit: '' }] });
const root = encodeURIComponent(iri('Topic'));

export const catalogRows: Row[] = [
  // Pipelines: edited with write, copied by whoever sees them.
  {
    ops: ['GET /apps/pipelines/{appId}/ui'],
    on: 'pipeline',
    needs: 'write',
    params: pipeline,
  },
  {
    ops: ['GET /apps/pipelines/{appId}/versions/{versionId}/ui'],
    on: 'pipeline',
    needs: 'write',
    params: pipelineVersion,
  },
  {
    ops: ['PUT /apps/pipelines/{appId}'],
    on: 'pipeline',
    needs: 'write',
    writes: true,
    params: pipeline,
    json: pipelineBody(),
  },
  {
    ops: ['PUT /apps/pipelines/{appId}/versions/{versionId}'],
    on: 'pipeline',
    needs: 'write',
    writes: true,
    params: pipelineVersion,
    json: pipelineBody(),
  },
  {
    ops: ['POST /apps/pipelines/{appId}/versions'],
    on: 'pipeline',
    needs: 'write',
    writes: true,
    params: pipeline,
    json: (resource, actor) => pipelineBody(`${markerOf('version')} by ${actor}`)(resource),
  },
  {
    ops: ['POST /apps/pipelines/{appId}/versions/{versionId}/copy'],
    on: 'pipeline',
    needs: 'write',
    writes: true,
    params: pipelineVersion,
  },
  {
    ops: ['POST /apps/pipelines/{appId}/copy'],
    on: 'pipeline',
    needs: 'read',
    writes: true,
    params: pipeline,
  },
  // Communities of apps: the integrator or a community admin tags; listings show what one sees.
  {
    ops: ['GET /apps/communities/{communityId}/apps'],
    on: 'community app',
    needs: 'listing',
    params: (app) => ({ communityId: app.community }),
  },
  {
    ops: ['GET /admin/apps/communities/{communityId}/apps'],
    on: 'community app',
    needs: 'admin',
    params: (app) => ({ communityId: app.community }),
  },
  {
    ops: ['POST /apps/{appId}/communities', 'DELETE /apps/{appId}/communities'],
    on: 'community app',
    needs: 'own',
    writes: true,
    params: (app) => ({ appId: app.id }),
    // The owner is the app's integrator; the co-owner an admin of the community (their `own`
    // grant on the app alone would not do); those who only see the app are refused.
    json: tag,
  },
  // Apps under the active ontology's hierarchies.
  {
    ops: ['GET /apps/hierarchies/{rootIri}/apps'],
    on: 'classified app',
    needs: 'listing',
    params: () => ({ rootIri: iri('Topic') }),
    query: () => ({ attr: classAttr }),
  },
  {
    // The classes with apps the caller sees below them: Genomics only for those who see this one.
    ops: ['GET /apps/hierarchies/{rootIri}'],
    on: 'classified app',
    needs: 'listing',
    params: () => ({ rootIri: iri('Topic') }),
    query: () => ({ attr: classAttr }),
    seen: (answer) => answer.text.includes('Genomics'),
  },
  {
    ops: ['GET /apps/hierarchies/{rootIri}/unclassified'],
    on: 'unclassified app',
    needs: 'listing',
    params: () => ({ rootIri: iri('Topic') }),
    query: (app) => ({ attr: classAttr, search: app.marker }),
  },
  // Administrators' ontologies.
  { ops: ['GET /admin/ontologies'], on: 'classified app', needs: 'admin' },
  {
    ops: [
      'GET /admin/ontologies/{ontologyVersion}',
      'GET /admin/ontologies/{ontologyVersion}/{rootIri}',
      'GET /admin/ontologies/{ontologyVersion}/{rootIri}/apps',
      'GET /admin/ontologies/{ontologyVersion}/{rootIri}/unclassified',
    ],
    on: 'classified app',
    needs: 'admin',
    params: (app) => ({ ontologyVersion: app.version, rootIri: iri('Topic') }),
    query: () => ({ attr: classAttr }),
  },
  {
    ops: [
      'POST /admin/ontologies/{ontologyVersion}',
      'PUT /admin/ontologies/{ontologyVersion}/{rootIri}',
    ],
    on: 'classified app',
    needs: 'admin',
    writes: true,
    params: (app) => ({ ontologyVersion: app.version, rootIri: iri('Topic') }),
    readBack: () => [{ method: 'GET', url: `/apps/hierarchies/${root}?attr=${classAttr}` }],
  },
  {
    ops: ['POST /admin/ontologies'],
    on: 'spare ontology',
    needs: 'admin',
    writes: true,
    form: () => {
      const form = new FormData();
      form.append(
        'ontology-xml',
        new Blob([ontologyXml({ version: markerOf('ontology') })]),
        'ontology.owl',
      );
      return form;
    },
  },
  {
    ops: ['DELETE /admin/ontologies/{ontologyVersion}/{rootIri}'],
    on: 'spare ontology',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: (ontology) => ({ ontologyVersion: ontology.version, rootIri: iri('Operation') }),
  },
  {
    ops: ['DELETE /admin/ontologies/{ontologyVersion}'],
    on: 'spare ontology',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: (ontology) => ({ ontologyVersion: ontology.version }),
  },
];

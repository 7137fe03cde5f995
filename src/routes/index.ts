// Every route the gateway serves, by area: find a route from its OpenAPI tag here, then open the
// area's file, routes/<name>.ts, or folder, routes/<name>/index.ts. Each area owns its tags (every
// tag of shared/tags.ts belongs to exactly one area), lists its passthrough rows (data: method, path,
// backend, identity style) and registers the routes that aggregate backend calls in its plugin.
// src/app.ts registers this list (registerAreas, shared/area.ts). Order: routes.md's sections.
import { adminPassthroughs, adminRoutes } from './admin/index.ts';
import { analysisPassthroughs } from './analyses/index.ts';
import { quickLaunchCreateRoute } from './analyses/quicklaunches.ts';
import { appPassthroughs } from './apps/index.ts';
import type { Area } from './shared/area.ts';
import { bagPassthroughs } from './bags.ts';
import { bootstrapRoutes } from './bootstrap.ts';
import { callbackPassthroughs } from './callbacks.ts';
import { cogeRoutes } from './coge.ts';
import { dataPassthroughs, dataRoutes } from './data/index.ts';
import { favoriteRoutes } from './favorites.ts';
import { filesystemPassthroughs, filesystemRoutes } from './filesystem/index.ts';
import { instantLaunchPassthroughs, viceRoutes } from './instant-launches/index.ts';
import { dashboardPassthroughs, dashboardRoutes } from './dashboard.ts';
import { miscPassthroughs, miscRoutes } from './misc/index.ts';
import { notificationPassthroughs, notificationRoutes } from './notifications/index.ts';
import { operationsRoutes } from './operations.ts';
import {
  permanentIdRequestPassthroughs,
  permanentIdRequestRoutes,
} from './permanent-id-requests/index.ts';
import { qmsPassthroughs, qmsRoutes } from './qms.ts';
import { requestPassthroughs, requestRoutes } from './requests/index.ts';
import { serviceAccountPassthroughs, serviceAccountRoutes } from './service-accounts.ts';
import { supportRoutes } from './support.ts';
import { teamPassthroughs } from './teams.ts';
import { identityProviderRoutes, tokenRoutes } from './token/index.ts';
import { toolPassthroughs } from './tools.ts';
import { userInfoRoutes } from './user-info.ts';
import { userPortalRoutes } from './user-portal.ts';

export const areas: readonly Area[] = [
  {
    name: 'misc',
    tags: ['misc', 'admin-comments'],
    passthroughs: miscPassthroughs,
    plugin: miscRoutes,
  },
  { name: 'token', tags: ['token', 'admin-token'], passthroughs: [], plugin: tokenRoutes },
  {
    name: 'identity-provider',
    tags: ['identity-provider'],
    passthroughs: [],
    plugin: identityProviderRoutes,
  },
  { name: 'operations', tags: ['operations'], passthroughs: [], plugin: operationsRoutes },
  { name: 'callbacks', tags: ['callbacks'], passthroughs: callbackPassthroughs },
  { name: 'bootstrap', tags: ['bootstrap'], passthroughs: [], plugin: bootstrapRoutes },
  {
    name: 'user-info',
    tags: ['user-info'],
    passthroughs: [],
    plugin: async (app, deps) => {
      await userInfoRoutes(app, deps);
      await userPortalRoutes(app, deps);
    },
  },
  { name: 'favorites', tags: ['favorites'], passthroughs: [], plugin: favoriteRoutes },
  {
    name: 'filesystem',
    tags: ['filesystem', 'fileio'],
    passthroughs: filesystemPassthroughs,
    plugin: filesystemRoutes,
  },
  {
    name: 'notifications',
    tags: ['notifications'],
    passthroughs: notificationPassthroughs,
    plugin: notificationRoutes,
  },
  {
    name: 'analyses',
    tags: ['analyses', 'analyses-quicklaunches'],
    passthroughs: analysisPassthroughs,
    plugin: quickLaunchCreateRoute,
  },
  {
    name: 'data',
    tags: ['data', 'admin-filesystem', 'tags'],
    passthroughs: dataPassthroughs,
    plugin: dataRoutes,
  },
  {
    name: 'permanent-id-requests',
    tags: ['permanent-id-requests', 'admin-permanent-id-requests'],
    passthroughs: permanentIdRequestPassthroughs,
    plugin: permanentIdRequestRoutes,
  },
  { name: 'coge', tags: ['coge'], passthroughs: [], plugin: cogeRoutes },
  {
    name: 'apps',
    tags: [
      'apps',
      'app-versions',
      'app-categories',
      'app-hierarchies',
      'app-communities',
      'app-community-tags',
      'app-element-types',
      'app-metadata',
      'app-pipelines',
      'admin-apps',
      'admin-tools',
      'admin-tool-requests',
      'admin-reference-genomes',
    ],
    passthroughs: appPassthroughs,
  },
  {
    name: 'tools',
    tags: ['tools', 'gpu-models', 'tool-requests', 'reference-genomes', 'webhooks'],
    passthroughs: toolPassthroughs,
  },
  {
    name: 'instant-launches',
    tags: ['instant-launches', 'admin-instant-launches', 'vice', 'admin-vice'],
    passthroughs: instantLaunchPassthroughs,
    plugin: viceRoutes,
  },
  { name: 'bags', tags: ['bags'], passthroughs: bagPassthroughs },
  {
    name: 'teams',
    tags: ['collaborator-lists', 'teams', 'communities', 'admin-communities', 'subjects'],
    passthroughs: teamPassthroughs,
  },
  {
    name: 'qms',
    tags: ['qms', 'admin-qms', 'resource-usage', 'admin-resource-usage'],
    passthroughs: qmsPassthroughs,
    plugin: qmsRoutes,
  },
  {
    name: 'requests',
    tags: ['requests', 'admin-requests', 'admin-request-types'],
    passthroughs: requestPassthroughs,
    plugin: requestRoutes,
  },
  {
    name: 'dashboard',
    tags: ['dashboard'],
    passthroughs: dashboardPassthroughs,
    plugin: dashboardRoutes,
  },
  { name: 'support', tags: ['support'], passthroughs: [], plugin: supportRoutes },
  {
    name: 'admin',
    tags: ['admin', 'admin-settings', 'admin-user-info'],
    passthroughs: adminPassthroughs,
    plugin: adminRoutes,
  },
  {
    name: 'service-accounts',
    tags: ['service-account-email', 'service-account-qms', 'service-account-user-info'],
    passthroughs: serviceAccountPassthroughs,
    plugin: serviceAccountRoutes,
  },
];

/** Every passthrough row of every area. */
export const passthroughRoutes = areas.flatMap((area) => area.passthroughs);

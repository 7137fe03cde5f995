import cluster from 'node:cluster';
import type { EmbeddedService } from '../service.ts';
import { openSharedDataStore } from '../data-info/index.ts';
import { documented } from './documented.ts';
import { unservedLiteralRoutesPlugin } from './unserved-literal-routes.ts';
import { accountRoutes, workshopGroupRoutes, workspaceAdminRoutes } from './account/index.ts';
import {
  adminCategoryRoutes,
  adminListingRoutes,
  appCommunityRoutes,
  appMarkRoutes,
  appMetadataRoutes,
  appsOntologyRoutes,
  appsUsingTool,
  catalogRoutes,
  categoryRoutes,
  dashboardRoutes,
  hierarchyListingRoutes,
  installBuiltInApps,
  referenceGenomeRoutes,
} from './catalog/index.ts';
import {
  adminAppRoutes,
  editingRoutes,
  editorRoutes,
  elementRoutes,
  integrationDataRoutes,
  publicationRoutes,
} from './editor/index.ts';
import {
  configuredOAuthClients,
  OAuthTokens,
  registerOAuthRoutes,
  TokenCipher,
  tokenEncryptionKey,
  webhookRoutes,
  type OAuthDeps,
} from './external/index.ts';
import { analysisRoutes, jobCallbackRoutes, jobEngines, JobRunner } from './jobs/index.ts';
import { pipelineRoutes } from './pipelines/index.ts';
import { sharingRoutes } from './sharing/index.ts';
import { toolRequestRoutes, toolRoutes } from './tools/index.ts';

/**
 * apps' door. What other parts of the project may use of it: the service itself (for the embedded
 * host) and, for the analyses service (whose quick launches are saved submissions of an app's
 * launch form), reading the app catalog in-process: the apps a user may see, their current
 * versions, an app's definition and which of its parameter types name data-store paths, and its
 * launch form. The analyses service depends on apps, never the other way round.
 */
export { currentVersions, visibleAppsQuery } from './catalog/index.ts';
/** Who may see or change an analysis (the interactive-apps routes ask). */
export { analysisAccess } from './jobs/index.ts';
export { launchView } from './catalog/index.ts';
/** A launch form filled with a saved submission, as the web UI reads it (quick launches' app-info). */
export { groupsWithSaved } from './jobs/index.ts';
export { pathParameterTypes, type AppDefinition } from './shared/index.ts';
/** For the test that keeps docs/api/apps.md's list of routes not served equal to the truth. */
export { unservedLiteralRoutes } from './unserved-literal-routes.ts';

/**
 * The apps service (backends.md §5), in rooms, each entered through its own index.ts and using only
 * the rooms below it (docs/architecture.md, "Inside the apps service"; the lint checks it):
 * shared/ (caller, sharing grants, app definitions), tools/, catalog/ (listings, categories,
 * communities, ontologies and hierarchies, marks, AVU metadata, reference genomes), editor/ (app
 * edits, versions, copies, publication, integration data), pipelines/, jobs/ (analyses submitted
 * here, run in this process on the executor's engines; not to be confused with the analyses
 * service, backends/analyses/, which keeps quick launches), sharing/, external/ (OAuth access to
 * third-party APIs, users' webhooks kept and delivered to by the notification agent) and account/
 * (the bootstrap's part, workspaces, logins). This plugin composes them. The routes not built yet
 * answer 501 (APPS_URL reaches a full apps service).
 */
export const appsService: EmbeddedService = {
  name: 'apps',
  documented,
  plugin: async (app, { store, config, notify, recordUsage, now = Date.now }) => {
    await installBuiltInApps(store.db, now());
    // Before any parameter route could take their literal paths: see unserved-literal-routes.ts.
    await app.register(unservedLiteralRoutesPlugin);
    await app.register(sharingRoutes, { db: store.db, uidDomain: config.uidDomain, notify, now });
    await app.register(catalogRoutes, { db: store.db });
    await app.register(dashboardRoutes, { db: store.db, uidDomain: config.uidDomain });
    await app.register(appMarkRoutes, { db: store.db, now });
    await app.register(editingRoutes, { db: store.db, now });
    await app.register(editorRoutes, { db: store.db, now });
    await app.register(pipelineRoutes, { db: store.db, now });
    await app.register(publicationRoutes, { db: store.db, now, notify });
    await app.register(adminAppRoutes, { db: store.db, now });
    await app.register(elementRoutes);
    await app.register(categoryRoutes, { store, config });
    await app.register(appsOntologyRoutes, { db: store.db, now });
    const runner = new JobRunner({
      db: store.db,
      // The executor writes where data-info does: the one DataStore of this process.
      data: () => openSharedDataStore(store.db, { ...config.dataStore }),
      notify,
      ...(recordUsage ? { recordUsage } : {}),
      now,
      log: app.log,
      maxConcurrentJobs: config.analyses.maxConcurrentJobs,
      leaseMs: config.analyses.leaseSeconds * 1000,
      ...jobEngines(config.analyses.executor, app.log),
      executor: config.analyses.executor,
      urlImport: {
        allowPrivateNetworks: config.dataStore.urlImportAllowPrivateNetworks,
        maxBytes: config.dataStore.maxUploadBytes,
      },
    });
    app.addHook('onClose', async () => runner.drain());
    // Alone on its store (SQLite, not one of a cluster's workers), this process takes over every
    // job it does not hold at once: whoever held them is gone. Not waited for: telling their users
    // needs the gateway this service is part of to be up.
    runner.follow(store.engine === 'sqlite' && !cluster.isWorker);
    await app.register(analysisRoutes, {
      db: store.db,
      runner,
      uidDomain: config.uidDomain,
      zone: config.dataStore.zone,
    });
    await app.register(jobCallbackRoutes, { db: store.db, runner });
    await app.register(hierarchyListingRoutes, { db: store.db });
    await app.register(appMetadataRoutes, { db: store.db, now });
    await app.register(appCommunityRoutes, { db: store.db, now });
    await app.register(adminCategoryRoutes, { db: store.db, now });
    await app.register(adminListingRoutes, { db: store.db });
    await app.register(workspaceAdminRoutes, { db: store.db, uidDomain: config.uidDomain });
    await app.register(workshopGroupRoutes, { db: store.db, uidDomain: config.uidDomain, now });
    await app.register(integrationDataRoutes, { db: store.db, uidDomain: config.uidDomain, now });
    await app.register(referenceGenomeRoutes, { db: store.db, uidDomain: config.uidDomain, now });
    await app.register(webhookRoutes, {
      db: store.db,
      allowPrivateNetworks: config.notifications.webhooks.allowPrivateNetworks,
      now,
    });
    await app.register(toolRoutes, {
      db: store.db,
      notify,
      now,
      containerRuntime: config.analyses.executor.containerRuntime,
      appsUsing: (toolId, user, options) => appsUsingTool(store.db, toolId, user, options),
    });
    await app.register(toolRequestRoutes, {
      db: store.db,
      uidDomain: config.uidDomain,
      notify,
      now,
    });
    const clients = configuredOAuthClients(config);
    const tokens = new OAuthTokens({
      store,
      cipher: new TokenCipher(tokenEncryptionKey(config)),
      clients,
      now,
      log: app.log,
    });
    const oauth: OAuthDeps = { store, tokens, clients, now };
    registerOAuthRoutes(app, oauth);

    await app.register(accountRoutes, { store, uidDomain: config.uidDomain, oauth });
  },
};

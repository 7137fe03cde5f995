import { documented } from './documented.ts';
import type { EmbeddedService } from '../service.ts';
import { adminCategoryRoutes } from './admin-category-routes.ts';
import { adminListingRoutes } from './admin-listing-routes.ts';
import { appCommunityRoutes } from './app-communities.ts';
import { openSharedDataStore } from '../data-info/index.ts';
import { analysisRoutes } from './analysis-routes.ts';
import { jobCallbackRoutes } from './job-callback-routes.ts';
import { JobRunner } from './job-runner.ts';
import { installBuiltInApps } from './built-in.ts';
import { catalogRoutes } from './app-listing-routes.ts';
import { dashboardRoutes } from './dashboard-routes.ts';
import { categoryRoutes } from './category-routes.ts';
import { editingRoutes } from './editing-routes.ts';
import { editorRoutes } from './editor-routes.ts';
import { pipelineRoutes } from './pipeline-routes.ts';
import { publicationRoutes } from './publication-routes.ts';
import { adminAppRoutes } from './admin-app-routes.ts';
import { elementRoutes } from './element-routes.ts';
import { hierarchyListingRoutes } from './hierarchy-listing-routes.ts';
import { appMarkRoutes } from './mark-routes.ts';
import { appMetadataRoutes } from './metadata-routes.ts';
import { appsOntologyRoutes } from './ontology-routes.ts';
import { registerOAuthRoutes, type OAuthDeps } from './oauth-routes.ts';
import { accountRoutes } from './account-routes.ts';
import { OAuthTokens, configuredOAuthClients } from './oauth-tokens.ts';
import { TokenCipher, tokenEncryptionKey } from './token-cipher.ts';
import { workspaceAdminRoutes } from './workspace-admin-routes.ts';
import { unservedLiteralRoutesPlugin } from './unserved-literal-routes.ts';
import { sharingRoutes } from './sharing-routes.ts';
import { toolRequestRoutes } from './tool-request-routes.ts';
import { toolRoutes } from './tool-routes.ts';
import { workshopGroupRoutes } from './workshop-group-routes.ts';
import { integrationDataRoutes } from './integration-data-routes.ts';
import { referenceGenomeRoutes } from './reference-genomes.ts';
import { webhookRoutes } from './webhook-routes.ts';
import { jobEngines } from './job-engines.ts';
import { appsUsingTool } from './app-listings.ts';

/**
 * apps' door. What other parts of the project may use of it: the service itself (for the embedded
 * host) and, for the analyses service (whose quick launches are saved submissions of an app's
 * launch form), reading the app catalog in-process: the apps a user may see, their current
 * versions, an app's definition and which of its parameter types name data-store paths, and its
 * launch form. The analyses service depends on apps, never the other way round.
 */
export { currentVersions, visibleAppsQuery } from './app-listings.ts';
/** Who may see or change an analysis (the interactive-apps routes ask). */
export { analysisAccess } from './analysis-access.ts';
export { launchView } from './app-views.ts';
/** A launch form filled with a saved submission, as the web UI reads it (quick launches' app-info). */
export { groupsWithSaved } from './saved-form.ts';
export { pathParameterTypes, type AppDefinition } from './definition.ts';
/** For the test that keeps docs/api/apps.md's list of routes not served equal to the truth. */
export { unservedLiteralRoutes } from './unserved-literal-routes.ts';

/**
 * The apps service (backends.md §5): the account side the bootstrap needs (workspace, logins),
 * OAuth access to the third-party job API, the app catalog with its AVU metadata, public categories
 * and workspaces kept by administrators, ontology versions with app hierarchies and the apps
 * under them (ontology-routes.ts, hierarchy-listing-routes.ts), tools and tool requests
 * (tool-routes.ts, tool-request-routes.ts), reference genomes, and users' webhooks (kept and
 * delivered to by the notification agent). Analyses submitted here run in
 * this process: analysis-routes.ts serves them, job-runner.ts and job-executors.ts run them (not
 * to be confused with the analyses service, backends/analyses/, which keeps quick launches). The
 * routes not built yet answer 501 (APPS_URL reaches a full apps service).
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
      ...jobEngines(config.analyses.executor, app.log),
      executor: config.analyses.executor,
      urlImport: {
        allowPrivateNetworks: config.dataStore.urlImportAllowPrivateNetworks,
        maxBytes: config.dataStore.maxUploadBytes,
      },
    });
    app.addHook('onClose', async () => runner.drain());
    // On SQLite this process is the only one running jobs: whatever is still active was cut off.
    // Not waited for: telling their users needs the gateway this service is part of to be up.
    if (store.engine === 'sqlite') runner.failInterrupted();
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

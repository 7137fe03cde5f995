import { ObjectIndex } from '../data-info/index.ts';
import { documented } from './documented.ts';
import type { EmbeddedService } from '../service.ts';
import { defaultsRoutes } from './defaults-routes.ts';
import { instantLaunchMappingRoutes } from './instant-launch-mapping-routes.ts';
import { instantLaunchMetadataRoutes } from './instant-launch-metadata-routes.ts';
import { instantLaunchRoutes } from './instant-launch-routes.ts';
import { jobLimitRoutes } from './job-limit-routes.ts';
import { quickLaunchRoutes } from './quick-launch-routes.ts';
import { viceRoutes } from './vice-routes.ts';

// The analyses service's door: the service itself, for the embedded host; nothing else of it is
// for other parts of the project.

/**
 * The analyses service (backends.md §6), not to be confused with the analyses the apps service runs
 * (backends/apps/jobs/): quick launches — saved submissions of an app's launch form, private or
 * public — with users' favourites and defaults and the global defaults. It reads the apps catalog's
 * tables (the app and its versions) and checks data-store paths with the data store's object index
 * and permission rules. It reads only the index, never file bytes, so it does not open the
 * DataStore (whose start-up clears unfinished writes): a standalone analyses process on the same
 * store cannot disturb data-info's uploads. Concurrent-job limits are set here per user
 * (job-limit-routes.ts) and enforced where analyses are submitted (the apps service's job runner).
 * It also stands in for the interactive-apps service's instant launches (instant-launch-*.ts).
 */
export const analysesService: EmbeddedService = {
  name: 'analyses',
  documented,
  plugin: async (app, { store, config, now = Date.now }) => {
    const deps = { db: store.db, uidDomain: config.uidDomain, now };
    await app.register(quickLaunchRoutes, {
      ...deps,
      catalog: new ObjectIndex(store.db, config.dataStore.zone),
    });
    await app.register(defaultsRoutes, deps);
    // Instant launches: the interactive-apps service's `/instantlaunches` routes, served here
    // (beside the quick launches they start) when INTERACTIVE_APPS_URL is unset.
    await app.register(instantLaunchRoutes, deps);
    await app.register(instantLaunchMappingRoutes, deps);
    await app.register(instantLaunchMetadataRoutes, deps);
    // VICE: interactive sessions running on the apps service's executor (vice-routes.ts).
    await app.register(viceRoutes, { ...deps, executorWorkDir: config.analyses.executor.workDir });
    await app.register(jobLimitRoutes, {
      ...deps,
      defaultLimit: config.analyses.maxConcurrentJobs,
    });
  },
};

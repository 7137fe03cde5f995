import { sharedDataStore } from '../data-info/shared.js';
import type { EmbeddedService } from '../service.js';
import { defaultsRoutes } from './defaults-routes.js';
import { quickLaunchRoutes } from './quick-launch-routes.js';

/**
 * The analyses service (backends.md §6): quick launches — saved submissions of an app's launch
 * form, private or public — with users' favourites and defaults and the global defaults. It reads
 * the apps catalog's tables (the app and its versions) and checks data-store paths through the
 * process's data store (the one data-info runs on). Concurrent-job limits answer 501 until built.
 */
export const analysesService: EmbeddedService = {
  name: 'analyses',
  plugin: async (app, { store, config, now = Date.now }) => {
    const data = await sharedDataStore(store.db, { ...config.dataStore });
    const deps = { db: store.db, uidDomain: config.uidDomain, now };
    await app.register(quickLaunchRoutes, { ...deps, data });
    await app.register(defaultsRoutes, deps);
  },
};

import type { EmbeddedService } from '../service.js';
import { requireUserParam } from '../../common/query-params.js';
import { filesRoutes } from './file-routes.js';
import { mutationRoutes } from './mutation-routes.js';
import { navigationRoutes } from './navigation-routes.js';
import { announcer } from './notifications.js';
import { basePaths } from '../../common/base-paths.js';
import { sharingRoutes } from './sharing-routes.js';
import { statRoutes, usageSummaryRoutes } from './stat-routes.js';
import { sharedDataStore } from './shared.js';
import { ticketRoutes } from './ticket-routes.js';
import { startOrphanSweep } from './orphans.js';
import { startTrashSweep } from './trash.js';

/** The data-info service (backends.md §2): the catalog in the store, file bytes under DATA_STORE_DIR. */
export const dataInfoService: EmbeddedService = {
  name: 'data-info',
  plugin: async (app, { store, config, notify }) => {
    const data = await sharedDataStore(store.db, { ...config.dataStore });
    const sweep = startTrashSweep(data, app.log);
    const orphanSweep = startOrphanSweep(data, config.dataStore.orphanGraceMs, app.log);
    app.addHook('onClose', async () => {
      sweep.stop();
      await orphanSweep.stop();
    });

    app.get('/navigation/base-paths', async (request) =>
      basePaths(config.dataStore.zone, requireUserParam(request.query)),
    );
    for (const routes of [
      navigationRoutes,
      filesRoutes,
      statRoutes,
      sharingRoutes,
      ticketRoutes,
      usageSummaryRoutes,
    ]) {
      await app.register(routes, { data });
    }
    await app.register(mutationRoutes, { data, announce: announcer(notify) });
  },
};

import type { EmbeddedService } from '../service.ts';
import { documented } from './documented.ts';
import { requireUserParam } from '../../common/query-params.ts';
import { filesRoutes } from './file-routes.ts';
import { mutationRoutes } from './mutation-routes.ts';
import { navigationRoutes } from './navigation-routes.ts';
import { announcer } from './notifications.ts';
import { basePaths } from '../../common/base-paths.ts';
import { sharingRoutes } from './sharing-routes.ts';
import { statRoutes, usageSummaryRoutes } from './stat-routes.ts';
import { favoriteListingRoutes } from './favorite-listing.ts';
import { openSharedDataStore } from './data-store-api.ts';
import { ticketRoutes } from './ticket-routes.ts';
import { startOrphanSweep } from './orphans.ts';
import { startTrashSweep } from './trash.ts';

/**
 * data-info's door. What other parts of the project may use of it: the service itself (for the
 * embedded host), and the in-process data-store API (data-store-api.ts) through which the other
 * embedded services of this process read and write the data store as a user.
 */
export {
  anonymousUser,
  atLeast,
  type BlobStore,
  createFile,
  createFolders,
  ObjectIndex,
  openBlobStore,
  openSharedDataStore,
  readableCondition,
  readableFile,
  readableTree,
  replaceContent,
  requireAccess,
  type Caller,
  type DataObject,
  type DataStore,
  type Permission,
} from './data-store-api.ts';

/** `npm run fsck`: the catalog against the bytes, reported and repaired (src/cli/fsck.ts). */
export {
  fsckDataStore,
  FsckRefused,
  type Difference,
  type FsckOptions,
  type FsckReport,
} from './fsck.ts';

/** The readiness probe of the S3 bucket of BLOB_STORE_URL, for the gateway's `/readyz`. */
export { blobStoreProbe } from './open-blob-store.ts';

/**
 * The data-info service (backends.md §2): the data store's files and folders, their permissions,
 * sharing and tickets; the index of objects in the store's database, file bytes under
 * DATA_STORE_DIR.
 */
export const dataInfoService: EmbeddedService = {
  name: 'data-info',
  documented,
  plugin: async (app, { store, config, notify, hosted }) => {
    const data = await openSharedDataStore(store.db, { ...config.dataStore });
    const sweep = startTrashSweep(data, app.log);
    const orphanSweep = startOrphanSweep(data, config.dataStore.orphanGraceMs, app.log);
    app.addHook('onClose', async () => {
      sweep.stop();
      await orphanSweep.stop();
      await data.release();
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
    // The favourites listing joins metadata's table: only where metadata shares this store.
    if (hosted?.includes('metadata')) await app.register(favoriteListingRoutes, { data });
  },
};

import type { EmbeddedService } from '../service.ts';
import { documented } from './documented.ts';
import { requestRoutes } from './request-routes.ts';
import { requestTypeRoutes } from './request-types.ts';

// The requests service's door: the service itself, for the embedded host; nothing else of it is for
// other parts of the project.

/**
 * The requests service (backends.md §8, routes.md §23): request types with per-user limits,
 * requests filed by users (`user=<short>`), their status history (`submitted`, `in-progress`,
 * `approved`, `rejected`), and a `requests` notification to the requester at each status. What a
 * status means elsewhere (a VICE approval's job limit) is the gateway's to do.
 */
export const requestsService: EmbeddedService = {
  name: 'requests',
  documented,
  plugin: async (app, { store, notify, now = Date.now }) => {
    await app.register(requestTypeRoutes, { db: store.db });
    await app.register(requestRoutes, {
      db: store.db,
      lockRows: store.engine === 'postgres',
      notify,
      now,
    });
  },
};

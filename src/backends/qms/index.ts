import type { EmbeddedService } from '../service.ts';
import { addonRoutes } from './addon-routes.ts';
import { qmsRoutes } from './qms-routes.ts';
import { dataUsageRoutes, resourceUsageRoutes } from './usage-routes.ts';

// The QMS's door: its four services, for the embedded host; nothing else of it is for other parts
// of the project. They share the records of migration 032.

/**
 * The qms service (backends.md §8, routes.md §23, §25): plans, resource types, users' current
 * subscriptions (a user's first on the default plan, Basic), quotas and usages, bodies wrapped in
 * `result`.
 */
export const qmsService: EmbeddedService = {
  name: 'qms',
  plugin: async (app, { store, config, now = Date.now }) => {
    await app.register(qmsRoutes, { db: store.db, uidDomain: config.uidDomain, now });
  },
};

/** The subscriptions service: add-ons and the add-ons applied to subscriptions (`{addons}`, `{addon}`). */
export const subscriptionsService: EmbeddedService = {
  name: 'subscriptions',
  plugin: async (app, { store, now = Date.now }) => {
    await app.register(addonRoutes, { db: store.db, now });
  },
};

/** The resource-usage service: `GET /summary/{user}`, from the QMS's records. */
export const resourceUsageService: EmbeddedService = {
  name: 'resource-usage',
  plugin: async (app, { store, now = Date.now }) => {
    await app.register(resourceUsageRoutes, { db: store.db, now });
  },
};

/** The data-usage service: a user's current data usage and whether it is over the data.size quota. */
export const dataUsageService: EmbeddedService = {
  name: 'data-usage',
  plugin: async (app, { store, now = Date.now }) => {
    await app.register(dataUsageRoutes, { db: store.db, now });
  },
};

import type { EmbeddedService } from '../service.js';
import { avuRoutes } from './avus.js';
import { commentRoutes } from './comments.js';
import { favoriteRoutes } from './favorites.js';
import { ontologyAdminRoutes } from './ontologies-admin.js';
import { ontologyRoutes } from './ontologies.js';
import { permanentIdRequestRoutes } from './permanent-id-requests.js';
import type { MetadataRoutes } from './requests.js';
import { tagRoutes } from './tags.js';
import { templateRoutes } from './templates.js';

/**
 * The route modules of the metadata service, each a plugin given `{db, now}` (requests.ts).
 * A new module is one more entry here.
 */
const routeModules: MetadataRoutes[] = [
  commentRoutes,
  favoriteRoutes,
  avuRoutes,
  tagRoutes,
  templateRoutes,
  permanentIdRequestRoutes,
  ontologyRoutes,
  ontologyAdminRoutes,
];

/** The metadata service (backends.md §3): comments, favorites, AVUs, tags, templates, permanent-ID requests, ontologies, from the store. */
export const metadataService: EmbeddedService = {
  name: 'metadata',
  plugin: async (app, { store }) => {
    for (const routes of routeModules) {
      await app.register(routes, { db: store.db, now: Date.now });
    }
  },
};

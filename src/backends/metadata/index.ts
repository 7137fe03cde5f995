import type { EmbeddedService } from '../service.js';
import { avuRoutes } from './avu-routes.js';
import { commentRoutes } from './comment-routes.js';
import { favoriteRoutes } from './favorite-routes.js';
import { ontologyAdminRoutes } from './ontology-admin-routes.js';
import { ontologyRoutes } from './ontology-routes.js';
import { permanentIdRequestRoutes } from './permanent-id-request-routes.js';
import type { MetadataRoutes } from './requests.js';
import { tagRoutes } from './tag-routes.js';
import { templateRoutes } from './template-routes.js';

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

import type { EmbeddedService } from '../service.js';
import { documented } from './documented.js';
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
 * metadata's door. What other parts of the project may use of it: the service itself (for the
 * embedded host) and, for the apps service, which keeps its apps' AVUs and serves app hierarchies
 * in the same database: the AVU store (reading, parsing, writing and deleting a target's AVUs;
 * `targetsWithAvu`, the targets carrying a tag as a subquery for listings; `targetIdsWithAvu` and
 * `renameAvuValues` for the groups service, re-tagging a renamed community's apps), the ontology
 * store (versions, their class graphs and saved hierarchies, the AVUs that place apps in them) and
 * the request helpers metadata-style routes share (the `user` query, UUID parameters, JSON bodies);
 * for the search service, the conditions and reads that find data objects by AVU and tag
 * (search-targets.ts); for data-info, when both services are hosted on one store, the favourites
 * of a user as a query to join (favorite-targets.ts, the listing's shared-store contract).
 */
export {
  avusOf,
  deleteAvus,
  renameAvuValues,
  requestedAvus,
  targetIdsWithAvu,
  targetsWithAvu,
  writeAvus,
} from './avu-store.js';
export {
  classAvus,
  filterTree,
  irisOf,
  listOntologies,
  loadGraph,
  markOntologyDeleted,
  requireOntology,
  requireSavedTree,
  savedHierarchies,
  type OntologyClassHierarchy,
} from './ontology-store.js';
export {
  avusOfObjects,
  objectHasAvu,
  objectHasTag,
  ownedTagIds,
  type AvuFieldMatch,
} from './search-targets.js';
export { favoriteCountsOf, favoritesOf, type FavoriteDataType } from './favorite-targets.js';
export { bodyObject, isUuid, userQuery, Uuid } from './requests.js';

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
  documented,
  plugin: async (app, { store }) => {
    for (const routes of routeModules) {
      await app.register(routes, { db: store.db, now: Date.now });
    }
  },
};

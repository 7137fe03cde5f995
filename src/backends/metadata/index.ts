import type { EmbeddedService } from '../service.ts';
import { documented } from './documented.ts';
import { avuRoutes } from './avu-routes.ts';
import { commentRoutes } from './comment-routes.ts';
import { favoriteRoutes } from './favorite-routes.ts';
import { ontologyAdminRoutes } from './ontology-admin-routes.ts';
import { ontologyRoutes } from './ontology-routes.ts';
import { permanentIdRequestRoutes } from './permanent-id-request-routes.ts';
import type { MetadataRoutes } from './requests.ts';
import { tagRoutes } from './tag-routes.ts';
import { templateRoutes } from './template-routes.ts';

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
} from './avu-store.ts';
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
} from './ontology-store.ts';
export {
  avusOfObjects,
  objectHasAvu,
  objectHasTag,
  ownedTagIds,
  type AvuFieldMatch,
} from './search-targets.ts';
export { favoriteCountsOf, favoritesOf, type FavoriteDataType } from './favorite-targets.ts';
export { bodyObject, isUuid, userQuery, Uuid } from './requests.ts';

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

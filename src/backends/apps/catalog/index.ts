// The catalog room of the apps service: the apps a user may see and how they are listed (search,
// categories, communities, ontology hierarchies, the dashboard), one app as a caller sees it (its
// launch view, details, versions, documentation and tools), favourites and ratings, AVU metadata,
// reference genomes, job statistics of the administrators' listing, and the built-in apps. Uses the
// shared and tools rooms.
export { anyApp, launchView, versionsOf, visibleApp, type AppRow } from './app-views.ts';
export { documentationOf, toolsOf, versionOf, type Db, type VersionRow } from './app-versions.ts';
export {
  appsUsingTool,
  currentVersions,
  listingEntries,
  visibleAppsQuery,
} from './app-listings.ts';
export { adminAppDetails, appDetails, catalogRoutes } from './app-listing-routes.ts';
export {
  chosenGenome,
  referenceGenomeParameterTypes,
  referenceGenomeRoutes,
} from './reference-genomes.ts';
export { installBuiltInApps } from './built-in.ts';
export { adminCategoryRoutes } from './admin-category-routes.ts';
export { adminListingRoutes } from './admin-listing-routes.ts';
export { appCommunityRoutes } from './app-communities.ts';
export { categoryRoutes } from './category-routes.ts';
export { dashboardRoutes } from './dashboard-routes.ts';
export { hierarchyListingRoutes } from './hierarchy-listing-routes.ts';
export { appMarkRoutes } from './mark-routes.ts';
export { appMetadataRoutes } from './metadata-routes.ts';
export { appsOntologyRoutes } from './ontology-routes.ts';
export { documented } from './documented.ts';

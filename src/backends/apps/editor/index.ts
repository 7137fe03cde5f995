// The editor room of the apps service: changing apps (app-edits.ts: who may, writing versions),
// the app editor's views and routes, copies, publication and administrators' app edits, the
// editor's parameter elements, and integration data (who integrated an app or a tool). Uses the
// shared, tools and catalog rooms.
export {
  callerOf,
  changeableApp,
  checkLabelFree,
  insertApp,
  insertVersion,
  namedVersion,
  nextOrder,
  writeDefinition,
  type Caller,
} from './app-edits.ts';
export { copyAsNewApp, copyAsNewVersion } from './app-copies.ts';
export { editorHeader, tasksView } from './editor-views.ts';
export { editingRoutes } from './editing-routes.ts';
export { editorRoutes } from './editor-routes.ts';
export { publicationRoutes } from './publication-routes.ts';
export { adminAppRoutes } from './admin-app-routes.ts';
export { elementRoutes } from './element-routes.ts';
export { integrationDataRoutes } from './integration-data-routes.ts';
export { documented } from './documented.ts';

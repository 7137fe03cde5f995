// The pipelines room of the apps service: apps whose steps are other apps, with outputs mapped
// onto later inputs: their editor's requests and views, steps and mappings, and routes. Uses the
// shared, catalog and editor rooms.
export { pipelineRoutes } from './pipeline-routes.ts';
export { documented } from './documented.ts';

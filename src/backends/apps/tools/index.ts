// The tools room of the apps service: tools (the model, what a tool's program is and whether it
// may run), their routes and tool requests. Uses only the shared room: the apps using a tool come
// from the catalog, handed to the tool routes by the service's door (AppsUsingTool).
export { answeredContainer, toolTypes, visibleToolsQuery, type ToolRow } from './tool-model.ts';
export { mayRun, toolProgram } from './tool-program.ts';
export { toolRoutes, type AppsUsingTool } from './tool-routes.ts';
export { toolRequestRoutes } from './tool-request-routes.ts';
export { documented } from './documented.ts';

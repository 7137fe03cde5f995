// The account room of the apps service: the bootstrap's part, the caller's workspace and logins
// (answering which third-party APIs still need authorizing), administrators' workspaces and the
// workshop group. Uses the shared and external rooms.
export { accountRoutes } from './account-routes.ts';
export { workspaceAdminRoutes } from './workspace-admin-routes.ts';
export { workshopGroupRoutes } from './workshop-group-routes.ts';
export { documented } from './documented.ts';

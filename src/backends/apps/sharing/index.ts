// The sharing room of the apps service: sharing apps, analyses and tools with users, teams and
// collaborator lists (grants kept by the permissions service). Uses the shared room.
export { sharingRoutes } from './sharing-routes.ts';
export { documented } from './documented.ts';

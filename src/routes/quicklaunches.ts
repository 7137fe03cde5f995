// Tags: analyses-quicklaunches.
import type { PassthroughRoute } from '../http/passthrough.js';

export const quicklaunchesRoutes: PassthroughRoute[] = [
  { method: 'GET', path: '/quicklaunches', backend: 'analyses', tag: 'analyses-quicklaunches', summary: 'List the quick launches the user may view' },
  { method: 'GET', path: '/quicklaunches/apps/{app-id}', backend: 'analyses', auth: 'optional', tag: 'analyses-quicklaunches', summary: 'List the quick launches of an app' },
  { method: ['GET', 'PATCH', 'DELETE'], path: '/quicklaunches/{ql-id}', backend: 'analyses', tag: 'analyses-quicklaunches', summary: 'Get, update or delete a quick launch' },
  { method: 'GET', path: '/quicklaunches/{ql-id}/app-info', backend: 'analyses', tag: 'analyses-quicklaunches', summary: 'Get the launch form filled from a quick launch' },
  { method: ['GET', 'POST'], path: '/quicklaunches/favorites', backend: 'analyses', backendPath: '/quicklaunch/favorites', tag: 'analyses-quicklaunches', summary: 'List or add quick-launch favorites' },
  { method: ['GET', 'DELETE'], path: '/quicklaunches/favorites/{fave-id}', backend: 'analyses', backendPath: '/quicklaunch/favorites/{fave-id}', tag: 'analyses-quicklaunches', summary: 'Get or remove a quick-launch favorite' },
  { method: ['GET', 'POST'], path: '/quicklaunches/defaults/user', backend: 'analyses', backendPath: '/quicklaunch/defaults/user', tag: 'analyses-quicklaunches', summary: "List or add the user's quick-launch defaults" },
  { method: ['GET', 'PATCH', 'DELETE'], path: '/quicklaunches/defaults/user/{id}', backend: 'analyses', backendPath: '/quicklaunch/defaults/user/{id}', tag: 'analyses-quicklaunches', summary: "Get, update or delete a user's quick-launch default" },
  { method: ['GET', 'POST'], path: '/quicklaunches/defaults/global', backend: 'analyses', backendPath: '/quicklaunch/defaults/global', tag: 'analyses-quicklaunches', summary: 'List or add global quick-launch defaults' },
  { method: ['GET', 'PATCH', 'DELETE'], path: '/quicklaunches/defaults/global/{id}', backend: 'analyses', backendPath: '/quicklaunch/defaults/global/{id}', tag: 'analyses-quicklaunches', summary: 'Get, update or delete a global quick-launch default' },
];

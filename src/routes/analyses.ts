// Tags: analyses.
import type { PassthroughRoute } from '../http/passthrough.js';

export const analysesRoutes: PassthroughRoute[] = [
  { method: ['GET', 'POST'], path: '/analyses', backend: 'apps', tag: 'analyses', summary: 'List analyses or launch one' },
  { method: 'GET', path: '/analyses/stats', backend: 'apps', tag: 'analyses', summary: 'Count analyses by status' },
  { method: 'POST', path: '/analyses/permission-lister', backend: 'apps', tag: 'analyses', summary: 'List analysis permissions' },
  { method: 'POST', path: '/analyses/relauncher', backend: 'apps', tag: 'analyses', summary: 'Relaunch analyses' },
  { method: 'POST', path: '/analyses/shredder', backend: 'apps', tag: 'analyses', summary: 'Delete analyses' },
  { method: 'POST', path: '/analyses/sharing', backend: 'apps', tag: 'analyses', summary: 'Share analyses' },
  { method: 'POST', path: '/analyses/unsharing', backend: 'apps', tag: 'analyses', summary: 'Unshare analyses' },
  { method: ['PATCH', 'DELETE'], path: '/analyses/{analysis-id}', backend: 'apps', tag: 'analyses', summary: 'Update or delete an analysis' },
  { method: 'GET', path: '/analyses/{analysis-id}/history', backend: 'apps', tag: 'analyses', summary: 'Get the status history of an analysis' },
  { method: 'GET', path: '/analyses/{analysis-id}/parameters', backend: 'apps', tag: 'analyses', summary: 'List the parameters of an analysis' },
  { method: 'GET', path: '/analyses/{analysis-id}/relaunch-info', backend: 'apps', tag: 'analyses', summary: 'Get the launch form of an analysis with its saved values' },
  { method: 'GET', path: '/analyses/{analysis-id}/steps', backend: 'apps', tag: 'analyses', summary: 'List the steps of an analysis' },
  { method: 'POST', path: '/analyses/{analysis-id}/stop', backend: 'apps', tag: 'analyses', summary: 'Stop an analysis' },
  { method: 'GET', path: '/analyses/{analysis-id}/logs', backend: 'interactive-apps', backendPath: '/vice/{analysis-id}/logs', tag: 'analyses', summary: 'Get the logs of an interactive analysis' },
  { method: ['GET', 'POST'], path: '/analyses/{analysis-id}/time-limit', backend: 'interactive-apps', backendPath: '/vice/{analysis-id}/time-limit', tag: 'analyses', summary: 'Get or extend the time limit of an interactive analysis' },
];

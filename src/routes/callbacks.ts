// Tags: callbacks.
import type { PassthroughRoute } from '../http/passthrough.js';

export const callbacksRoutes: PassthroughRoute[] = [
  {
    method: 'POST',
    path: '/callbacks/extapi-job/{job-id}',
    backend: 'apps',
    auth: 'none',
    identity: 'none',
    tag: 'callbacks',
    summary: 'Record a third-party job status update',
  },
];

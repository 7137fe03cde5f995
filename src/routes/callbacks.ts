// Tags: callbacks. The third-party job API's status updates (routes.md §2): no credentials, so
// they are taken only from the API's addresses (CALLBACKS_ALLOW, loopback by default); the job id
// they name is an analysis's id, which its readers see, and must not let them change its status.
import type { PassthroughRoute } from '../http/passthrough.ts';
import type { Tag } from './shared/tags.ts';

export const callbackPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: 'POST',
    path: '/callbacks/extapi-job/{job-id}',
    backend: 'apps',
    auth: 'none',
    identity: 'none',
    tag: 'callbacks',
    summary: 'Record a third-party job status update (from CALLBACKS_ALLOW addresses only)',
    onlyFrom: (config) => config.analyses.callbackClients,
  },
];

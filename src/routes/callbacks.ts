// Tags: callbacks.
import type { PassthroughRoute } from '../http/passthrough.js';
import type { Tag } from './shared/tags.js';

export const callbackPassthroughs: PassthroughRoute<Tag>[] = [
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

// Tags: callbacks.
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
    summary: 'Record a third-party job status update',
  },
];

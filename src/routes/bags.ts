// Tag bags: bags of the caller, kept by the user-info service (routes.md §21).
import { anyTypeAsJson, type PassthroughRoute } from '../http/passthrough.ts';
import type { Tag } from './shared/tags.ts';

export const bagPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: ['HEAD', 'GET', 'PUT', 'DELETE'],
    path: '/bags',
    backend: 'user-info',
    backendPath: '/bags/{qualified-user}',
    tag: 'bags',
    summary: 'Check for, list, add or delete all bags',
    consumes: anyTypeAsJson,
  },
  {
    method: ['GET', 'POST', 'DELETE'],
    path: '/bags/default',
    backend: 'user-info',
    backendPath: '/bags/{qualified-user}/default',
    tag: 'bags',
    summary: 'Get, update or reset the default bag',
    consumes: anyTypeAsJson,
  },
  {
    method: ['GET', 'POST', 'DELETE'],
    path: '/bags/{bag-id}',
    backend: 'user-info',
    backendPath: '/bags/{qualified-user}/{bag-id}',
    tag: 'bags',
    summary: 'Get, update or delete a bag',
    consumes: anyTypeAsJson,
  },
];

// Tags: bags, misc (saved searches).
import type { PassthroughRoute } from '../http/passthrough.js';

export const bagsRoutes: PassthroughRoute[] = [
  {
    method: ['HEAD', 'GET', 'PUT', 'DELETE'],
    path: '/bags',
    backend: 'user-info',
    backendPath: '/bags/{qualified-user}',
    tag: 'bags',
    summary: 'Check for, list, add or delete all bags',
  },
  {
    method: ['GET', 'POST', 'DELETE'],
    path: '/bags/default',
    backend: 'user-info',
    backendPath: '/bags/{qualified-user}/default',
    tag: 'bags',
    summary: 'Get, update or reset the default bag',
  },
  {
    method: ['GET', 'POST', 'DELETE'],
    path: '/bags/{bag-id}',
    backend: 'user-info',
    backendPath: '/bags/{qualified-user}/{bag-id}',
    tag: 'bags',
    summary: 'Get, update or delete a bag',
  },
  {
    method: ['GET', 'POST', 'DELETE'],
    path: '/saved-searches',
    backend: 'user-info',
    backendPath: '/searches/{qualified-user}',
    securedAlias: true,
    tag: 'misc',
    summary: 'Get, store or delete saved searches',
  },
];

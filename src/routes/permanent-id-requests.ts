// Tags: permanent-id-requests.
import type { PassthroughRoute } from '../http/passthrough.js';

export const permanentIdRequestsRoutes: PassthroughRoute[] = [
  { method: 'GET', path: '/permanent-id-requests/status-codes', backend: 'metadata', tag: 'permanent-id-requests', summary: 'List permanent-ID request status codes' },
  { method: 'GET', path: '/permanent-id-requests/types', backend: 'metadata', tag: 'permanent-id-requests', summary: 'List permanent-ID request types' },
];

// Tags: misc (sessions).
import type { PassthroughRoute } from '../http/passthrough.js';

export const sessionsRoutes: PassthroughRoute[] = [
  { method: ['GET', 'POST', 'DELETE'], path: '/secured/sessions', backend: 'user-info', backendPath: '/sessions/{qualified-user}', tag: 'misc', summary: 'Get, store or delete session data' },
];

// Tags: misc (OAuth access codes have no tag of their own), admin.
import type { PassthroughRoute } from '../http/passthrough.js';

export const oauthRoutes: PassthroughRoute[] = [
  { method: 'GET', path: '/oauth/access-code/{api-name}', backend: 'apps', securedAlias: true, tag: 'misc', summary: 'Exchange an OAuth authorization code' },
  { method: 'GET', path: '/oauth/redirect-uris', backend: 'apps', securedAlias: true, tag: 'misc', summary: 'List OAuth authorization URLs' },
  { method: ['GET', 'DELETE'], path: '/oauth/token-info/{api-name}', backend: 'apps', securedAlias: true, tag: 'misc', summary: 'Get or delete OAuth token information' },
  { method: ['GET', 'DELETE'], path: '/admin/oauth/token-info/{api-name}', backend: 'apps', auth: 'admin', tag: 'admin', summary: "Get or delete a user's OAuth token" },
];

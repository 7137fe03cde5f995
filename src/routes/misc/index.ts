// The misc area: the routes the spec lists without a group of their own (tag misc), namely `/` and
// `/uuid`, sessions, saved searches, preferences, comments (and the admin's comment routes, tag
// admin-comments), system alerts and OAuth access codes; and the identity provider's token routes
// (tag token; none served yet).
import type { FastifyInstance } from 'fastify';
import type { PassthroughRoute } from '../../http/passthrough.js';
import type { AreaDeps } from '../shared/area.js';
import type { Tag } from '../shared/tags.js';
import { alertAdminRoutes, alertPassthroughs } from './alerts.js';
import { commentRoutes } from './comments.js';
import { oauthGatewayRoutes, oauthPassthroughs } from './oauth.js';
import { preferencesRoutes } from './preferences.js';
import { rootRoutes } from './root.js';
import { sessionPassthroughs } from './sessions.js';

export const miscPassthroughs: PassthroughRoute<Tag>[] = [
  ...sessionPassthroughs,
  ...alertPassthroughs,
  ...oauthPassthroughs,
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

export async function miscRoutes(app: FastifyInstance, deps: AreaDeps): Promise<void> {
  await app.register(rootRoutes);
  await app.register(preferencesRoutes, deps);
  await app.register(commentRoutes, deps);
  await app.register(alertAdminRoutes, deps);
  await app.register(oauthGatewayRoutes, deps);
}

// The misc area: the routes the spec lists without a group of their own (tag misc), namely `/` and
// `/uuid`, sessions, saved searches, preferences, comments (and the admin's comment routes, tag
// admin-comments), system alerts and OAuth access codes; and the identity provider's token routes
// (tag token; none served yet).
import type { FastifyInstance } from 'fastify';
import { anyTypeAsJson, type PassthroughRoute } from '../../http/passthrough.ts';
import type { AreaDeps } from '../shared/area.ts';
import type { Tag } from '../shared/tags.ts';
import { alertAdminRoutes, alertPassthroughs } from './alerts.ts';
import { commentRoutes } from './comments.ts';
import { oauthGatewayRoutes, oauthPassthroughs } from './oauth.ts';
import { preferencesRoutes } from './preferences.ts';
import { rootRoutes } from './root.ts';
import { sessionPassthroughs } from './sessions.ts';

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
    consumes: anyTypeAsJson,
  },
];

export async function miscRoutes(app: FastifyInstance, deps: AreaDeps): Promise<void> {
  await app.register(rootRoutes);
  await app.register(preferencesRoutes, deps);
  await app.register(commentRoutes, deps);
  await app.register(alertAdminRoutes, deps);
  await app.register(oauthGatewayRoutes, deps);
}

// Tags token, admin-token (routes.md §2): `/token`, `/admin/token` and the docs page's browser
// sign-in `/oidc/*`, against the configured identity provider or the embedded one.
import type { FastifyInstance } from 'fastify';
import type { AreaDeps } from '../shared/area.ts';
import { oidcRoutes } from './oidc.ts';
import { passwordGrantRoutes } from './password-grant.ts';
import { remoteIdentityProvider } from './remote-idp.ts';

export async function tokenRoutes(app: FastifyInstance, deps: AreaDeps): Promise<void> {
  const link = deps.identityProvider?.link ?? remoteIdentityProvider(deps.config.auth);
  passwordGrantRoutes(app, deps.config, link);
  oidcRoutes(app, deps.config, link);
}

/**
 * Tag identity-provider: the embedded identity provider's OpenID Connect endpoints
 * (`/realms/<IDP_REALM>/...`, docs/authentication.md), served by it when it is on.
 */
export async function identityProviderRoutes(app: FastifyInstance, deps: AreaDeps): Promise<void> {
  if (deps.identityProvider) await deps.identityProvider.routes(app);
}

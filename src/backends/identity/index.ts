// The embedded identity provider (docs/authentication.md): on when no identity provider is
// configured (AUTH_TOKEN_URL, AUTH_JWKS_URL and AUTH_PUBLIC_KEYS unset). Users live in the
// database with scrypt password hashes (`npm run user`); the OpenID Connect endpoints a Keycloak
// client expects are served under `/realms/<IDP_REALM>/`, tokens are RS256-signed with
// `<GATEWAY_DATA_DIR>/auth/idp-signing-key.pem`, which the gateway trusts.
//
// Unlike the other embedded services, a browser must reach it: src/app.ts hands it to the
// gateway's areas, whose `identity-provider` area mounts its routes on the public listener and
// whose `/token` and `/oidc/*` routes call its token endpoint in process (src/common/identity-provider.ts).
import type { GatewayConfig } from '../../config/index.ts';
import type { EmbeddedIdentity, SignInLocks } from '../../common/identity-provider.ts';
import type { Store } from '../../store/database.ts';
import { memberGroupNames } from '../groups/index.ts';
import { IdentityProvider } from './provider.ts';
import { realmRoutes } from './realm-routes.ts';
import { SignInLimits, type LockEvent } from './sign-in-limits.ts';
import { loadSigningKey, type SigningKey } from './signing.ts';
import { UserDirectory } from './users.ts';

export { UserDirectory, UserError, type IdentityUser } from './users.ts';
export type { LockEvent } from './sign-in-limits.ts';

export interface EmbeddedIdentityProvider extends EmbeddedIdentity {
  users: UserDirectory;
}

export async function createIdentityProvider(
  config: Pick<GatewayConfig, 'identity' | 'auth' | 'dataDir' | 'uidDomain'>,
  store: Store,
  now?: () => number,
  /** Told when failed passwords lock a username or an address (the gateway logs it). */
  onLock?: (event: LockEvent) => void,
): Promise<EmbeddedIdentityProvider> {
  // Made (or read) on first use: a 2048-bit RSA key takes a few hundred milliseconds to make.
  let signingKey: Promise<SigningKey> | undefined;
  const provider = new IdentityProvider({
    store,
    settings: config.identity,
    adminRoles: config.auth.adminRoles,
    adminGroup: config.auth.adminGroup,
    groupsOf: (username) => memberGroupNames(store.db, username),
    gatewayClient: {
      id: config.auth.clientId,
      ...(config.auth.clientSecret ? { secret: config.auth.clientSecret } : {}),
    },
    emailDomain: config.uidDomain,
    key: () => (signingKey ??= loadSigningKey(config.dataDir, config.identity.signingKey)),
    ...(now ? { now } : {}),
    ...(onLock ? { onLock } : {}),
  });
  const realmPath = `/realms/${config.identity.realm}`;
  const issuer = (origin: string) => `${config.identity.publicUrl ?? origin}${realmPath}`;
  return {
    routes: (app) => realmRoutes(app, provider),
    users: provider.users,
    link: {
      embedded: true,
      authorizeUrl: (origin) => `${issuer(origin)}/protocol/openid-connect/auth`,
      token: (form, origin, address) =>
        provider.token(form, {
          issuer: issuer(origin),
          trusted: true,
          ...(address === undefined ? {} : { address }),
        }),
      endSessionUrl: (origin) => `${issuer(origin)}/protocol/openid-connect/logout`,
      revoke: (refreshToken) => provider.endSessionOfRefreshToken(refreshToken),
    },
    signInLocks: provider.signInLimits,
  };
}

/** The user directory alone, for `npm run user`. */
export function userDirectory(store: Store, uidDomain: string): UserDirectory {
  return new UserDirectory(store, uidDomain);
}

/** The limits on failed passwords alone, for `npm run user -- unlock`. */
export function signInLocks(store: Store, config: Pick<GatewayConfig, 'identity'>): SignInLocks {
  return new SignInLimits(store, config.identity.signIn);
}

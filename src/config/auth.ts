// Authentication: how user tokens are checked (a JWKS URL, PEM files, or the gateway's own key),
// who counts as an administrator or a service account, the identity provider `/token` and
// `/oidc/*` talk to, the domain that qualifies usernames, and the keys several gateways share.
import { createPrivateKey } from 'node:crypto';
import {
  boolean,
  ConfigError,
  integer,
  keySetting,
  list,
  pathSegment,
  text,
  url,
  type Env,
} from './variables.ts';

/** The service-account route families of routes.md §25, each allowed to the holders of one configured role. */
export type ServiceRole = 'ldap-reader' | 'emailer' | 'subscription-updater';

export interface AuthSettings {
  uidDomain: string;
  auth: {
    jwksUrl?: URL;
    publicKeyFiles: string[];
    issuer?: string;
    audience?: string;
    requireExp: boolean;
    clockSkewSeconds: number;
    /** Least time between two JWKS fetches caused by unknown `kid`s (AUTH_JWKS_COOLDOWN_SECONDS). */
    jwksCooldownSeconds: number;
    adminRoles: string[];
    /**
     * The group the platform's own tokens (embedded identity provider, `npm run token --admin`)
     * name in administrators' `entitlement` claim (ADMIN_GROUP, default `de_admins`): what a web
     * UI that checks that claim (the DE's `admin.groups`) is configured with.
     */
    adminGroup: string;
    dataStoreAdminRoles: string[];
    /**
     * The realm role each service-account route family requires (routes.md §25), by its descriptive
     * name: `ldap-reader` (SERVICE_ROLE_LDAP_READER), `emailer` (SERVICE_ROLE_EMAILER),
     * `subscription-updater` (SERVICE_ROLE_SUBSCRIPTION_UPDATER); each defaults to its own name.
     */
    serviceRoles: Record<ServiceRole, string>;
    /** True when neither a JWKS URL nor PEM files are set: the gateway signs and trusts its own key. */
    embeddedKeys: boolean;
    /**
     * The identity provider `/token` and `/oidc/*` talk to (routes.md §2). Its token endpoint
     * (AUTH_TOKEN_URL) and authorize endpoint (AUTH_AUTHORIZE_URL); both unset on the embedded
     * platform, where the embedded identity provider answers (`identity`).
     */
    tokenUrl?: URL;
    authorizeUrl?: URL;
    /** Where `/oidc/logout` sends the browser after expiring the cookies (AUTH_LOGOUT_URL, default the docs page). */
    logoutUrl?: URL;
    /** The gateway's client at the identity provider (AUTH_CLIENT_ID, default `platform-gateway`). */
    clientId: string;
    /** Its secret (AUTH_CLIENT_SECRET), sent in the token requests when set. */
    clientSecret?: string;
    /** The identity-provider name of `/token/{idp-name}` (AUTH_IDP_NAME, default `keycloak`). */
    idpName: string;
  };
  /**
   * Keys given in configuration so that several gateways agree (docs/deployment.md); each absent
   * one is made once in `<GATEWAY_DATA_DIR>/auth/`.
   */
  keys: {
    /** PEM P-256 private key user tokens are signed with and checked against when no other keys are configured (AUTH_SIGNING_KEY or AUTH_SIGNING_KEY_FILE). */
    authSigningKey?: Buffer;
    /** PEM P-256 private key of the service tokens sent to backends (SERVICE_TOKEN_KEY or SERVICE_TOKEN_KEY_FILE). */
    serviceTokenKey?: Buffer;
  };
}

export function authSettings(env: Env): AuthSettings {
  const jwksUrl = url(env, 'AUTH_JWKS_URL', ['http:', 'https:']);
  const publicKeyFiles = list(env, 'AUTH_PUBLIC_KEYS', []);
  return {
    uidDomain: text(env, 'UID_DOMAIN') ?? 'localhost',
    auth: {
      jwksUrl,
      publicKeyFiles,
      issuer: text(env, 'AUTH_ISSUER'),
      audience: text(env, 'AUTH_AUDIENCE'),
      requireExp: boolean(env, 'AUTH_REQUIRE_EXP', true),
      clockSkewSeconds: integer(env, 'AUTH_CLOCK_SKEW_SECONDS', 30, 0, 600),
      // At least 1 s: the cooldown is what stops forged kids from flooding the identity provider.
      jwksCooldownSeconds: integer(env, 'AUTH_JWKS_COOLDOWN_SECONDS', 30, 1, 3600),
      adminRoles: list(env, 'ADMIN_ROLES', ['de-admin', 'super-admin']),
      adminGroup: text(env, 'ADMIN_GROUP') ?? 'de_admins',
      dataStoreAdminRoles: list(env, 'DATA_STORE_ADMIN_ROLES', ['data-store-admin', 'super-admin']),
      serviceRoles: {
        'ldap-reader': text(env, 'SERVICE_ROLE_LDAP_READER') ?? 'ldap-reader',
        emailer: text(env, 'SERVICE_ROLE_EMAILER') ?? 'emailer',
        'subscription-updater':
          text(env, 'SERVICE_ROLE_SUBSCRIPTION_UPDATER') ?? 'subscription-updater',
      },
      embeddedKeys: jwksUrl === undefined && publicKeyFiles.length === 0,
      tokenUrl: url(env, 'AUTH_TOKEN_URL', ['http:', 'https:']),
      authorizeUrl: url(env, 'AUTH_AUTHORIZE_URL', ['http:', 'https:']),
      logoutUrl: url(env, 'AUTH_LOGOUT_URL', ['http:', 'https:']),
      clientId: text(env, 'AUTH_CLIENT_ID') ?? 'platform-gateway',
      clientSecret: text(env, 'AUTH_CLIENT_SECRET'),
      idpName: pathSegment(env, 'AUTH_IDP_NAME', 'keycloak'),
    },
    keys: {
      authSigningKey: ecPrivateKey(env, 'AUTH_SIGNING_KEY'),
      serviceTokenKey: ecPrivateKey(env, 'SERVICE_TOKEN_KEY'),
    },
  };
}

/** A PEM (PKCS#8 or SEC1) P-256 private key from keySetting, for ES256 signing. */
function ecPrivateKey(env: Env, name: string): Buffer | undefined {
  const pem = keySetting(env, name);
  if (pem === undefined) return undefined;
  let curve: string | undefined;
  try {
    curve = createPrivateKey(pem).asymmetricKeyDetails?.namedCurve;
  } catch {
    throw new ConfigError(name, 'must be a PEM private key');
  }
  if (curve !== 'prime256v1')
    throw new ConfigError(
      name,
      'must be a P-256 EC private key (openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256)',
    );
  return pem;
}

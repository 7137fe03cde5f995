// The embedded identity provider (docs/authentication.md): on when no other identity provider or
// key is configured; its realm, public URL, clients, token lifetimes, signing key and the limits
// on failed sign-ins.
import { createPrivateKey } from 'node:crypto';
import {
  ConfigError,
  integer,
  keySetting,
  list,
  pathSegment,
  text,
  url,
  type Env,
} from './variables.ts';

/** One client of the embedded identity provider (IDP_CLIENTS). */
export interface IdentityClientSettings {
  id: string;
  /** Confidential clients authenticate with it (IDP_CLIENT_<ID>_SECRET); public ones have none. */
  secret?: string;
  /** Allowed redirect URIs; one ending in `*` allows every URI it prefixes (IDP_CLIENT_<ID>_REDIRECT_URIS). */
  redirectUris: string[];
}

/**
 * How failed passwords lock one key (a username, or a client address): `maxFailures` of them,
 * each within a window of the one before, lock it for `lockoutSeconds`, doubled at each lock
 * after it, at most `maxLockoutSeconds`.
 */
export interface SignInLockPolicy {
  /** Failed passwords that lock; 0: never locked. */
  maxFailures: number;
  lockoutSeconds: number;
  maxLockoutSeconds: number;
}

/** The limits on failed passwords (docs/authentication.md, "Failed sign-ins"). */
export interface SignInLimitSettings {
  /** A failure this long after the last is counted afresh; a lock ended this long ago is no longer doubled (SIGNIN_FAILURE_WINDOW_SECONDS). */
  windowSeconds: number;
  /** Per username (SIGNIN_MAX_FAILURES, SIGNIN_LOCKOUT_SECONDS, SIGNIN_MAX_LOCKOUT_SECONDS). */
  user: SignInLockPolicy;
  /** Per client address, an IPv6 address by its /64 (SIGNIN_ADDRESS_MAX_FAILURES, ...). */
  address: SignInLockPolicy;
}

/** The embedded identity provider: users in the database, OpenID Connect under `/realms/<realm>`. */
export interface IdentitySettings {
  /** On when AUTH_TOKEN_URL, AUTH_JWKS_URL and AUTH_PUBLIC_KEYS are all unset. */
  enabled: boolean;
  /** The realm of its paths, `/realms/<realm>/...` (IDP_REALM, default `platform`). */
  realm: string;
  /** Its public base URL, the issuer's prefix (IDP_PUBLIC_URL); unset: from each request's host. */
  publicUrl?: string;
  clients: IdentityClientSettings[];
  /** Access and ID token lifetime (IDP_ACCESS_TOKEN_SECONDS, default 900). */
  accessTokenSeconds: number;
  /** Refresh token lifetime, renewed at each use (IDP_REFRESH_TOKEN_SECONDS, default 1800). */
  refreshTokenSeconds: number;
  /** Longest sign-in session, after which refresh stops and sign-in is asked again (IDP_SESSION_SECONDS, default 36000). */
  sessionSeconds: number;
  /** Its RS256 key as PEM (IDP_SIGNING_KEY or _FILE), so several gateways sign alike; unset: a data-dir file. */
  signingKey?: Buffer;
  /** Failed passwords lock a username and a client address for a while. */
  signIn: SignInLimitSettings;
}

/** A client id of IDP_CLIENTS: upper-cased, `-` as `_`, in its variables' names. */
const clientIdPattern = /^[A-Za-z0-9][\w.-]*$/;

/**
 * The embedded identity provider's settings. IDP_CLIENTS lists its clients (default `de-ui`, the
 * web UI, public, redirecting anywhere under UI_BASE_URL); each may have a secret (confidential)
 * and redirect URIs. The gateway's own client (AUTH_CLIENT_ID) is always known to it.
 */
export function identitySettings(
  env: Env,
  { enabled, uiBaseUrl }: { enabled: boolean; uiBaseUrl: string },
): IdentitySettings {
  const clients = list(env, 'IDP_CLIENTS', ['de-ui']).map((id): IdentityClientSettings => {
    if (!clientIdPattern.test(id))
      throw new ConfigError('IDP_CLIENTS', `names "${id}", which is not a plain client id`);
    const prefix = `IDP_CLIENT_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
    const secretValue = text(env, `${prefix}_SECRET`);
    return {
      id,
      ...(secretValue ? { secret: secretValue } : {}),
      redirectUris: list(env, `${prefix}_REDIRECT_URIS`, [`${uiBaseUrl.replace(/\/*$/, '/')}*`]),
    };
  });
  const publicUrl = url(env, 'IDP_PUBLIC_URL', ['http:', 'https:']);
  return {
    enabled,
    realm: pathSegment(env, 'IDP_REALM', 'platform'),
    ...(publicUrl ? { publicUrl: publicUrl.toString().replace(/\/+$/, '') } : {}),
    clients,
    accessTokenSeconds: integer(env, 'IDP_ACCESS_TOKEN_SECONDS', 900, 10, 86_400),
    refreshTokenSeconds: integer(env, 'IDP_REFRESH_TOKEN_SECONDS', 1800, 10, 30 * 86_400),
    sessionSeconds: integer(env, 'IDP_SESSION_SECONDS', 36_000, 60, 365 * 86_400),
    ...rsaPrivateKey(env, 'IDP_SIGNING_KEY'),
    signIn: {
      windowSeconds: integer(env, 'SIGNIN_FAILURE_WINDOW_SECONDS', 900, 1, 86_400),
      user: lockPolicy(env, { prefix: 'SIGNIN', maxFailures: 5, lockout: 60, maxLockout: 900 }),
      address: lockPolicy(env, {
        prefix: 'SIGNIN_ADDRESS',
        maxFailures: 20,
        lockout: 900,
        maxLockout: 86_400,
      }),
    },
  };
}

/** `<prefix>_MAX_FAILURES`, `<prefix>_LOCKOUT_SECONDS`, `<prefix>_MAX_LOCKOUT_SECONDS`. */
function lockPolicy(
  env: Env,
  defaults: { prefix: string; maxFailures: number; lockout: number; maxLockout: number },
): SignInLockPolicy {
  const { prefix } = defaults;
  const lockoutSeconds = integer(env, `${prefix}_LOCKOUT_SECONDS`, defaults.lockout, 1, 86_400);
  const maxLockoutSeconds = integer(
    env,
    `${prefix}_MAX_LOCKOUT_SECONDS`,
    Math.max(defaults.maxLockout, lockoutSeconds),
    1,
    30 * 86_400,
  );
  if (maxLockoutSeconds < lockoutSeconds)
    throw new ConfigError(
      `${prefix}_MAX_LOCKOUT_SECONDS`,
      `must be at least ${prefix}_LOCKOUT_SECONDS (${lockoutSeconds}), got "${maxLockoutSeconds}"`,
    );
  return {
    maxFailures: integer(env, `${prefix}_MAX_FAILURES`, defaults.maxFailures, 0, 1000),
    lockoutSeconds,
    maxLockoutSeconds,
  };
}

/** A PEM RSA private key (2048 bits or more) from keySetting, for RS256 signing. */
function rsaPrivateKey(env: Env, name: string): { signingKey?: Buffer } {
  const pem = keySetting(env, name);
  if (pem === undefined) return {};
  let details: { type: string; bits?: number | undefined };
  try {
    const key = createPrivateKey(pem);
    details = { type: key.asymmetricKeyType ?? '', bits: key.asymmetricKeyDetails?.modulusLength };
  } catch {
    throw new ConfigError(name, 'must be a PEM private key');
  }
  if (details.type !== 'rsa' || (details.bits ?? 0) < 2048)
    throw new ConfigError(
      name,
      'must be an RSA private key of 2048 bits or more (openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048)',
    );
  return { signingKey: pem };
}

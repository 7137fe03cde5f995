// The embedded identity provider (docs/authentication.md): on when no other identity provider or
// key is configured; its realm, public URL, clients, token lifetimes and signing key.
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

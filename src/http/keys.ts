import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  calculateJwkThumbprint,
  createRemoteJWKSet,
  exportJWK,
  SignJWT,
  type JWTVerifyGetKey,
} from 'jose';
import { ConfigError, type GatewayConfig } from '../config/index.ts';
import { configuredOrFileKey, EMBEDDED_ISSUER, identityKeyPath } from '../common/key-files.ts';

export interface LocalKey {
  /** RFC 7638 thumbprint; tokens signed by the embedded key carry it as `kid`. */
  kid: string;
  key: KeyObject;
}

export interface TrustedKeys {
  local: LocalKey[];
  remote?: JWTVerifyGetKey;
  /**
   * A trusted key that may not exist yet: the embedded identity provider's, made when it first
   * signs. Looked for when a token names a kid no local key has; found, it is kept.
   */
  deferred?: () => Promise<LocalKey | undefined>;
}

const EMBEDDED_ALG = 'ES256';

async function thumbprint(key: KeyObject): Promise<string> {
  return calculateJwkThumbprint(await exportJWK(key));
}

function embeddedKeyPath(dataDir: string): string {
  return path.join(dataDir, 'auth', 'signing-key.pem');
}

/**
 * The embedded signing key: AUTH_SIGNING_KEY (`configured`) when set, so that several gateways
 * agree; else created on first use, then read from the data directory.
 */
export function ensureEmbeddedPrivateKey(dataDir: string, configured?: Buffer): KeyObject {
  return configuredOrFileKey(configured, embeddedKeyPath(dataDir));
}

export interface TokenOptions {
  username: string;
  email?: string;
  givenName?: string;
  familyName?: string;
  roles?: string[];
  /** The `entitlement` claim: the user's groups (with ADMIN_GROUP for an administrator). */
  groups?: string[];
  ttlSeconds?: number;
}

/** Signs a token with the embedded key, shaped like an identity provider's access token. */
export async function signEmbeddedToken(
  dataDir: string,
  options: TokenOptions,
  configuredKey?: Buffer,
): Promise<string> {
  const privateKey = ensureEmbeddedPrivateKey(dataDir, configuredKey);
  const kid = await thumbprint(createPublicKey(privateKey));
  const givenName = options.givenName ?? options.username;
  const familyName = options.familyName ?? '';
  return new SignJWT({
    preferred_username: options.username,
    email: options.email ?? `${options.username}@example.org`,
    given_name: givenName,
    family_name: familyName,
    name: [givenName, familyName].filter(Boolean).join(' '),
    realm_access: { roles: options.roles ?? [] },
    entitlement: options.groups ?? [],
  })
    .setProtectedHeader({ alg: EMBEDDED_ALG, kid, typ: 'JWT' })
    .setSubject(options.username)
    .setIssuer(EMBEDDED_ISSUER)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + (options.ttlSeconds ?? 3600))
    .sign(privateKey);
}

function readPublicKeyFile(file: string): KeyObject {
  try {
    return createPublicKey(readFileSync(file));
  } catch (error) {
    throw new ConfigError(
      'AUTH_PUBLIC_KEYS',
      `lists ${file}, which is not a readable PEM public key or certificate (${(error as Error).message})`,
    );
  }
}

/** Every key the gateway trusts, from the configuration (or the embedded pair when none is set). */
export async function loadTrustedKeys(config: GatewayConfig): Promise<TrustedKeys> {
  const { auth } = config;
  const keyObjects = auth.embeddedKeys
    ? [createPublicKey(ensureEmbeddedPrivateKey(config.dataDir, config.keys.authSigningKey))]
    : auth.publicKeyFiles.map(readPublicKeyFile);
  const local = await Promise.all(
    keyObjects.map(async (key) => ({ kid: await thumbprint(key), key })),
  );
  const remote = auth.jwksUrl
    ? createRemoteJWKSet(auth.jwksUrl, {
        // An unknown kid triggers a refetch, at most once per cooldown, so forged kids can't flood the provider.
        // AUTH_JWKS_COOLDOWN_SECONDS (default 30) sets it; tests shorten it to see a key rotation quickly.
        cooldownDuration: auth.jwksCooldownSeconds * 1000,
        cacheMaxAge: 10 * 60_000,
        timeoutDuration: 5_000,
      })
    : undefined;
  // The embedded identity provider's RS256 key, beside the embedded ES256 key of `npm run token`:
  // read once the provider has made it (it is not made here, so a gateway starts without the wait).
  // A configured key (IDP_SIGNING_KEY) is trusted from the start.
  const configuredIdentityKey = config.identity.enabled ? config.identity.signingKey : undefined;
  if (configuredIdentityKey) {
    const key = createPublicKey(configuredIdentityKey);
    local.push({ kid: await thumbprint(key), key });
  }
  let identityKey: LocalKey | undefined;
  const deferred =
    config.identity.enabled && !configuredIdentityKey
      ? async () => (identityKey ??= await readIdentityKey(identityKeyPath(config.dataDir)))
      : undefined;
  return { local, remote, ...(deferred ? { deferred } : {}) };
}

async function readIdentityKey(file: string): Promise<LocalKey | undefined> {
  let key: KeyObject;
  try {
    key = createPublicKey(await readFile(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return { kid: await thumbprint(key), key };
}

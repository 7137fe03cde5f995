// The provider's RS256 key (common/key-files.ts keeps it in the data directory): its JWKS, and
// the Keycloak-shaped access, ID and refresh tokens it signs.
import { createPrivateKey, createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, compactVerify, exportJWK, SignJWT, type JWK } from 'jose';
import { ensureRsaPrivateKeyFile, identityKeyPath } from '../../common/key-files.ts';
import type { IdentityUser } from './users.ts';

export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  kid: string;
  jwk: JWK;
}

export async function loadSigningKey(dataDir: string, configured?: Buffer): Promise<SigningKey> {
  const privateKey = configured
    ? createPrivateKey(configured)
    : ensureRsaPrivateKeyFile(identityKeyPath(dataDir));
  const publicKey = createPublicKey(privateKey);
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { privateKey, publicKey, kid, jwk: { ...jwk, kid, alg: 'RS256', use: 'sig' } };
}

export interface TokenContext {
  issuer: string;
  user: IdentityUser;
  clientId: string;
  sessionId: string;
  scope: string;
  roles: string[];
  /** The user's groups (`entitlement`), in the access and ID tokens alike. */
  entitlement: string[];
  nowSeconds: number;
  accessSeconds: number;
  refreshSeconds: number;
  nonce?: string;
  authTime?: number;
}

async function sign(
  key: SigningKey,
  claims: Record<string, unknown>,
  typ = 'JWT',
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ })
    .sign(key.privateKey);
}

/** The claims the gateway (and a Keycloak client) read of a user. */
function profile(user: IdentityUser, entitlement: string[]) {
  return {
    preferred_username: user.username,
    email: user.email,
    email_verified: true,
    given_name: user.firstName,
    family_name: user.lastName,
    name: [user.firstName, user.lastName].filter(Boolean).join(' '),
    entitlement,
  };
}

export async function signTokens(key: SigningKey, context: TokenContext) {
  const { issuer, user, clientId, sessionId, nowSeconds } = context;
  const common = {
    iss: issuer,
    sub: user.username,
    azp: clientId,
    sid: sessionId,
    session_state: sessionId,
    iat: nowSeconds,
  };
  const accessToken = await sign(key, {
    ...common,
    jti: randomUUID(),
    exp: nowSeconds + context.accessSeconds,
    aud: 'account',
    typ: 'Bearer',
    scope: context.scope,
    ...profile(user, context.entitlement),
    realm_access: { roles: context.roles },
  });
  const refreshToken = await sign(key, {
    ...common,
    jti: randomUUID(),
    exp: nowSeconds + context.refreshSeconds,
    aud: issuer,
    typ: 'Refresh',
    scope: context.scope,
  });
  const idToken = context.scope.split(' ').includes('openid')
    ? await sign(key, {
        ...common,
        jti: randomUUID(),
        exp: nowSeconds + context.accessSeconds,
        aud: clientId,
        typ: 'ID',
        auth_time: context.authTime ?? nowSeconds,
        ...(context.nonce ? { nonce: context.nonce } : {}),
        ...profile(user, context.entitlement),
      })
    : undefined;
  return { accessToken, refreshToken, idToken };
}

/** The payload of a token this key signed, whatever its expiry (for `id_token_hint`); undefined otherwise. */
export async function signedPayload(
  key: SigningKey,
  token: string,
): Promise<Record<string, unknown> | undefined> {
  try {
    const { payload } = await compactVerify(token, key.publicKey, { algorithms: ['RS256'] });
    const parsed: unknown = JSON.parse(new TextDecoder().decode(payload));
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

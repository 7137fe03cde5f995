// Short-lived tokens the gateway signs for backends that take the caller's identity as a JWT
// (the genome service, routes.md §15: `X-Vendor-De-Jwt` with sub, email, given_name,
// family_name, name, valid 300 s).
//
// They are signed with a key of their own, SERVICE_TOKEN_KEY (`configured` below) or else
// `<GATEWAY_DATA_DIR>/auth/service-token-key.pem`, never
// with the key user tokens are checked against: a backend that receives one cannot replay it to
// the gateway as the user. An embedded backend verifies with the public half of the same file
// (it runs in the gateway's process, or standalone on the same data directory).
import { createPublicKey, type KeyObject } from 'node:crypto';
import path from 'node:path';
import { calculateJwkThumbprint, exportJWK, jwtVerify, SignJWT } from 'jose';
import type { Identity } from './identity.ts';
import { configuredOrFileKey, EMBEDDED_ISSUER } from './key-files.ts';

/** How long a service token is valid. */
export const SERVICE_TOKEN_TTL_SECONDS = 300;
const ALG = 'ES256';
/** Tolerance on `exp`, `nbf` and `iat` between gateway and backend clocks. */
const CLOCK_TOLERANCE_SECONDS = 30;

export function serviceTokenKeyPath(dataDir: string): string {
  return path.join(dataDir, 'auth', 'service-token-key.pem');
}

/** The claims a service token carries about the caller. */
export interface ServiceTokenClaims {
  sub: string;
  email: string;
  given_name: string;
  family_name: string;
  name: string;
}

/** Signs service tokens for one audience (a backend name). The key is read (or made) once. */
export class ServiceTokenSigner {
  private readonly key: KeyObject;
  private kid?: Promise<string>;

  private readonly audience: string;

  constructor(dataDir: string, audience: string, configured?: Buffer) {
    this.audience = audience;
    this.key = configuredOrFileKey(configured, serviceTokenKeyPath(dataDir));
  }

  async sign(identity: Identity, nowSeconds = Math.floor(Date.now() / 1000)): Promise<string> {
    this.kid ??= exportJWK(createPublicKey(this.key)).then((jwk) => calculateJwkThumbprint(jwk));
    const givenName = identity.firstName ?? '';
    const familyName = identity.lastName ?? '';
    const claims: Omit<ServiceTokenClaims, 'sub'> = {
      email: identity.email ?? '',
      given_name: givenName,
      family_name: familyName,
      name: identity.name ?? [givenName, familyName].filter(Boolean).join(' '),
    };
    return new SignJWT(claims)
      .setProtectedHeader({ alg: ALG, kid: await this.kid, typ: 'JWT' })
      .setSubject(identity.username)
      .setIssuer(EMBEDDED_ISSUER)
      .setAudience(this.audience)
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + SERVICE_TOKEN_TTL_SECONDS)
      .sign(this.key);
  }
}

/** Checks service tokens for one audience against the gateway's service-token key. */
export class ServiceTokenVerifier {
  private readonly key: KeyObject;

  private readonly audience: string;

  constructor(dataDir: string, audience: string, configured?: Buffer) {
    this.audience = audience;
    this.key = createPublicKey(configuredOrFileKey(configured, serviceTokenKeyPath(dataDir)));
  }

  /** The claims of a valid token; throws (jose's errors) for anything else. */
  async verify(token: string): Promise<ServiceTokenClaims> {
    const { payload } = await jwtVerify(token, this.key, {
      algorithms: [ALG],
      issuer: EMBEDDED_ISSUER,
      audience: this.audience,
      requiredClaims: ['sub', 'exp', 'iat'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      maxTokenAge: SERVICE_TOKEN_TTL_SECONDS + CLOCK_TOLERANCE_SECONDS,
    });
    const text = (value: unknown) => (typeof value === 'string' ? value : '');
    return {
      sub: payload.sub!,
      email: text(payload.email),
      given_name: text(payload.given_name),
      family_name: text(payload.family_name),
      name: text(payload.name),
    };
  }
}

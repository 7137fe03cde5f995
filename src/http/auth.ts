import type { KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import {
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type CryptoKey,
  type JWTPayload,
  type JWTVerifyOptions,
} from 'jose';
import { LRUCache } from 'lru-cache';
import type { GatewayConfig, ServiceRole } from '../config/index.ts';
import { errorTable, GatewayError } from '../common/errors.ts';
import type { TrustedKeys } from './keys.ts';
import type { Identity } from '../common/identity.ts';

/**
 * Route auth levels (routes.md §1.2): `none` reads no credentials; `optional` uses them when
 * present; `user` requires them; `admin` and `data-store-admin` also require a role;
 * `{serviceRole}` requires a service account holding the realm role configured for that route
 * family (`auth.serviceRoles`, routes.md §25).
 */
export type AuthLevel =
  'none' | 'optional' | 'user' | 'admin' | 'data-store-admin' | { serviceRole: ServiceRole };

/** Asymmetric algorithms only: HMAC would let anyone holding a public key mint tokens. */
export const allowedAlgorithms = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

/** Why authentication failed; also the label of the auth-failure metric. */
export type AuthFailure =
  | 'missing'
  | 'malformed'
  | 'algorithm'
  | 'expired'
  | 'not_yet_valid'
  | 'claims'
  | 'untrusted'
  | 'key_unavailable'
  | 'forbidden';

export class AuthError extends GatewayError {
  readonly failure: AuthFailure;

  constructor(failure: AuthFailure, reason: string) {
    const code = failure === 'forbidden' ? 'ERR_FORBIDDEN' : 'ERR_NOT_AUTHORIZED';
    super(
      errorTable[code].status,
      code,
      reason,
      {},
      failure === 'forbidden' ? {} : { 'www-authenticate': 'Bearer realm="platform-gateway"' },
    );
    this.failure = failure;
  }
}

export const noCredentials = () =>
  new AuthError('missing', 'No user authentication information found in request.');

const compactJwt = /^[\w-]+\.[\w-]*\.[\w-]*$/;

/** The cookie holding the access token after the browser flow of `/oidc/*` (routes.md §2). */
export const accessTokenCookie = 'gateway_access_token';

/** A cookie's value from a `Cookie` header. */
export function readCookie(headers: IncomingHttpHeaders, name: string): string | undefined {
  for (const part of (headers.cookie ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}

/**
 * Whether a request may be authenticated by the access-token cookie. The cookie is SameSite=Lax,
 * so browsers send it cross-site only on top-level GET navigations; on top of that, a request
 * whose `Origin` names another host never uses it (a cross-site form or script cannot act as the
 * signed-in user).
 */
function cookieUsable(headers: IncomingHttpHeaders): boolean {
  const origin = headers.origin;
  if (typeof origin !== 'string' || origin === '') return true;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false;
  }
  const forwarded = headers['x-forwarded-host'];
  return (
    host === headers.host ||
    (typeof forwarded === 'string' && host === forwarded.split(',')[0]!.trim())
  );
}

/**
 * The token of a request: `X-Vendor-De-Jwt` first, then `Authorization: Bearer` (any case), then
 * the access-token cookie (clients.md §2.1).
 */
export function extractToken(headers: IncomingHttpHeaders): string | undefined {
  const vendor = headers['x-vendor-de-jwt'];
  if (typeof vendor === 'string' && vendor.trim() !== '') return vendor.trim();
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  const cookie = readCookie(headers, accessTokenCookie);
  if (cookie && cookieUsable(headers)) return cookie;
  return undefined;
}

function strings(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' ? [value] : [];
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function identityFromClaims(claims: JWTPayload): Identity {
  const username = optionalString(claims.preferred_username) ?? optionalString(claims.sub);
  if (!username) throw new AuthError('claims', 'Missing required JWT claims: [preferred_username]');
  const roles = new Set(strings((claims.realm_access as { roles?: unknown } | undefined)?.roles));
  const resourceAccess = claims.resource_access;
  if (resourceAccess && typeof resourceAccess === 'object') {
    for (const client of Object.values(resourceAccess as Record<string, { roles?: unknown }>)) {
      for (const role of strings(client?.roles)) roles.add(role);
    }
  }
  // Legacy signers put groups under a namespaced `<ns>:entitlement` claim.
  const groups = new Set(strings(claims.entitlement));
  for (const [claim, value] of Object.entries(claims)) {
    if (claim.endsWith(':entitlement')) for (const group of strings(value)) groups.add(group);
  }
  return {
    username,
    email: optionalString(claims.email),
    firstName: optionalString(claims.given_name),
    lastName: optionalString(claims.family_name),
    name: optionalString(claims.name),
    roles: [...roles],
    groups: [...groups],
  };
}

function failureOf(error: unknown): AuthError {
  if (error instanceof AuthError) return error;
  if (error instanceof errors.JWTExpired) return new AuthError('expired', 'Token has expired.');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return new AuthError('not_yet_valid', 'Token is not yet valid.');
    return new AuthError(
      'claims',
      `Token claim "${error.claim}" is not acceptable (${error.reason}).`,
    );
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return new AuthError('algorithm', 'Token algorithm is not allowed.');
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey
  ) {
    return new AuthError('untrusted', 'Untrusted JWT signature.');
  }
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) {
    return new AuthError('key_unavailable', 'Signing keys are unavailable; try again later.');
  }
  // jose reports a JWKS endpoint answering non-200 with its generic error class.
  if (error instanceof errors.JOSEError && error.code === 'ERR_JOSE_GENERIC') {
    return new AuthError('key_unavailable', 'Signing keys are unavailable; try again later.');
  }
  if (error instanceof errors.JOSEError) return new AuthError('malformed', 'Malformed token.');
  // Network failures while fetching the JWKS surface as plain errors.
  return new AuthError('key_unavailable', 'Signing keys are unavailable; try again later.');
}

export interface VerifiedToken {
  identity: Identity;
  /** Seconds since the epoch, when known. */
  expiresAt?: number;
}

/** How long a verified token without `exp` (AUTH_REQUIRE_EXP=false) is remembered. */
const unexpiringCacheMs = 5 * 60_000;

/**
 * RFC 7519 allows any JSON number in `exp`, `nbf` and `iat`, and jose checks only that they are
 * numbers: `1e400` parses as Infinity, a token that never expires. Only whole seconds that a
 * double holds exactly are accepted.
 */
function assertNumericDates(payload: JWTPayload): void {
  for (const claim of ['exp', 'nbf', 'iat'] as const) {
    const value = payload[claim];
    if (value !== undefined && !Number.isSafeInteger(value)) {
      throw new AuthError('claims', `Token claim "${claim}" must be a whole number of seconds.`);
    }
  }
}

interface CachedToken {
  verified: VerifiedToken;
  /** Milliseconds since the epoch until which the token is accepted: its `exp` plus the clock skew. */
  validUntil: number;
}

/**
 * Verifies tokens against the trusted keys. A verified token is remembered (keyed by its text) until
 * it expires (by `now`, with the same clock skew as a fresh check), so a client repeating its token
 * costs a map lookup, not a signature check.
 */
export class TokenVerifier {
  private readonly cache = new LRUCache<string, CachedToken>({ max: 10_000 });
  /** The token a connection last sent, verified (see verifiedBefore); gone with the connection. */
  private readonly lastOnConnection = new WeakMap<object, { token: string; cached: CachedToken }>();
  private readonly options: JWTVerifyOptions;
  private readonly clockSkewMs: number;
  /** Signature checks performed (cache misses that reached a key); exposed for tests and metrics. */
  signatureChecks = 0;

  private readonly keys: TrustedKeys;
  private readonly now: () => number;
  constructor(
    keys: TrustedKeys,
    auth: GatewayConfig['auth'],
    /** Milliseconds since the epoch; tests move it. */
    now: () => number = Date.now,
  ) {
    this.keys = keys;
    this.now = now;
    this.clockSkewMs = auth.clockSkewSeconds * 1000;
    this.options = {
      algorithms: allowedAlgorithms,
      clockTolerance: auth.clockSkewSeconds,
      issuer: auth.issuer,
      audience: auth.audience,
      requiredClaims: auth.requireExp ? ['exp'] : [],
    };
  }

  /**
   * A token verified before and still valid, answered at once (no promise); else undefined.
   * `connection` (the request's socket) lets a client that sends the same token on every request
   * of a keep-alive connection skip the cache's lookup: the cache is a map keyed by the token's
   * text, and a token read from a new request is a new string whose hash V8 computes over its
   * whole length (≈ 1 µs for a kilobyte, 2 % of a passthrough request), while comparing it with
   * the connection's last token is a memory compare.
   */
  verifiedBefore(token: string, connection?: object): VerifiedToken | undefined {
    const last = connection && this.lastOnConnection.get(connection);
    let cached = last !== undefined && last.token === token ? last.cached : undefined;
    if (cached === undefined) {
      // Keyed by the token itself: the process holds it already, and a digest of it cost more per
      // request than the whole lookup (a token is about a kilobyte; 10,000 cached are about 10 MB).
      cached = this.cache.get(token);
      if (cached === undefined) return undefined;
      if (connection) this.lastOnConnection.set(connection, { token, cached });
    }
    if (this.now() < cached.validUntil) return cached.verified;
    this.cache.delete(token);
    if (connection) this.lastOnConnection.delete(connection);
    return undefined;
  }

  async verify(token: string): Promise<VerifiedToken> {
    const known = this.verifiedBefore(token);
    if (known) return known;
    const now = this.now();
    const cacheKey = token;
    if (!compactJwt.test(token)) throw new AuthError('malformed', 'Malformed token.');
    let verified: VerifiedToken;
    try {
      const payload = await this.verifySignature(token, {
        ...this.options,
        currentDate: new Date(now),
      });
      assertNumericDates(payload);
      verified = { identity: identityFromClaims(payload), expiresAt: payload.exp };
    } catch (error) {
      throw failureOf(error);
    }
    // jose accepts a token while exp > floor(now in s) - skew: for whole seconds, until (exp + skew) s.
    const validUntil =
      verified.expiresAt === undefined
        ? now + unexpiringCacheMs
        : verified.expiresAt * 1000 + this.clockSkewMs;
    // The LRU's own ttl (on its own clock) only frees memory; validUntil decides.
    if (validUntil > now)
      this.cache.set(
        cacheKey,
        { verified, validUntil },
        { ttl: Math.min(validUntil - now, 2 ** 31 - 1) },
      );
    return verified;
  }

  private async verifySignature(token: string, options: JWTVerifyOptions): Promise<JWTPayload> {
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      // jose throws a plain TypeError here, which would otherwise read as "keys unavailable".
      throw new AuthError('malformed', 'Malformed token.');
    }
    if (typeof header.alg !== 'string' || !allowedAlgorithms.includes(header.alg)) {
      throw new AuthError('algorithm', 'Token algorithm is not allowed.');
    }
    let byKid = this.keys.local.filter((local) => local.kid === header.kid);
    if (byKid.length === 0 && header.kid !== undefined && this.keys.deferred) {
      const found = await this.keys.deferred();
      if (found && found.kid === header.kid) {
        this.keys.local.push(found);
        byKid = [found];
      }
    }
    const local = await this.verifyWithAny(
      token,
      (byKid.length > 0 ? byKid : this.keys.local).map(({ key }) => key),
      options,
    );
    if (local) return local;
    if (this.keys.remote) {
      this.signatureChecks++;
      try {
        return (await jwtVerify(token, this.keys.remote, options)).payload;
      } catch (error) {
        // A token without a kid can match several JWKS keys (say, during a rotation): jose then
        // hands back the candidates for the caller to try in turn.
        if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error;
        this.signatureChecks--; // that attempt checked no signature; verifyWithAny counts each one
        const remote = await this.verifyWithAny(token, error, options);
        if (remote) return remote;
      }
    }
    throw new AuthError('untrusted', 'Untrusted JWT signature.');
  }

  /** The payload from the first key whose signature check passes, or undefined when none does. */
  private async verifyWithAny(
    token: string,
    keys: Iterable<KeyObject | CryptoKey> | AsyncIterable<CryptoKey>,
    options: JWTVerifyOptions,
  ): Promise<JWTPayload | undefined> {
    for await (const key of keys) {
      this.signatureChecks++;
      try {
        return (await jwtVerify(token, key, options)).payload;
      } catch (error) {
        // A key of the wrong type or a signature made by another key: try the next one. jose turns
        // a KeyObject into a CryptoKey for the token's algorithm, and WebCrypto refuses a key of
        // another type with a DataError (node 22 and later; node 20's path said JOSENotSupported).
        if (error instanceof TypeError || error instanceof errors.JWSSignatureVerificationFailed)
          continue;
        if (error instanceof errors.JOSENotSupported) continue;
        if (error instanceof DOMException && error.name === 'DataError') continue;
        throw error;
      }
    }
    return undefined;
  }
}

function hasAny(identity: Identity, roles: readonly string[]): boolean {
  return identity.roles.some((role) => roles.includes(role));
}

/** Checks what an identified (or anonymous) caller may do at a route's auth level. */
export function authorize(
  level: AuthLevel,
  identity: Identity | undefined,
  auth: GatewayConfig['auth'],
): void {
  if (level === 'none' || level === 'optional') return;
  if (!identity) throw noCredentials();
  if (level === 'user') return;
  if (level === 'admin') {
    if (!hasAny(identity, auth.adminRoles))
      throw new AuthError('forbidden', 'You are not in one of the admin groups.');
    return;
  }
  if (level === 'data-store-admin') {
    if (!hasAny(identity, auth.adminRoles) && !hasAny(identity, auth.dataStoreAdminRoles)) {
      throw new AuthError('forbidden', 'You are not in one of the admin groups.');
    }
    return;
  }
  if (
    !identity.username.startsWith('service-account-') ||
    !identity.roles.includes(auth.serviceRoles[level.serviceRole])
  ) {
    throw new AuthError('forbidden', 'This account is not permitted to call this endpoint.');
  }
}

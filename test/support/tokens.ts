// Signing keys, user tokens and a JWKS server over real HTTP, for tests of what the gateway accepts;
// also hand-crafted tokens that no JWT library would sign.
import { createPublicKey } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  exportJWK,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';

export interface SigningKey {
  alg: 'RS256' | 'ES256';
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function createSigningKey(alg: 'RS256' | 'ES256', kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return {
    alg,
    kid,
    privateKey,
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' },
  };
}

export const userClaims = (username: string, extra: JWTPayload = {}): JWTPayload => ({
  preferred_username: username,
  email: `${username}@example.org`,
  given_name: username[0]!.toUpperCase() + username.slice(1),
  family_name: 'Tester',
  name: `${username} Tester`,
  ...extra,
});

export async function signToken(
  key: SigningKey,
  claims: JWTPayload,
  /** `expiresIn: null` leaves `exp` out; `kid: null` leaves `kid` out. */
  options: { expiresIn?: number | null; notBefore?: number; kid?: string | null } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const header =
    options.kid === null ? { alg: key.alg } : { alg: key.alg, kid: options.kid ?? key.kid };
  const jwt = new SignJWT(claims).setProtectedHeader(header).setIssuedAt(now);
  if (options.expiresIn !== null) jwt.setExpirationTime(now + (options.expiresIn ?? 3600));
  if (options.notBefore !== undefined) jwt.setNotBefore(now + options.notBefore);
  return jwt.sign(key.privateKey);
}

/** Request headers presenting a token the way the web UI and CLI do. */
export const bearer = (token: string): Record<string, string> => ({
  authorization: `Bearer ${token}`,
});

/** The key's public half as an SPKI PEM, the format AUTH_PUBLIC_KEYS files hold. */
export function publicKeyPem(key: SigningKey): string {
  const { kid: _kid, alg: _alg, use: _use, ...jwk } = key.publicJwk;
  return createPublicKey({ key: jwk, format: 'jwk' }).export({
    type: 'spki',
    format: 'pem',
  }) as string;
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A compact JWT assembled by hand from any header, for tokens no honest library signs
 * (`alg: none`, HMAC keyed with a public key): `sign` gets the signing input `header.payload`.
 */
export function craftToken(
  header: Record<string, unknown>,
  claims: JWTPayload,
  sign: (input: string) => Buffer = () => Buffer.alloc(0),
): string {
  const now = Math.floor(Date.now() / 1000);
  const input = `${base64url(header)}.${base64url({ iat: now, exp: now + 3600, ...claims })}`;
  return `${input}.${sign(input).toString('base64url')}`;
}

export interface JwksServer {
  url: string;
  /** Number of times the key set was fetched. */
  fetches: number;
  setKeys(keys: SigningKey[]): void;
  close(): Promise<void>;
}

/** Serves a JWKS over real HTTP, like an identity provider's certs endpoint. */
export async function startJwksServer(keys: SigningKey[]): Promise<JwksServer> {
  let current = keys;
  const state = { fetches: 0 };
  const server = createServer((_req, res) => {
    state.fetches++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: current.map((key) => key.publicJwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/certs`,
    get fetches() {
      return state.fetches;
    },
    setKeys: (next) => {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  } as JwksServer;
}

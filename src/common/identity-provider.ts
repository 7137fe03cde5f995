// What the gateway's `/token` and `/oidc/*` routes (routes.md §2) need of an identity provider:
// its token endpoint and its authorize URL. Either the configured one (AUTH_TOKEN_URL,
// AUTH_AUTHORIZE_URL, over HTTP) or the embedded identity provider (src/backends/identity/, in
// process), the same to the routes.
import type { FastifyInstance } from 'fastify';

/** The token endpoint's answer: its status and JSON body (tokens, or `{error, error_description}`). */
export interface TokenEndpointAnswer {
  status: number;
  body: Record<string, unknown>;
  /** A 429's `Retry-After` in seconds (a locked sign-in, a provider's own limit). */
  retryAfterSeconds?: number;
}

export interface IdentityProviderLink {
  /** True for the embedded provider. */
  embedded: boolean;
  /** Where a browser signs in; `origin` is the gateway's as the browser sees it. */
  authorizeUrl(origin: string): string;
  /**
   * Posts a token request (RFC 6749 §3.2) as the gateway's client (AUTH_CLIENT_ID and
   * AUTH_CLIENT_SECRET are added by the link when it needs them). `address` is the client's, whose
   * failed passwords the embedded provider limits (a configured one limits them itself).
   */
  token(
    form: Record<string, string>,
    origin: string,
    address?: string,
  ): Promise<TokenEndpointAnswer>;
  /** The end-session endpoint a browser is sent to at logout, when there is one. */
  endSessionUrl(origin: string): string | undefined;
  /** Ends the sign-in a refresh token belongs to (its refresh tokens are revoked). */
  revoke(refreshToken: string, origin: string): Promise<void>;
}

/** A username or a client address with failed sign-ins counted (docs/authentication.md). */
export interface SignInLock {
  kind: 'user' | 'address';
  /** The username, or the address (an IPv6 network as `<first address>/64`). */
  name: string;
  /** Failed passwords in the current window. */
  failures: number;
  /** While locked: when the lock ends (ms since the epoch) and the seconds left. */
  lockedUntil?: number;
  retryAfterSeconds?: number;
}

/** The embedded provider's limits on failed passwords, as an administrator reaches them. */
export interface SignInLocks {
  list(): Promise<SignInLock[]>;
  /** Forgets a username's failures and lifts its lock; whether there was anything to forget. */
  liftUser(username: string): Promise<boolean>;
  /**
   * The same for an address (IPv6: its /64): the address as counted and whether there was
   * anything to forget; undefined when `address` is not an IP address.
   */
  liftAddress(address: string): Promise<{ name: string; lifted: boolean } | undefined>;
}

/**
 * The embedded identity provider as the gateway's areas see it: its in-process token endpoint, its
 * `/realms/<realm>/...` routes, which the `identity-provider` area mounts on the public listener,
 * and its sign-in locks, which the admin area lifts.
 */
export interface EmbeddedIdentity {
  link: IdentityProviderLink;
  routes(app: FastifyInstance): Promise<void>;
  signInLocks: SignInLocks;
}

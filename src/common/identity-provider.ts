// What the gateway's `/token` and `/oidc/*` routes (routes.md §2) need of an identity provider:
// its token endpoint and its authorize URL. Either the configured one (AUTH_TOKEN_URL,
// AUTH_AUTHORIZE_URL, over HTTP) or the embedded identity provider (src/backends/identity/, in
// process), the same to the routes.
import type { FastifyInstance } from 'fastify';

/** The token endpoint's answer: its status and JSON body (tokens, or `{error, error_description}`). */
export interface TokenEndpointAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface IdentityProviderLink {
  /** True for the embedded provider. */
  embedded: boolean;
  /** Where a browser signs in; `origin` is the gateway's as the browser sees it. */
  authorizeUrl(origin: string): string;
  /**
   * Posts a token request (RFC 6749 §3.2) as the gateway's client (AUTH_CLIENT_ID and
   * AUTH_CLIENT_SECRET are added by the link when it needs them).
   */
  token(form: Record<string, string>, origin: string): Promise<TokenEndpointAnswer>;
  /** The end-session endpoint a browser is sent to at logout, when there is one. */
  endSessionUrl(origin: string): string | undefined;
  /** Ends the sign-in a refresh token belongs to (its refresh tokens are revoked). */
  revoke(refreshToken: string, origin: string): Promise<void>;
}

/**
 * The embedded identity provider as the gateway's areas see it: its in-process token endpoint, and
 * its `/realms/<realm>/...` routes, which the `identity-provider` area mounts on the public listener.
 */
export interface EmbeddedIdentity {
  link: IdentityProviderLink;
  routes(app: FastifyInstance): Promise<void>;
}

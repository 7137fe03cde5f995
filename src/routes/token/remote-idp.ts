// The configured identity provider (AUTH_TOKEN_URL, AUTH_AUTHORIZE_URL, AUTH_LOGOUT_URL) as the
// `/token` and `/oidc/*` routes see it: form posts to its token endpoint as the gateway's client.
import type { IdentityProviderLink, TokenEndpointAnswer } from '../../common/identity-provider.ts';
import { gatewayError } from '../../common/errors.ts';
import type { GatewayConfig } from '../../config/index.ts';

const timeoutMs = 15_000;

export function remoteIdentityProvider(
  auth: GatewayConfig['auth'],
): IdentityProviderLink | undefined {
  const { tokenUrl } = auth;
  if (!tokenUrl) return undefined;
  const client = {
    client_id: auth.clientId,
    ...(auth.clientSecret ? { client_secret: auth.clientSecret } : {}),
  };
  async function post(form: Record<string, string>): Promise<TokenEndpointAnswer> {
    let response: Response;
    try {
      response = await fetch(tokenUrl!, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ ...form, ...client }).toString(),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'manual',
      });
    } catch (error) {
      throw gatewayError(
        'ERR_UNAVAILABLE',
        `The identity provider did not answer (${(error as Error).message}).`,
      );
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      if (response.ok)
        throw gatewayError(
          'ERR_OAUTH_SERVER',
          'The identity provider answered something other than JSON.',
        );
      body = { error: `HTTP ${response.status}`, error_description: text.slice(0, 200) };
    }
    return { status: response.status, body: body as Record<string, unknown> };
  }
  return {
    embedded: false,
    authorizeUrl: () => {
      if (!auth.authorizeUrl)
        throw gatewayError(
          'ERR_NOT_IMPLEMENTED',
          'AUTH_AUTHORIZE_URL is not set: no browser sign-in.',
        );
      return auth.authorizeUrl.toString();
    },
    token: (form) => post(form),
    endSessionUrl: () => auth.logoutUrl?.toString(),
    // Keycloak's back-channel logout takes the refresh token at the end-session endpoint.
    revoke: async (refreshToken) => {
      if (!auth.logoutUrl) return;
      await fetch(auth.logoutUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...client, refresh_token: refreshToken }).toString(),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'manual',
      }).catch(() => undefined);
    },
  };
}

// The token endpoint of a third-party API's OAuth server (RFC 6749 §4.1.3 and §6): codes and
// refresh tokens go in, access tokens come out.
import { request } from 'undici';
import type { OAuthClientSettings } from '../../../config/index.ts';
import { errorTable, gatewayError, GatewayError } from '../../../common/errors.ts';

/** What the token endpoint granted. */
export interface TokenGrant {
  accessToken: string;
  /** Lifetime in seconds, when the provider gave one. */
  expiresIn?: number;
  refreshToken?: string;
}

/** The provider answered, and said no (its status and, when it sent them, its RFC 6749 §5.2 `error` fields). */
export class TokenEndpointRefusal extends GatewayError {
  readonly providerStatus: number;

  constructor(providerStatus: number, reason: string, extra: Record<string, unknown>) {
    super(errorTable.ERR_OAUTH_SERVER.status, 'ERR_OAUTH_SERVER', reason, {
      provider_status: providerStatus,
      ...extra,
    });
    this.providerStatus = providerStatus;
  }

  /** 400 and 401 are how a token endpoint refuses a grant (`invalid_grant`, `invalid_client`); 5xx is an outage. */
  get refusesGrant(): boolean {
    return this.providerStatus === 400 || this.providerStatus === 401;
  }
}

const timeoutMs = 15_000;

const oauthServerError = (apiName: string, reason: string) =>
  gatewayError('ERR_OAUTH_SERVER', reason, { api_name: apiName });

/** The RFC 6749 §5.2 error fields of a refusal, when the body is the JSON it should be. */
function refusalFields(text: string): Record<string, string> {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    return Object.fromEntries(
      (['error', 'error_description'] as const).flatMap((name) =>
        typeof body[name] === 'string'
          ? [[`provider_${name}`, (body[name] as string).slice(0, 500)]]
          : [],
      ),
    );
  } catch {
    return {};
  }
}

function grantOf(apiName: string, text: string): TokenGrant {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw oauthServerError(
      apiName,
      `The ${apiName} token endpoint answered something other than JSON.`,
    );
  }
  const { access_token: accessToken, expires_in: expiresIn, refresh_token: refreshToken } = body;
  if (typeof accessToken !== 'string' || accessToken === '')
    throw oauthServerError(
      apiName,
      `The ${apiName} token endpoint answered without an access_token.`,
    );
  // Some providers send the lifetime as a string of digits.
  const lifetime =
    typeof expiresIn === 'number'
      ? expiresIn
      : typeof expiresIn === 'string' && /^\d+$/.test(expiresIn)
        ? Number(expiresIn)
        : undefined;
  return {
    accessToken,
    ...(lifetime !== undefined && Number.isFinite(lifetime) && lifetime >= 0
      ? { expiresIn: lifetime }
      : {}),
    ...(typeof refreshToken === 'string' && refreshToken !== '' ? { refreshToken } : {}),
  };
}

/**
 * One token request (`authorization_code` or `refresh_token` grant). The client id always travels
 * in the form (spec step 8); a client secret, when there is one, as HTTP Basic credentials
 * (RFC 6749 §2.3.1, each part form-encoded). An unreachable endpoint or an unusable answer is a 502
 * `ERR_OAUTH_SERVER`; a refusal is a TokenEndpointRefusal (also 502).
 */
export async function requestToken(
  apiName: string,
  client: OAuthClientSettings,
  grant: Record<string, string>,
): Promise<TokenGrant> {
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (client.clientSecret !== undefined) {
    const credentials = `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  let status: number;
  let text: string;
  try {
    const response = await request(client.tokenUrl, {
      method: 'POST',
      headers,
      body: new URLSearchParams({ ...grant, client_id: client.clientId }).toString(),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    status = response.statusCode;
    text = await response.body.text();
  } catch (error) {
    throw oauthServerError(
      apiName,
      `The ${apiName} token endpoint could not be reached: ${(error as Error).message}`,
    );
  }
  if (status < 200 || status >= 300) {
    throw new TokenEndpointRefusal(
      status,
      `The ${apiName} token endpoint refused the ${grant.grant_type} grant (${status}).`,
      { api_name: apiName, ...refusalFields(text) },
    );
  }
  return grantOf(apiName, text);
}

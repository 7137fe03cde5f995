// OAuth access to third-party APIs (spec "OAuth authorization code callback"): each API's client
// at its OAuth server, where the callback sends the browser back, and the key that seals the
// tokens the apps service stores.
import { ConfigError, keySetting, list, text, url, type Env } from './variables.ts';

/** One OAuth 2.0 client of a third-party API (authorization code grant). */
export interface OAuthClientSettings {
  authorizeUrl: string;
  tokenUrl: string;
  clientId: string;
  /** Sent with HTTP Basic authentication to the token endpoint when set. */
  clientSecret?: string;
  /** Where the provider sends the browser back: the gateway's `/oauth/callback/<api>`. */
  redirectUri: string;
}

export interface OAuthSettings {
  /**
   * The third-party APIs of the access-code flow, by name (OAUTH_APIS, default `extapi`): each
   * configured by `<API>_OAUTH_AUTHORIZE_URL`, `_TOKEN_URL`, `_CLIENT_ID` (and, for `extapi`,
   * the older EXTAPI_AUTHORIZE_URL, EXTAPI_TOKEN_URL, EXTAPI_CLIENT_ID). Only configured ones are here.
   */
  apis: Record<string, OAuthClientSettings>;
  /** Where the gateway's OAuth callback sends the browser (UI_BASE_URL, default `http://localhost:<PORT>/`). */
  uiBaseUrl: string;
  /**
   * The AES-256 key that seals stored access and refresh tokens (TOKEN_ENCRYPTION_KEY); when
   * unset, the apps service makes one in `<GATEWAY_DATA_DIR>/auth/token-encryption.key`.
   */
  tokenEncryptionKey?: Buffer;
}

export function oauthSettings(env: Env, port: number, uiBaseUrl: string): OAuthSettings {
  return {
    apis: oauthClients(env, port),
    uiBaseUrl,
    tokenEncryptionKey: encryptionKey(env, 'TOKEN_ENCRYPTION_KEY'),
  };
}

/** An API name of OAUTH_APIS: it appears in paths and, upper-cased, in variable names. */
const apiNamePattern = /^[a-z][a-z0-9-]*$/;

/**
 * The OAuth clients of OAUTH_APIS (default `extapi`, which may also be left unconfigured). An API
 * named in OAUTH_APIS but not configured is a mistake worth stopping for.
 */
function oauthClients(env: Env, port: number): Record<string, OAuthClientSettings> {
  const listed = text(env, 'OAUTH_APIS') !== undefined;
  const names = list(env, 'OAUTH_APIS', ['extapi']).map((name) => name.toLowerCase());
  const clients: Record<string, OAuthClientSettings> = {};
  for (const name of new Set(names)) {
    if (!apiNamePattern.test(name))
      throw new ConfigError(
        'OAUTH_APIS',
        `API names are lower-case letters, digits and "-", got "${name}"`,
      );
    const client = oauthClient(env, name, port);
    if (client) clients[name] = client;
    else if (listed)
      throw new ConfigError(
        'OAUTH_APIS',
        `names ${name}, which has no ${oauthVariable(name, 'AUTHORIZE_URL')}, ${oauthVariable(name, 'TOKEN_URL')} and ${oauthVariable(name, 'CLIENT_ID')}`,
      );
  }
  return clients;
}

/** `tapis`, `TOKEN_URL` → `TAPIS_OAUTH_TOKEN_URL`. */
function oauthVariable(apiName: string, setting: string): string {
  return `${apiName.toUpperCase().replace(/-/g, '_')}_OAUTH_${setting}`;
}

/**
 * One API's OAuth client: configured when its authorize URL, token URL and client id are all set;
 * some but not all of them is a mistake worth stopping for. `extapi` also reads the variables it
 * had before there were several (EXTAPI_AUTHORIZE_URL and so on) when its own are unset.
 */
function oauthClient(env: Env, apiName: string, port: number): OAuthClientSettings | undefined {
  const required = ['AUTHORIZE_URL', 'TOKEN_URL', 'CLIENT_ID'];
  // extapi under its former names: when none of its own required variables is set.
  const former =
    apiName === 'extapi' &&
    required.every((setting) => text(env, oauthVariable(apiName, setting)) === undefined);
  const nameOf = (setting: string): string =>
    former ? `EXTAPI_${setting}` : oauthVariable(apiName, setting);
  const names = {
    authorize: nameOf('AUTHORIZE_URL'),
    token: nameOf('TOKEN_URL'),
    clientId: nameOf('CLIENT_ID'),
  };
  const authorizeUrl = url(env, names.authorize, ['http:', 'https:']);
  const tokenUrl = url(env, names.token, ['http:', 'https:']);
  const clientId = text(env, names.clientId);
  const values = {
    [names.authorize]: authorizeUrl,
    [names.token]: tokenUrl,
    [names.clientId]: clientId,
  };
  const missing = Object.entries(values)
    .filter(([, value]) => value === undefined)
    .map(([name]) => name);
  if (missing.length === 3) return undefined;
  if (missing.length > 0) {
    throw new ConfigError(
      missing[0]!,
      `must be set together with ${Object.keys(values)
        .filter((name) => name !== missing[0])
        .join(' and ')} to use the ${apiName} OAuth client`,
    );
  }
  const clientSecret = text(env, nameOf('CLIENT_SECRET'));
  return {
    authorizeUrl: authorizeUrl!.toString(),
    tokenUrl: tokenUrl!.toString(),
    clientId: clientId!,
    ...(clientSecret ? { clientSecret } : {}),
    redirectUri:
      url(env, nameOf('REDIRECT_URI'), ['http:', 'https:'])?.toString() ??
      `http://localhost:${port}/oauth/callback/${apiName}`,
  };
}

/** 32 bytes, written as 64 hexadecimal digits or in base64 (standard or URL-safe). */
function encryptionKey(env: Env, name: string): Buffer | undefined {
  const raw = keySetting(env, name)?.toString().trim();
  if (raw === undefined) return undefined;
  const key = /^[0-9a-f]{64}$/i.test(raw)
    ? Buffer.from(raw, 'hex')
    : /^[\w+/-]+={0,2}$/.test(raw)
      ? Buffer.from(raw, 'base64')
      : undefined;
  if (key?.length !== 32)
    throw new ConfigError(
      name,
      'must be 32 bytes written as 64 hexadecimal digits or in base64 (openssl rand -base64 32)',
    );
  return key;
}

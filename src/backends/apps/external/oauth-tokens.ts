// Users' access tokens to third-party APIs: stored sealed, refreshed when they have lapsed, and
// dropped when they can no longer be used, so that the user is asked to authorize again.
import type { FastifyBaseLogger } from 'fastify';
import type { GatewayConfig, OAuthClientSettings } from '../../../config/index.ts';
import type { Store } from '../../../store/database.ts';
import { requestToken, TokenEndpointRefusal, type TokenGrant } from './oauth-provider.ts';
import type { TokenCipher } from './token-cipher.ts';
import { GatewayError, gatewayError } from '../../../common/errors.ts';

/** A token is refreshed a minute before it lapses, so that work started with it does not fail halfway. */
export const refreshMarginMs = 60_000;

/** A stored token, opened. */
export interface AccessToken {
  webapp: string;
  accessToken: string;
  /** Milliseconds since the epoch; null when the provider gave no lifetime. */
  expiresAt: number | null;
  refreshToken: string | null;
}

/** The third-party APIs this deployment has OAuth clients for (OAUTH_APIS, those configured). */
export function configuredOAuthClients(
  config: Pick<GatewayConfig, 'oauth'>,
): Record<string, OAuthClientSettings> {
  return config.oauth.apis;
}

/** The client of `apiName`, or 404 when there is none. */
export function requireOAuthClient(
  clients: Record<string, OAuthClientSettings>,
  apiName: string,
): OAuthClientSettings {
  const client = Object.hasOwn(clients, apiName) ? clients[apiName] : undefined;
  if (!client) {
    const known = Object.keys(clients);
    throw gatewayError(
      'ERR_NOT_FOUND',
      `unknown API name: ${apiName} (configured: ${known.length > 0 ? known.join(', ') : 'none; see OAUTH_APIS'})`,
      { api_name: apiName },
    );
  }
  return client;
}

/** Sealed values name their row, so one copied elsewhere does not open. */
const sealContext = (webapp: string, username: string, column: 'token' | 'refresh_token') =>
  `${webapp}\0${username}\0${column}`;

export interface OAuthTokensOptions {
  store: Store;
  cipher: TokenCipher;
  clients: Record<string, OAuthClientSettings>;
  now: () => number;
  log: FastifyBaseLogger;
}

/**
 * The token store of the apps service. `usableToken` is what work done for a user against a
 * third-party API calls: it answers a token that is good for at least `refreshMarginMs`, or
 * undefined when the user has to authorize (again).
 */
export class OAuthTokens {
  /** Refreshes under way, so that concurrent readers of one lapsed token share one refresh. */
  private readonly refreshing = new Map<string, Promise<AccessToken | undefined>>();

  private readonly options: OAuthTokensOptions;

  constructor(options: OAuthTokensOptions) {
    this.options = options;
  }

  /** Stores what the token endpoint granted, replacing any earlier token of the user for that API. */
  async save(username: string, webapp: string, grant: TokenGrant): Promise<AccessToken> {
    const { cipher } = this.options;
    const expiresAt =
      grant.expiresIn === undefined ? null : this.options.now() + grant.expiresIn * 1000;
    const row = {
      token: cipher.seal(grant.accessToken, sealContext(webapp, username, 'token')),
      expires_at: expiresAt,
      refresh_token:
        grant.refreshToken === undefined
          ? null
          : cipher.seal(grant.refreshToken, sealContext(webapp, username, 'refresh_token')),
    };
    await this.options.store.db
      .insertInto('oauth_access_tokens')
      .values({ webapp, username, ...row })
      .onConflict((conflict) => conflict.columns(['webapp', 'username']).doUpdateSet(row))
      .execute();
    return {
      webapp,
      accessToken: grant.accessToken,
      expiresAt,
      refreshToken: grant.refreshToken ?? null,
    };
  }

  /** Removes the user's token; answers whether there was one. */
  async remove(username: string, webapp: string): Promise<boolean> {
    const result = await this.options.store.db
      .deleteFrom('oauth_access_tokens')
      .where('webapp', '=', webapp)
      .where('username', '=', username)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /**
   * The user's token for `webapp`, refreshed first when it has lapsed (or is about to); undefined
   * when there is none or it can no longer be used (then it is gone). A token endpoint that is
   * down or answers 5xx leaves the token in place and throws 502 `ERR_OAUTH_SERVER`.
   */
  async current(username: string, webapp: string): Promise<AccessToken | undefined> {
    const row = await this.options.store.db
      .selectFrom('oauth_access_tokens')
      .selectAll()
      .where('webapp', '=', webapp)
      .where('username', '=', username)
      .executeTakeFirst();
    if (!row) return undefined;
    const { cipher } = this.options;
    const accessToken = cipher.open(row.token, sealContext(webapp, username, 'token'));
    const refreshToken =
      row.refresh_token === null
        ? null
        : (cipher.open(row.refresh_token, sealContext(webapp, username, 'refresh_token')) ?? null);
    if (accessToken === undefined) {
      // Sealed with another key (TOKEN_ENCRYPTION_KEY changed): only a new authorization helps.
      this.options.log.warn(
        { webapp, username },
        'a stored OAuth token does not open with the current key; dropping it',
      );
      await this.dropIfUnchanged(username, webapp, row.token);
      return undefined;
    }
    if (row.expires_at === null || row.expires_at - refreshMarginMs > this.options.now()) {
      return { webapp, accessToken, expiresAt: row.expires_at, refreshToken };
    }
    const key = `${webapp}\0${username}`;
    let refresh = this.refreshing.get(key);
    if (!refresh) {
      refresh = this.refresh(username, webapp, row.token, refreshToken).finally(() =>
        this.refreshing.delete(key),
      );
      this.refreshing.set(key, refresh);
    }
    return refresh;
  }

  /** The access token to call `webapp` with for the user, or undefined when they must authorize first. */
  async usableToken(username: string, webapp: string): Promise<string | undefined> {
    return (await this.current(username, webapp))?.accessToken;
  }

  /**
   * Whether the user holds a token that is (or can be made) usable. A token endpoint outage does
   * not count against the token: asking the user to authorize again would not help.
   */
  async hasToken(username: string, webapp: string): Promise<boolean> {
    try {
      return (await this.current(username, webapp)) !== undefined;
    } catch (error) {
      if (!(error instanceof GatewayError && error.errorCode === 'ERR_OAUTH_SERVER')) throw error;
      this.options.log.warn(
        { webapp, username, err: error },
        'could not refresh an OAuth token; keeping it',
      );
      return true;
    }
  }

  private async refresh(
    username: string,
    webapp: string,
    sealedToken: string,
    refreshToken: string | null,
  ): Promise<AccessToken | undefined> {
    const client = this.options.clients[webapp];
    if (refreshToken === null || !client) {
      await this.dropIfUnchanged(username, webapp, sealedToken);
      return undefined;
    }
    try {
      const grant = await requestToken(webapp, client, {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
      });
      // A provider that does not rotate refresh tokens leaves the old one valid.
      return await this.save(username, webapp, {
        ...grant,
        refreshToken: grant.refreshToken ?? refreshToken,
      });
    } catch (error) {
      if (!(error instanceof TokenEndpointRefusal && error.refusesGrant)) throw error;
      this.options.log.info(
        { webapp, username, provider_status: error.providerStatus },
        'the OAuth server refused to refresh a token; dropping it',
      );
      await this.dropIfUnchanged(username, webapp, sealedToken);
      return undefined;
    }
  }

  /** Drops the token only if it is still the one read: another process may have replaced it meanwhile. */
  private async dropIfUnchanged(
    username: string,
    webapp: string,
    sealedToken: string,
  ): Promise<void> {
    await this.options.store.db
      .deleteFrom('oauth_access_tokens')
      .where('webapp', '=', webapp)
      .where('username', '=', username)
      .where('token', '=', sealedToken)
      .execute();
  }
}

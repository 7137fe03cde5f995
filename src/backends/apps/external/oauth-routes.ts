// OAuth access codes (backends.md §5.4, spec "OAuth authorization code callback"): authorization
// requests made for users without a token, the code exchange when they come back, token info.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { OAuthClientSettings } from '../../../config/index.ts';
import type { Store } from '../../../store/database.ts';
import { requireUserParam } from '../../../common/query-params.ts';
import { requestToken } from './oauth-provider.ts';
import { requireOAuthClient, type AccessToken, type OAuthTokens } from './oauth-tokens.ts';
import { gatewayError } from '../../../common/errors.ts';

/** Authorization requests older than this are dropped when the user gets a new one: nobody comes back after a day. */
const requestLifetimeMs = 24 * 60 * 60_000;

export interface OAuthDeps {
  store: Store;
  tokens: OAuthTokens;
  clients: Record<string, OAuthClientSettings>;
  now: () => number;
}

/** The provider's authorization URL for a stored request (spec step 3). */
function authorizationUrl(client: OAuthClientSettings, state: string): string {
  const target = new URL(client.authorizeUrl);
  target.searchParams.set('response_type', 'code');
  target.searchParams.set('client_id', client.clientId);
  target.searchParams.set('redirect_uri', client.redirectUri);
  target.searchParams.set('state', state);
  return target.toString();
}

/**
 * `{<api-name>: <authorization URL>}` for every API the user holds no usable token for, each
 * with a new stored authorization request (spec step 2); `{}` when nothing needs authorizing.
 * `/users/login` and `/oauth/redirect-uris` both answer this.
 */
export async function authRedirects(
  deps: OAuthDeps,
  username: string,
): Promise<Record<string, string>> {
  const redirects: Record<string, string> = {};
  for (const [apiName, client] of Object.entries(deps.clients)) {
    if (await deps.tokens.hasToken(username, apiName)) continue;
    const now = deps.now();
    const id = randomUUID();
    await deps.store.db
      .deleteFrom('oauth_authorization_requests')
      .where('username', '=', username)
      .where('created_on', '<', now - requestLifetimeMs)
      .execute();
    // What the client gets back from the access-code call, to resume where it asked.
    await deps.store.db
      .insertInto('oauth_authorization_requests')
      .values({ id, username, state_info: JSON.stringify({ api_name: apiName }), created_on: now })
      .execute();
    redirects[apiName] = authorizationUrl(client, id);
  }
  return redirects;
}

const apiParams = Type.Object({ apiName: Type.String({ maxLength: 64 }) });
const userQuery = Type.Object({ user: Type.String({ minLength: 1 }) });
const adminQuery = Type.Object({
  user: Type.String({ minLength: 1 }),
  'proxy-user': Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
});
const accessCodeQuery = Type.Object({
  user: Type.String({ minLength: 1 }),
  code: Type.String({ minLength: 1, maxLength: 4096 }),
  state: Type.String({ minLength: 1, maxLength: 64 }),
});

type ApiRequest = { Params: { apiName: string } };

const tokenNotFound = (apiName: string) =>
  gatewayError('ERR_NOT_FOUND', 'access token not found', { api_name: apiName });

/** The user a route is about: the caller, or for administrators `proxy-user` when given. */
function subjectOf(query: unknown): string {
  return (query as { 'proxy-user'?: string })['proxy-user'] ?? requireUserParam(query);
}

export function registerOAuthRoutes(app: FastifyInstance, deps: OAuthDeps): void {
  const { store, tokens, clients } = deps;

  /** The user's current token for a known API, or 404. */
  const currentToken = async (username: string, apiName: string): Promise<AccessToken> => {
    requireOAuthClient(clients, apiName);
    const token = await tokens.current(username, apiName);
    if (!token) throw tokenNotFound(apiName);
    return token;
  };

  const removeToken = async (username: string, apiName: string) => {
    requireOAuthClient(clients, apiName);
    if (!(await tokens.remove(username, apiName))) throw tokenNotFound(apiName);
    return {};
  };

  app.get('/oauth/redirect-uris', { schema: { querystring: userQuery } }, async (request) =>
    authRedirects(deps, requireUserParam(request.query)),
  );

  // Spec steps 7-9: the state must be the caller's and the API's; it is used up, with every other
  // pending request of theirs for that API (those for other APIs wait for their own grants).
  app.get<ApiRequest>(
    '/oauth/access-code/:apiName',
    { schema: { params: apiParams, querystring: accessCodeQuery } },
    async (request) => {
      const { apiName } = request.params;
      const { user, code, state } = request.query as { user: string; code: string; state: string };
      const client = requireOAuthClient(clients, apiName);
      const pending = await store.db
        .selectFrom('oauth_authorization_requests')
        .selectAll()
        .where('id', '=', state)
        .executeTakeFirst();
      if (!pending)
        throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `authorization request ${state} not found`, {
          field: 'state',
        });
      if (pending.username !== user)
        throw gatewayError(
          'ERR_BAD_OR_MISSING_FIELD',
          `wrong user for authorization request ${state}`,
          { field: 'state' },
        );
      // Each API's authorizations are its own: a state issued for one is no good for another.
      const stateInfo = JSON.stringify({ api_name: apiName });
      if (pending.state_info !== stateInfo)
        throw gatewayError(
          'ERR_BAD_OR_MISSING_FIELD',
          `authorization request ${state} is not for ${apiName}`,
          { field: 'state' },
        );
      // Deleting this one request first is what makes a state usable once, even by two calls at the same time.
      const consumed = await store.db
        .deleteFrom('oauth_authorization_requests')
        .where('id', '=', state)
        .where('username', '=', user)
        .executeTakeFirst();
      if (Number(consumed.numDeletedRows) === 0)
        throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `authorization request ${state} not found`, {
          field: 'state',
        });
      await store.db
        .deleteFrom('oauth_authorization_requests')
        .where('username', '=', user)
        .where('state_info', '=', stateInfo)
        .execute();
      const grant = await requestToken(apiName, client, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: client.redirectUri,
      });
      await tokens.save(user, apiName, grant);
      return { state_info: pending.state_info };
    },
  );

  app.get<ApiRequest>(
    '/oauth/token-info/:apiName',
    { schema: { params: apiParams, querystring: userQuery } },
    async (request) => {
      const token = await currentToken(requireUserParam(request.query), request.params.apiName);
      return { expires_at: token.expiresAt, webapp: token.webapp };
    },
  );

  app.delete<ApiRequest>(
    '/oauth/token-info/:apiName',
    { schema: { params: apiParams, querystring: userQuery } },
    async (request) => removeToken(requireUserParam(request.query), request.params.apiName),
  );

  app.get<ApiRequest>(
    '/admin/oauth/token-info/:apiName',
    { schema: { params: apiParams, querystring: adminQuery } },
    async (request) => {
      const token = await currentToken(subjectOf(request.query), request.params.apiName);
      return {
        access_token: token.accessToken,
        expires_at: token.expiresAt,
        refresh_token: token.refreshToken,
        webapp: token.webapp,
      };
    },
  );

  app.delete<ApiRequest>(
    '/admin/oauth/token-info/:apiName',
    { schema: { params: apiParams, querystring: adminQuery } },
    async (request) => removeToken(subjectOf(request.query), request.params.apiName),
  );
}

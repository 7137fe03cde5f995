// Tag token: the docs page's browser sign-in (routes.md §2): `/oidc/login` sends the browser to
// the identity provider (AUTH_AUTHORIZE_URL, or the embedded provider's authorize endpoint) with a
// state and a PKCE challenge kept 300 s in an HttpOnly cookie; `/oidc/callback` exchanges the code
// and keeps the tokens in HttpOnly SameSite=Lax cookies, which the gateway's auth reads
// (src/http/auth.ts) so `/docs` and its try-it-out calls work; `/oidc/refresh` and `/oidc/logout`.
//
// CSRF: the cookies are SameSite=Lax, so a browser sends them cross-site only on top-level GET
// navigations (which change nothing); the auth also ignores the cookie on a request whose Origin
// names another host.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { gatewayError } from '../../common/errors.ts';
import type { IdentityProviderLink } from '../../common/identity-provider.ts';
import type { GatewayConfig } from '../../config/index.ts';
import { accessTokenCookie, readCookie } from '../../http/auth.ts';
import { routeSecurity, takesNoBody } from '../../http/openapi.ts';
import { originOf } from './password-grant.ts';
import { tokensOf } from './shapes.ts';

export const stateCookie = 'gateway_oidc_state';
export const refreshTokenCookie = 'gateway_refresh_token';
const stateSeconds = 300;
const docsPage = '/docs';

interface Cookie {
  name: string;
  value: string;
  path: string;
  maxAge: number;
}

function cookieHeader(request: FastifyRequest, cookie: Cookie): string {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${cookie.name}=${cookie.value}; Path=${cookie.path}; Max-Age=${cookie.maxAge}; HttpOnly; SameSite=Lax${secure}`;
}

const expired = (name: string, path: string): Cookie => ({ name, value: '', path, maxAge: 0 });

function tokenCookies(tokens: Record<string, unknown>): Cookie[] {
  const cookies: Cookie[] = [
    {
      name: accessTokenCookie,
      value: tokens.access_token as string,
      path: '/',
      maxAge: typeof tokens.expires_in === 'number' ? tokens.expires_in : 300,
    },
  ];
  if (typeof tokens.refresh_token === 'string')
    cookies.push({
      name: refreshTokenCookie,
      value: tokens.refresh_token,
      path: '/oidc/',
      maxAge:
        typeof tokens.refresh_expires_in === 'number' && tokens.refresh_expires_in > 0
          ? tokens.refresh_expires_in
          : 30 * 86_400,
    });
  return cookies;
}

function sameText(a: string, b: string): boolean {
  const hash = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(hash(a), hash(b));
}

export function oidcRoutes(
  app: FastifyInstance,
  config: GatewayConfig,
  link: IdentityProviderLink | undefined,
): void {
  const provider = () => {
    if (!link)
      throw gatewayError(
        'ERR_NOT_IMPLEMENTED',
        'No identity provider: set AUTH_AUTHORIZE_URL and AUTH_TOKEN_URL.',
      );
    return link;
  };
  const setCookies = (request: FastifyRequest, reply: FastifyReply, cookies: Cookie[]) =>
    reply.header(
      'set-cookie',
      cookies.map((cookie) => cookieHeader(request, cookie)),
    );
  const callbackUrl = (request: FastifyRequest) => `${originOf(request)}/oidc/callback`;

  app.get('/oidc/login', {
    config: { auth: 'none' },
    schema: {
      tags: ['token'],
      summary: "Sign the docs page's browser in: to the identity provider's sign-in",
      description: `Redirects to the authorize endpoint (AUTH_AUTHORIZE_URL, or the embedded identity provider's) with \`state\` and a PKCE S256 challenge, both kept ${stateSeconds} s in an HttpOnly cookie.`,
      security: routeSecurity('none'),
      response: { 302: { description: 'To the identity provider', type: 'null' } },
    },
    handler: async (request, reply) => {
      const target = new URL(provider().authorizeUrl(originOf(request)));
      const state = randomBytes(24).toString('base64url');
      const verifier = randomBytes(32).toString('base64url');
      for (const [key, value] of Object.entries({
        response_type: 'code',
        client_id: config.auth.clientId,
        redirect_uri: callbackUrl(request),
        scope: 'openid profile email',
        state,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      }))
        target.searchParams.set(key, value);
      setCookies(request, reply, [
        { name: stateCookie, value: `${state}.${verifier}`, path: '/oidc/', maxAge: stateSeconds },
      ]);
      return reply.header('cache-control', 'no-store').redirect(target.toString(), 302);
    },
  });

  app.get('/oidc/callback', {
    config: { auth: 'none' },
    schema: {
      tags: ['token'],
      summary: 'Where the identity provider sends the browser back: sets the token cookies',
      description:
        'Checks `state` against the cookie of `/oidc/login`, exchanges `code` (authorization_code grant with the PKCE verifier) and sets HttpOnly SameSite=Lax cookies: the access token (path `/`) and the refresh token (path `/oidc/`).',
      security: routeSecurity('none'),
      querystring: Type.Object(
        {
          code: Type.Optional(Type.String()),
          state: Type.Optional(Type.String()),
          error: Type.Optional(Type.String()),
          error_description: Type.Optional(Type.String()),
        },
        { additionalProperties: true },
      ),
      response: { 302: { description: 'To the docs page, signed in', type: 'null' } },
    },
    handler: async (request, reply) => {
      const query = request.query as Record<string, string | undefined>;
      const [state, verifier] = (readCookie(request.headers, stateCookie) ?? '').split('.');
      if (!state || !verifier || !query.state || !sameText(state, query.state))
        throw gatewayError(
          'ERR_BAD_QUERY_PARAMETER',
          'The sign-in state is missing, expired or does not match: start again at /oidc/login.',
          { field: 'state' },
        );
      if (query.error)
        throw gatewayError(
          'ERR_NOT_AUTHORIZED',
          `The identity provider did not sign you in: ${query.error_description ?? query.error}`,
          { error: query.error },
        );
      if (!query.code)
        throw gatewayError('ERR_MISSING_QUERY_PARAMETER', 'Missing query parameter "code".', {
          field: 'code',
        });
      const tokens = tokensOf(
        await provider().token(
          {
            grant_type: 'authorization_code',
            client_id: config.auth.clientId,
            code: query.code,
            redirect_uri: callbackUrl(request),
            code_verifier: verifier,
          },
          originOf(request),
        ),
      );
      setCookies(request, reply, [expired(stateCookie, '/oidc/'), ...tokenCookies(tokens)]);
      return reply.header('cache-control', 'no-store').redirect(docsPage, 302);
    },
  });

  app.post('/oidc/refresh', {
    config: { auth: 'none' },
    schema: {
      tags: ['token'],
      summary: 'Renew the access-token cookie with the refresh-token cookie',
      description:
        'No refresh cookie, or one the identity provider refuses: 401 ERR_NOT_AUTHORIZED (and the cookies are expired).',
      security: routeSecurity('none'),
      ...takesNoBody,
      response: {
        200: Type.Object({
          expires_in: Type.Integer({ description: 'Seconds the new access token lasts' }),
        }),
      },
    },
    handler: async (request, reply) => {
      const refreshToken = readCookie(request.headers, refreshTokenCookie);
      if (!refreshToken)
        throw gatewayError('ERR_NOT_AUTHORIZED', 'Not signed in: no refresh cookie.');
      const answer = await provider().token(
        {
          grant_type: 'refresh_token',
          client_id: config.auth.clientId,
          refresh_token: refreshToken,
        },
        originOf(request),
      );
      if (answer.status >= 400 && answer.status < 500) {
        setCookies(request, reply, [
          expired(accessTokenCookie, '/'),
          expired(refreshTokenCookie, '/oidc/'),
        ]);
        throw gatewayError(
          'ERR_NOT_AUTHORIZED',
          'The sign-in has ended: sign in again at /oidc/login.',
        );
      }
      const tokens = tokensOf(answer);
      setCookies(request, reply, tokenCookies(tokens));
      return { expires_in: tokens.expires_in as number };
    },
  });

  app.get('/oidc/logout', {
    config: { auth: 'none' },
    schema: {
      tags: ['token'],
      summary: "Sign the docs page's browser out: expires the cookies",
      description:
        "Expires the token cookies and ends the sign-in at the identity provider (the refresh token is revoked); then to the provider's end-session endpoint (AUTH_LOGOUT_URL, or the embedded provider's) when there is one, which comes back to the docs page, else to the docs page.",
      security: routeSecurity('none'),
      response: {
        302: { description: 'To the end-session endpoint or the docs page', type: 'null' },
      },
    },
    handler: async (request, reply) => {
      const refreshToken = readCookie(request.headers, refreshTokenCookie);
      const origin = originOf(request);
      if (refreshToken && link) await link.revoke(refreshToken, origin);
      setCookies(request, reply, [
        expired(accessTokenCookie, '/'),
        expired(refreshTokenCookie, '/oidc/'),
      ]);
      const endSession = link?.endSessionUrl(origin);
      let target = docsPage;
      if (endSession) {
        const url = new URL(endSession);
        url.searchParams.set('client_id', config.auth.clientId);
        url.searchParams.set('post_logout_redirect_uri', `${origin}${docsPage}`);
        target = url.toString();
      }
      return reply.header('cache-control', 'no-store').redirect(target, 302);
    },
  });
}

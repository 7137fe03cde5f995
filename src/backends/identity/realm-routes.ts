// The OpenID Connect endpoints of the embedded identity provider, laid out as Keycloak lays out a
// realm's (`/realms/<realm>/...`), so that a client configured for Keycloak (the web UI's
// keycloak-js, the command-line client) works against the platform alone: discovery, authorize
// with the sign-in page and an SSO cookie, token, certs (JWKS), userinfo and end-session.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { toGatewayError } from '../../common/error-replies.ts';
import { gatewayError } from '../../common/errors.ts';
import { hashSource, pageHeaders } from '../../common/page-headers.ts';
import {
  formTokenField,
  lockedMessage,
  messagePage,
  pageSecurity,
  signInPage,
} from './sign-in-page.ts';
import type { IdentityProvider, Session } from './provider.ts';

const tag = 'identity-provider';
/** The SSO cookie: the secret of a sign-in session, scoped to the realm's paths. */
export const ssoCookie = 'IDP_SESSION';
/**
 * The form token's cookie (against cross-site request forgery of the sign-in form, which would
 * sign a browser in as someone else): the page's hidden field must equal it. SameSite=Lax keeps
 * it from a cross-site POST, and another site can read neither the cookie nor the page.
 */
export const formCookie = 'IDP_FORM';
const formTokenPattern = /^[\w-]{43}$/;

const formFields = Type.Record(Type.String(), Type.String());
const authorizeQuery = Type.Object(
  {
    client_id: Type.Optional(
      Type.String({ description: 'A client of IDP_CLIENTS, or AUTH_CLIENT_ID' }),
    ),
    redirect_uri: Type.Optional(Type.String({ description: "One of the client's redirect URIs" })),
    response_type: Type.Optional(Type.String({ description: '`code` (the only one served)' })),
    response_mode: Type.Optional(Type.String({ description: '`query` (default) or `fragment`' })),
    scope: Type.Optional(Type.String()),
    state: Type.Optional(Type.String()),
    nonce: Type.Optional(Type.String()),
    prompt: Type.Optional(
      Type.String({ description: '`none`: never show the sign-in page; `login`: always' }),
    ),
    code_challenge: Type.Optional(Type.String()),
    code_challenge_method: Type.Optional(Type.String({ description: '`S256` (plain is refused)' })),
    login_hint: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);
const tokenAnswer = Type.Object(
  {
    access_token: Type.String(),
    expires_in: Type.Integer(),
    refresh_expires_in: Type.Optional(Type.Integer()),
    refresh_token: Type.Optional(Type.String()),
    token_type: Type.Optional(Type.String()),
    id_token: Type.Optional(Type.String()),
    'not-before-policy': Type.Optional(Type.Integer()),
    session_state: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String()),
  },
  { description: 'Tokens (RS256), shaped as Keycloak answers them' },
);
const oauthError = Type.Object(
  { error: Type.String(), error_description: Type.Optional(Type.String()) },
  { description: 'RFC 6749 §5.2 error' },
);
/** keycloak-js's third-party cookie check: a page its client frames, posting one word to it. */
const thirdPartyCookieScript = 'window.parent.postMessage("unsupported","*")';
const page = { 'text/html': { schema: { type: 'string' } } };
const html = (description: string) => ({ description, content: page });
/** An error of the authorize endpoint: its page to a browser asking for HTML, an OAuth error otherwise. */
const pageOrError = (description: string) => ({
  description: `${description}: a page to a browser asking for HTML, else an RFC 6749 §5.2 error`,
  content: { ...page, 'application/json': { schema: oauthError } },
});
const redirect = (description: string) => ({ description, type: 'null' as const });

type AuthorizeParams = Record<string, string | undefined>;

/**
 * A browser navigating to the endpoint (or posting its form) names text/html in Accept; any
 * other client (fetch's and curl's `*\/*`, an OAuth library) is answered errors in JSON.
 */
const wantsHtml = (request: FastifyRequest) => /\btext\/html\b/i.test(request.headers.accept ?? '');

/**
 * Whatever a realm route or Fastify threw, as OAuth and OpenID Connect clients expect it
 * (RFC 6749 §5.2, §4.1.2.1): `invalid_request` for what the request got wrong (a schema, a body
 * that is not a form, a repeated parameter), `server_error` or `temporarily_unavailable` for ours.
 */
function oauthErrorOf(error: FastifyError | Error): {
  status: number;
  headers: Record<string, string>;
  body: { error: string; error_description: string };
} {
  const answer = toGatewayError(error);
  if (answer.statusCode >= 500) {
    const unavailable = answer.errorCode === 'ERR_UNAVAILABLE';
    return {
      status: answer.statusCode,
      headers: answer.headers,
      body: {
        error: unavailable ? 'temporarily_unavailable' : 'server_error',
        error_description: answer.reason,
      },
    };
  }
  // §5.2 answers a bad request 400; a refused media type or conflicting values are such requests.
  // The statuses that say something else (413, 429 with Retry-After, 408) are kept; too many
  // requests is the client's to retry later (§4.1.2.1's temporarily_unavailable), not a bad one.
  const status = answer.statusCode === 415 || answer.statusCode === 409 ? 400 : answer.statusCode;
  return {
    status,
    headers: answer.headers,
    body: {
      error: status === 429 ? 'temporarily_unavailable' : 'invalid_request',
      error_description: answer.reason,
    },
  };
}

/** The realm's forms are application/x-www-form-urlencoded (RFC 6749 §4.1.3, §3.2); anything else is refused. */
async function formOnly(request: FastifyRequest): Promise<void> {
  const type = request.headers['content-type'];
  if (type !== undefined && !/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type))
    throw gatewayError(
      'ERR_UNSUPPORTED_MEDIA_TYPE',
      'The body must be application/x-www-form-urlencoded',
    );
}

/** A form, each parameter once (RFC 6749 §3.1, §3.2: parameters must not be repeated). */
function parseForm(body: string): Record<string, string> | Error {
  const form: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    if (Object.hasOwn(form, key))
      return Object.assign(new Error(`Parameter ${key} is given more than once`), {
        statusCode: 400,
      });
    form[key] = value;
  }
  return form;
}

function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

function decodeBasic(header: string | undefined): { id: string; secret: string } | undefined {
  const match = /^basic\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  // RFC 6749 §2.3.1: client id and secret are form-encoded before Basic encoding.
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text.replace(/\+/g, ' '));
    } catch {
      return text;
    }
  };
  return { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
}

/** Sends the browser back to the client with `params`, in the query or the fragment. */
function backToClient(
  reply: FastifyReply,
  redirectUri: string,
  mode: string | undefined,
  params: Record<string, string | undefined>,
) {
  const target = new URL(redirectUri);
  const entries = Object.entries(params).filter(
    (entry): entry is [string, string] => entry[1] !== undefined,
  );
  if (mode === 'fragment') {
    target.hash = new URLSearchParams(entries).toString();
  } else {
    for (const [key, value] of entries) target.searchParams.set(key, value);
  }
  // No frame-ancestors or X-Frame-Options: a client's silent check (`prompt=none`) comes here in
  // a hidden iframe of its own page, and what that frame shows next is the client's page at the
  // redirect URI, not this answer. No Referer to the client either: this URL carries the request.
  return reply
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .redirect(target.toString(), 302);
}

/** Whether the posted form token is the browser's (its cookie), compared in constant time. */
function formTokenMatches(cookie: string | undefined, posted: string | undefined): boolean {
  if (!cookie || !posted || !formTokenPattern.test(cookie)) return false;
  const a = Buffer.from(cookie);
  const b = Buffer.from(posted);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function realmRoutes(app: FastifyInstance, provider: IdentityProvider): Promise<void> {
  const { realm } = provider.settings;
  const base = `/realms/${realm}`;
  const oidc = `${base}/protocol/openid-connect`;
  const issuerOf = (request: FastifyRequest) =>
    `${provider.settings.publicUrl ?? `${request.protocol}://${request.host}`}${base}`;
  const secure = (request: FastifyRequest) => issuerOf(request).startsWith('https:');
  /** Lax over HTTP; over HTTPS None (with Secure), so a client's silent check in an iframe of another site still sees it. */
  const cookieAttributes = (request: FastifyRequest) =>
    `Path=${base}/; HttpOnly; ${secure(request) ? 'Secure; SameSite=None' : 'SameSite=Lax'}`;
  /** Never sent with a cross-site POST, framed or not (see formCookie). */
  const formCookieAttributes = (request: FastifyRequest) =>
    `Path=${base}/; HttpOnly; SameSite=Lax${secure(request) ? '; Secure' : ''}`;

  // CORS for the clients' web origins (those of their redirect URIs), as Keycloak does: a
  // browser client such as keycloak-js calls the token, userinfo and logout endpoints itself.
  const webOrigins = new Set(
    provider.settings.clients.flatMap((client) =>
      client.redirectUris.flatMap((entry) => {
        try {
          // A native app's redirect URI (`org.example.app:/callback`) has the opaque origin
          // `null`, which is also what a sandboxed frame or a file sends: never a web origin.
          const { origin } = new URL(entry.replace(/\*$/, ''));
          return origin === 'null' ? [] : [origin];
        } catch {
          return [];
        }
      }),
    ),
  );
  const allowedOrigin = (request: FastifyRequest) => {
    const origin = request.headers.origin;
    return typeof origin === 'string' && webOrigins.has(origin) ? origin : undefined;
  };
  app.addHook('onRequest', async (request, reply) => {
    const origin = allowedOrigin(request);
    if (origin)
      reply.headers({
        'access-control-allow-origin': origin,
        'access-control-allow-credentials': 'true',
        vary: 'Origin',
      });
  });
  app.options(`${base}/*`, {
    config: { auth: 'none', rateLimit: false },
    schema: {
      tags: [tag],
      summary: "CORS preflight for the clients' web origins",
      hide: true,
      security: [],
      response: { 204: redirect('Allowed (with Access-Control-Allow-* headers) or not (without)') },
    },
    handler: async (request, reply) => {
      if (allowedOrigin(request))
        reply.headers({
          'access-control-allow-methods': 'GET, POST, OPTIONS',
          'access-control-allow-headers': 'Authorization, Content-Type',
          'access-control-max-age': '3600',
        });
      return reply.code(204).send();
    },
  });

  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      const form = parseForm(body as string);
      if (form instanceof Error) done(form, undefined);
      else done(null, form);
    },
  );

  const authorizePath = `${oidc}/auth`;
  /** The message page to a browser, the OAuth error to any other client. */
  const sendAuthorizeError = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    body: { error: string; error_description: string },
  ) =>
    wantsHtml(request)
      ? reply
          .code(status)
          .headers(pageSecurity)
          .type('text/html; charset=utf-8')
          .send(messagePage('Sign-in error', body.error_description))
      : reply
          .code(status)
          .header('cache-control', 'no-store')
          .type('application/json; charset=utf-8')
          .send(body);
  /** Parameters of the authorization request that the form carries, not those it asks for. */
  const formOwn = new Set(['username', 'password', 'prompt', formTokenField]);
  /**
   * The sign-in page for the authorization request `params`, with the browser's form token (a new
   * one, and its cookie, when the browser has none), saying what went wrong if anything did.
   */
  const showSignIn = (
    request: FastifyRequest,
    reply: FastifyReply,
    params: AuthorizeParams,
    options: { status?: number; error?: string; username?: string | undefined } = {},
  ) => {
    let formToken = readCookie(request, formCookie);
    if (!formToken || !formTokenPattern.test(formToken)) {
      formToken = randomBytes(32).toString('base64url');
      reply.header('set-cookie', `${formCookie}=${formToken}; ${formCookieAttributes(request)}`);
    }
    const fields = Object.fromEntries(
      Object.entries(params).filter(
        (entry): entry is [string, string] => entry[1] !== undefined && !formOwn.has(entry[0]),
      ),
    );
    return reply
      .code(options.status ?? 200)
      .headers(pageSecurity)
      .type('text/html; charset=utf-8')
      .send(
        signInPage({
          realm,
          action: `${issuerOf(request)}/protocol/openid-connect/auth`,
          fields,
          formToken,
          ...(options.username === undefined ? {} : { username: options.username }),
          ...(options.error === undefined ? {} : { error: options.error }),
        }),
      );
  };
  // Errors before a handler runs (schemas, content types, forms) never reach a redirect URI
  // (RFC 6749 §4.1.2.1: it cannot be trusted yet): they are answered here, in OAuth's words.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { status, headers, body } = oauthErrorOf(error);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    reply.headers(headers);
    if (request.routeOptions.url === authorizePath)
      return sendAuthorizeError(request, reply, status, body);
    return reply
      .code(status)
      .header('cache-control', 'no-store')
      .type('application/json; charset=utf-8')
      .send(body);
  });

  app.get(`${base}/.well-known/openid-configuration`, {
    config: { auth: 'none', rateLimit: false },
    schema: {
      tags: [tag],
      summary: 'OpenID Connect discovery of the embedded identity provider',
      security: [],
      response: {
        200: Type.Record(Type.String(), Type.Unknown(), {
          description: 'OpenID Provider Metadata',
        }),
      },
    },
    handler: async (request) => {
      const issuer = issuerOf(request);
      const endpoint = (name: string) => `${issuer}/protocol/openid-connect/${name}`;
      return {
        issuer,
        authorization_endpoint: endpoint('auth'),
        token_endpoint: endpoint('token'),
        userinfo_endpoint: endpoint('userinfo'),
        end_session_endpoint: endpoint('logout'),
        jwks_uri: endpoint('certs'),
        response_types_supported: ['code'],
        response_modes_supported: ['query', 'fragment'],
        grant_types_supported: [
          'authorization_code',
          'refresh_token',
          'password',
          'urn:ietf:params:oauth:grant-type:token-exchange',
        ],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        scopes_supported: ['openid', 'profile', 'email'],
        token_endpoint_auth_methods_supported: [
          'client_secret_basic',
          'client_secret_post',
          'none',
        ],
        claims_supported: [
          'sub',
          'iss',
          'preferred_username',
          'email',
          'email_verified',
          'given_name',
          'family_name',
          'name',
          'realm_access',
          'entitlement',
        ],
      };
    },
  });

  app.get(`${oidc}/certs`, {
    config: { auth: 'none', rateLimit: false },
    schema: {
      tags: [tag],
      summary: "The provider's signing keys (JWKS, RS256)",
      security: [],
      response: {
        200: Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) }),
      },
    },
    handler: async () => ({ keys: [(await provider.key()).jwk] }),
  });

  /** The authorization request's parameters, checked; an unusable client or redirect URI is shown, not redirected to. */
  async function authorize(
    request: FastifyRequest,
    reply: FastifyReply,
    params: AuthorizeParams,
    signedIn?: Session,
  ) {
    const client = provider.client(params.client_id);
    const issuer = issuerOf(request);
    if (
      !client ||
      !params.redirect_uri ||
      !provider.redirectAllowed(client, params.redirect_uri, issuer)
    )
      return sendAuthorizeError(request, reply, 400, {
        error: client ? 'invalid_request' : 'invalid_client',
        error_description: client ? 'Invalid parameter: redirect_uri' : 'Client not found.',
      });
    const mode = params.response_mode === 'fragment' ? 'fragment' : 'query';
    const back = (answer: Record<string, string | undefined>) =>
      backToClient(reply, params.redirect_uri!, mode, {
        ...answer,
        state: params.state,
        iss: issuer,
      });
    if (params.response_type !== 'code')
      return back({
        error: 'unsupported_response_type',
        error_description: 'Only response_type=code is served',
      });
    if (params.code_challenge !== undefined && params.code_challenge_method !== 'S256')
      return back({
        error: 'invalid_request',
        error_description: 'Invalid parameter: code_challenge_method (S256 only)',
      });
    let session = signedIn;
    if (!session && params.prompt !== 'login')
      session = await provider.sessionOfSecret(readCookie(request, ssoCookie));
    if (!session) {
      if (params.prompt === 'none') return back({ error: 'login_required' });
      return showSignIn(request, reply, params, { username: params.login_hint });
    }
    const code = await provider.issueCode(session, {
      clientId: client.id,
      redirectUri: params.redirect_uri,
      scope: params.scope ?? 'openid',
      ...(params.nonce ? { nonce: params.nonce } : {}),
      ...(params.code_challenge ? { codeChallenge: params.code_challenge } : {}),
    });
    return back({ code, session_state: session.id });
  }

  app.get(`${oidc}/auth`, {
    config: { auth: 'none', rateLimit: false },
    schema: {
      tags: [tag],
      summary:
        'Authorize: the sign-in page, or straight back to the client when signed in (SSO cookie)',
      description:
        'Authorization-code flow (response_type=code, PKCE S256, response_mode query or fragment). With `prompt=none` and no one signed in, back to the client with `error=login_required`.',
      security: [],
      querystring: authorizeQuery,
      response: {
        200: html('The sign-in page'),
        302: redirect(
          'Back to the redirect URI with `code`, `state`, `session_state` (or `error`)',
        ),
        400: pageOrError('The request, client or redirect URI is not acceptable'),
      },
    },
    handler: async (request, reply) => authorize(request, reply, request.query as AuthorizeParams),
  });

  app.post(`${oidc}/auth`, {
    config: { auth: 'none' },
    schema: {
      tags: [tag],
      summary: 'The sign-in form: username and password, with the authorization request',
      description:
        "The form's `form_token` must be the browser's `IDP_FORM` cookie, both given with the page (cross-site request forgery); otherwise the page is shown again (400) and nothing is checked. Failed passwords lock the username and the address for a while (429 with `Retry-After`, whatever the password).",
      security: [],
      consumes: ['application/x-www-form-urlencoded'],
      body: Type.Intersect([
        Type.Object({
          username: Type.Optional(Type.String()),
          password: Type.Optional(Type.String()),
          [formTokenField]: Type.Optional(
            Type.String({ description: "The page's form token, equal to the IDP_FORM cookie" }),
          ),
        }),
        authorizeQuery,
      ]),
      response: {
        200: html('The sign-in page again, saying what was wrong'),
        302: redirect('Signed in: back to the client with a code'),
        400: pageOrError(
          'The request, client or redirect URI is not acceptable, or the form token is not the browser’s',
        ),
        429: {
          description:
            'Too many failed passwords of this username or from this address: the sign-in page again, saying how long to wait; or the rate limit of the address (RATE_LIMIT_ANON_PER_MIN) as an RFC 6749 §5.2 error. Both with `Retry-After`',
          content: { ...page, 'application/json': { schema: oauthError } },
        },
      },
    },
    preValidation: formOnly,
    handler: async (request, reply) => {
      const params = request.body as AuthorizeParams;
      const client = provider.client(params.client_id);
      // An unusable client or redirect URI is shown (authorize's error page): no password is
      // checked for a request that could not be answered.
      if (
        !client ||
        !params.redirect_uri ||
        !provider.redirectAllowed(client, params.redirect_uri, issuerOf(request))
      )
        return authorize(request, reply, params);
      // A form this browser was not given (another site's, or an expired cookie): shown again
      // with a token of its own, and nothing checked or counted.
      if (!formTokenMatches(readCookie(request, formCookie), params[formTokenField]))
        return showSignIn(request, reply, params, {
          status: 400,
          username: params.username,
          error:
            'This sign-in form has expired or did not come from this site. Please sign in again (cookies must be enabled).',
        });
      const check =
        params.username && params.password !== undefined
          ? await provider.checkPassword(params.username, params.password, request.ip)
          : ({ outcome: 'refused' } as const);
      if (check.outcome === 'locked')
        return showSignIn(
          request,
          reply.header('retry-after', String(check.retryAfterSeconds)),
          params,
          {
            status: 429,
            username: params.username,
            error: lockedMessage(check.retryAfterSeconds),
          },
        );
      if (check.outcome === 'refused')
        return showSignIn(request, reply, params, {
          username: params.username,
          error: 'Invalid username or password.',
        });
      const { secret, session } = await provider.startSession(check.user.username);
      reply.header('set-cookie', `${ssoCookie}=${secret}; ${cookieAttributes(request)}`);
      return authorize(request, reply, params, session);
    },
  });

  app.post(`${oidc}/token`, {
    config: { auth: 'none', rateLimit: false },
    schema: {
      tags: [tag],
      summary: 'Token endpoint: authorization_code (PKCE), refresh_token, password, token exchange',
      description:
        'Confidential clients authenticate with HTTP Basic or `client_id`/`client_secret` in the form; public clients send `client_id`. Refresh tokens are single-use: each answer carries the next.',
      security: [],
      consumes: ['application/x-www-form-urlencoded'],
      body: formFields,
      response: {
        200: tokenAnswer,
        400: oauthError,
        401: oauthError,
        403: oauthError,
        429: Type.Object(
          { error: Type.Literal('temporarily_unavailable'), error_description: Type.String() },
          {
            description:
              'Too many failed passwords of this username or from this address (or requests): try again after `Retry-After` seconds',
          },
        ),
      },
    },
    preValidation: formOnly,
    handler: async (request, reply) => {
      const basic = decodeBasic(request.headers.authorization);
      const answer = await provider.token(request.body as Record<string, string>, {
        issuer: issuerOf(request),
        ...(basic ? { basic } : {}),
        address: request.ip,
      });
      if (answer.retryAfterSeconds !== undefined)
        reply.header('retry-after', String(answer.retryAfterSeconds));
      return reply
        .code(answer.status as 200)
        .header('cache-control', 'no-store')
        .send(answer.body);
    },
  });

  const userinfoHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const match = /^bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const claims = match ? await provider.userinfo(match[1]!) : undefined;
    if (!claims)
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer error="invalid_token"')
        .send({ error: 'invalid_token', error_description: 'Token verification failed' });
    return claims;
  };
  const userinfoSchema = {
    tags: [tag],
    summary: "The signed-in user's claims (Bearer access token of this provider)",
    security: [{ bearer: [] }],
    response: { 200: Type.Record(Type.String(), Type.Unknown()), 401: oauthError },
  };
  app.get(`${oidc}/userinfo`, {
    config: { auth: 'none', rateLimit: false },
    schema: userinfoSchema,
    handler: userinfoHandler,
  });
  app.post(`${oidc}/userinfo`, {
    config: { auth: 'none', rateLimit: false },
    // The token travels in the Authorization header; a body, if any, is not read ('x-request-body' as
    // src/http/openapi.ts's takesNoBody, which a backend may not import).
    schema: {
      ...userinfoSchema,
      summary: `${userinfoSchema.summary}, by POST`,
      'x-request-body': 'none',
    },
    handler: userinfoHandler,
  });

  const logoutQuery = Type.Object(
    {
      id_token_hint: Type.Optional(Type.String()),
      post_logout_redirect_uri: Type.Optional(Type.String()),
      redirect_uri: Type.Optional(
        Type.String({ description: 'Older Keycloak adapters’ name for it' }),
      ),
      state: Type.Optional(Type.String()),
      client_id: Type.Optional(Type.String()),
      refresh_token: Type.Optional(
        Type.String({ description: 'POST (back channel): ends the session of this refresh token' }),
      ),
    },
    { additionalProperties: true },
  );
  const logoutHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const params = {
      ...(request.query as Record<string, string | undefined>),
      ...((request.body as Record<string, string | undefined> | undefined) ?? {}),
    };
    const hint = params.id_token_hint ? await provider.sessionIdOfHint(params.id_token_hint) : {};
    const cookieSession = await provider.sessionOfSecret(readCookie(request, ssoCookie));
    for (const id of new Set([hint.sessionId, cookieSession?.id]))
      if (id) await provider.endSession(id);
    if (params.refresh_token) await provider.endSessionOfRefreshToken(params.refresh_token);
    reply.header('set-cookie', `${ssoCookie}=; ${cookieAttributes(request)}; Max-Age=0`);
    reply.header('cache-control', 'no-store');
    const target = params.post_logout_redirect_uri ?? params.redirect_uri;
    const client = provider.client(params.client_id ?? hint.clientId);
    if (target && client && provider.redirectAllowed(client, target, issuerOf(request))) {
      const url = new URL(target);
      if (params.state) url.searchParams.set('state', params.state);
      return reply.redirect(url.toString(), 302);
    }
    // A client that is not a browser (a back channel, a script) is answered no page.
    if ((request.method === 'POST' && params.refresh_token) || !wantsHtml(request))
      return reply.code(204).send();
    return reply
      .headers(pageSecurity)
      .type('text/html; charset=utf-8')
      .send(messagePage('Signed out', 'You are signed out.'));
  };
  const logoutResponses = {
    200: html('Signed out (no acceptable post_logout_redirect_uri), to a browser asking for HTML'),
    204: redirect('Back-channel logout done, or signed out a client that is not a browser'),
    400: oauthError,
    302: redirect('To post_logout_redirect_uri (with `state`)'),
  };
  app.get(`${oidc}/logout`, {
    config: { auth: 'none', rateLimit: false },
    schema: {
      tags: [tag],
      summary: 'End-session: signs the browser out (SSO cookie, `id_token_hint`) and sends it back',
      security: [],
      querystring: logoutQuery,
      response: logoutResponses,
    },
    handler: logoutHandler,
  });
  app.post(`${oidc}/logout`, {
    config: { auth: 'none', rateLimit: false },
    schema: {
      tags: [tag],
      summary: 'End-session by POST (form), including the back-channel logout with a refresh token',
      security: [],
      consumes: ['application/x-www-form-urlencoded'],
      querystring: logoutQuery,
      body: Type.Optional(formFields),
      response: logoutResponses,
    },
    preValidation: formOnly,
    handler: logoutHandler,
  });

  // keycloak-js checks whether third-party cookies work before its login-status iframe; saying
  // they do not makes it fall back to redirects (`prompt=none`), which this provider serves. It
  // loads the page in a hidden iframe of the client's page: the clients' web origins may frame it.
  const thirdPartyCookiePageHeaders = pageHeaders(
    `default-src 'none'; script-src ${hashSource(thirdPartyCookieScript)}; base-uri 'none'`,
    ["'self'", ...webOrigins].join(' '),
  );
  app.get(`${oidc}/3p-cookies/step1.html`, {
    config: { auth: 'none', rateLimit: false },
    schema: {
      tags: [tag],
      summary:
        "keycloak-js's third-party cookie check: answers `unsupported` (the adapter then uses redirects)",
      security: [],
      response: { 200: html('A page posting `unsupported` to its parent') },
    },
    handler: async (_request, reply) =>
      reply
        .headers(thirdPartyCookiePageHeaders)
        .type('text/html; charset=utf-8')
        .send(
          `<!doctype html><html><body><script>${thirdPartyCookieScript}</script></body></html>`,
        ),
  });
}

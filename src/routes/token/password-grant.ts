// Tags token, admin-token: `GET /token[/{idp-name}]` and `GET /admin/token[/{idp-name}]`
// (routes.md §2, spec "Access token response"). HTTP Basic credentials become a password grant at
// the identity provider (AUTH_TOKEN_URL, or the embedded one); the admin variant then exchanges the
// administrator's token for one of `username` (Keycloak's token exchange).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decodeJwt } from 'jose';
import { Type } from 'typebox';
import { identityFromClaims } from '../../http/auth.ts';
import { sendError } from '../../common/error-replies.ts';
import { gatewayError } from '../../common/errors.ts';
import type { IdentityProviderLink } from '../../common/identity-provider.ts';
import type { GatewayConfig } from '../../config/index.ts';
import { AccessTokenResponse, tokensOf } from './shapes.ts';

export const tokenExchangeGrant = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** HTTP Basic credentials, or undefined without them. */
export function basicCredentials(
  request: FastifyRequest,
): { username: string; password: string } | undefined {
  const match = /^basic\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

export function passwordGrantRoutes(
  app: FastifyInstance,
  config: GatewayConfig,
  link: IdentityProviderLink | undefined,
): void {
  const provider = () => {
    if (!link)
      throw gatewayError(
        'ERR_NOT_IMPLEMENTED',
        'No identity provider token endpoint: set AUTH_TOKEN_URL (or leave AUTH_JWKS_URL and AUTH_PUBLIC_KEYS unset for the embedded one).',
      );
    return link;
  };
  const checkIdpName = (request: FastifyRequest) => {
    const { idpName } = request.params as { idpName?: string };
    if (idpName !== undefined && idpName !== config.auth.idpName)
      throw gatewayError('ERR_NOT_FOUND', `No identity provider named ${idpName}.`, {
        'idp-name': idpName,
      });
  };
  /**
   * No Basic: 401 with the challenge (RFC 7617), so that a client asks for credentials (the
   * command-line client asks again), and the gateway's error body, as every other refusal has.
   */
  const unauthorized = (reply: FastifyReply) =>
    sendError(
      reply,
      gatewayError(
        'ERR_NOT_AUTHORIZED',
        'HTTP Basic credentials (username and password) are required.',
        {},
        { 'www-authenticate': 'Basic realm="platform-gateway", charset="UTF-8"' },
      ),
    );
  // The caller's address goes along: the embedded provider limits failed passwords per address
  // as well as per username (a configured one sees only the gateway's address, and limits them
  // by its own rules).
  const passwordGrant = async (request: FastifyRequest, username: string, password: string) =>
    tokensOf(
      await provider().token(
        { grant_type: 'password', client_id: config.auth.clientId, username, password },
        originOf(request),
        request.ip,
      ),
    );

  /**
   * Whether the access token of a password grant names an administrator (ADMIN_ROLES), as the
   * guard decides for every other `/admin/` route. The token comes straight from the identity
   * provider's answer to the gateway's own grant, so its claims are read, not verified again.
   */
  const isAdministrator = (accessToken: unknown) => {
    try {
      const { roles } = identityFromClaims(decodeJwt(String(accessToken)));
      return roles.some((role) => config.auth.adminRoles.includes(role));
    } catch {
      return false;
    }
  };

  const idpParams = Type.Object({
    idpName: Type.String({
      description: `The identity provider's name (AUTH_IDP_NAME, default \`keycloak\`)`,
    }),
  });
  // Errors: no HTTP Basic credentials → 401 ERR_NOT_AUTHORIZED with a Basic challenge; a refusal of the identity provider
  // keeps its status, as `{error_code, reason, error}`.
  const responses = { 200: AccessTokenResponse };

  for (const path of ['/token', '/token/:idpName']) {
    app.get(path, {
      config: { auth: 'none' },
      schema: {
        tags: ['token'],
        summary: 'Get an access token with a username and password (HTTP Basic)',
        description:
          "A password grant at the identity provider (AUTH_TOKEN_URL as AUTH_CLIENT_ID, or the embedded identity provider's users). No Basic credentials: 401 `ERR_NOT_AUTHORIZED` with a `WWW-Authenticate: Basic` challenge. A refusal keeps the provider's status (`{error_code, reason, error}`): too many failed passwords of the username or from the caller's address is 429 `ERR_TOO_MANY_REQUESTS` with `Retry-After`, whatever the password.",
        security: [{ basic: [] }],
        ...(path.includes(':') ? { params: idpParams } : {}),
        response: responses,
      },
      handler: async (request, reply) => {
        checkIdpName(request);
        const credentials = basicCredentials(request);
        if (!credentials) return unauthorized(reply);
        return passwordGrant(request, credentials.username, credentials.password);
      },
    });
  }

  for (const path of ['/admin/token', '/admin/token/:idpName']) {
    app.get(path, {
      config: { auth: 'none' },
      schema: {
        tags: ['admin-token'],
        summary:
          "Get an access token for another user, with an administrator's username and password",
        description:
          "A password grant for the administrator (HTTP Basic), then a token exchange (grant_type urn:ietf:params:oauth:grant-type:token-exchange, requested_subject = `username`). No Basic credentials: 401; a caller whose token names none of ADMIN_ROLES: 403, before `username` is checked; then the identity provider's exchange policy decides (the embedded one allows its administrators).",
        security: [{ basic: [] }],
        ...(path.includes(':') ? { params: idpParams } : {}),
        querystring: Type.Object({
          username: Type.String({ minLength: 1, description: 'The user to get a token for' }),
        }),
        response: responses,
      },
      // Authorization before validation: who asks is settled (401 without Basic or with wrong
      // credentials, 403 for someone who is not an administrator) before `idpName` and
      // `username` are checked.
      attachValidation: true,
      handler: async (request, reply) => {
        const credentials = basicCredentials(request);
        if (!credentials) return unauthorized(reply);
        const admin = await passwordGrant(request, credentials.username, credentials.password);
        try {
          if (!isAdministrator(admin.access_token))
            throw gatewayError('ERR_FORBIDDEN', 'You are not in one of the admin groups.');
          checkIdpName(request);
          if (request.validationError) throw request.validationError;
          const { username } = request.query as { username: string };
          return tokensOf(
            await provider().token(
              {
                grant_type: tokenExchangeGrant,
                client_id: config.auth.clientId,
                subject_token: admin.access_token as string,
                subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
                requested_subject: username,
                requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token',
              },
              originOf(request),
            ),
          );
        } finally {
          // The administrator's own sign-in served only the exchange (or was refused): it ends here.
          if (typeof admin.refresh_token === 'string')
            await provider().revoke(admin.refresh_token, originOf(request));
        }
      },
    });
  }
}

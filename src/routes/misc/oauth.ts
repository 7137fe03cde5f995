// Tag misc (OAuth access codes have no tag of their own; the admin's view of a token is the admin
// area's). Routes.md §8 and spec "OAuth
// authorization code callback". Token info and redirect URIs are passthrough rows; the provider's
// browser callback (spec step 5) and the access-code exchange (only `code` and `state` forwarded)
// are handled here.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { GatewayConfig } from '../../config/index.ts';
import { routeSecurity } from '../../http/openapi.ts';
import type { PassthroughRoute } from '../../http/passthrough.ts';
import type { Tag } from '../shared/tags.ts';
import type { Forwarder } from '../../http/proxy.ts';
import { routeAtBoth } from '../../http/secured-alias.ts';
import { gatewayError } from '../../common/errors.ts';

export const oauthPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: 'GET',
    path: '/oauth/redirect-uris',
    backend: 'apps',
    securedAlias: true,
    tag: 'misc',
    summary:
      'List OAuth authorization URLs (`{<api-name>: url}`) for APIs the caller holds no token for',
  },
  {
    method: ['GET', 'DELETE'],
    path: '/oauth/token-info/{api-name}',
    backend: 'apps',
    securedAlias: true,
    tag: 'misc',
    summary:
      "Get (`{expires_at, webapp}`) or delete the caller's OAuth token; 404 when there is none",
  },
];

export interface OAuthRouteDeps {
  forwarder: Forwarder;
  config: GatewayConfig;
}

const callbackQuery = Type.Object({
  code: Type.Optional(
    Type.String({
      maxLength: 4096,
      description: 'The authorization code, when the user granted access',
    }),
  ),
  state: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'The authorization request this answers',
  }),
  error: Type.Optional(
    Type.String({
      maxLength: 256,
      description: 'Why no code came (RFC 6749 §4.1.2.1), e.g. `access_denied`',
    }),
  ),
  error_description: Type.Optional(Type.String({ maxLength: 2048 })),
  error_uri: Type.Optional(Type.String({ maxLength: 2048 })),
});
type CallbackQuery = {
  code?: string;
  state: string;
  error?: string;
  error_description?: string;
  error_uri?: string;
};

const accessCodeQuery = Type.Object({
  code: Type.String({
    minLength: 1,
    maxLength: 4096,
    description: 'The authorization code from the OAuth server',
  }),
  state: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'UUID of the authorization request',
  }),
});

/**
 * Where the browser goes after the provider: the UI's main page, told it is an OAuth return
 * (`type=oauth`, `api`) with the code and state to exchange, or the provider's error.
 */
function uiReturn(uiBaseUrl: string, apiName: string, query: CallbackQuery): string {
  const target = new URL(uiBaseUrl);
  target.searchParams.set('type', 'oauth');
  target.searchParams.set('api', apiName);
  const passed =
    query.error !== undefined
      ? (['error', 'error_description', 'error_uri', 'state'] as const)
      : (['code', 'state'] as const);
  for (const name of passed) {
    const value = query[name];
    if (value !== undefined) target.searchParams.set(name, value);
  }
  return target.toString();
}

export async function oauthGatewayRoutes(
  app: FastifyInstance,
  deps: OAuthRouteDeps,
): Promise<void> {
  const { forwarder, config } = deps;

  // Spec step 5: the provider sends the browser here; the UI then exchanges the code (step 6).
  app.get('/oauth/callback/:apiName', {
    config: { auth: 'none' },
    schema: {
      tags: ['misc'],
      summary:
        'Where an OAuth server of OAUTH_APIS sends the browser back; redirects to the UI with the code or the error',
      security: routeSecurity('none'),
      params: Type.Object({
        apiName: Type.String({ description: 'An API of OAUTH_APIS (e.g. `extapi`)' }),
      }),
      querystring: callbackQuery,
      response: {
        302: {
          description:
            'To UI_BASE_URL with `type=oauth&api=<api-name>` and `code`, `state` or `error`, `error_description`, `error_uri`, `state`',
          type: 'null',
        },
      },
    },
    handler: async (request, reply) => {
      const { apiName } = request.params as { apiName: string };
      if (!Object.hasOwn(config.oauth.apis, apiName))
        throw gatewayError('ERR_NOT_FOUND', `unknown API name: ${apiName}`, { api_name: apiName });
      const query = request.query as CallbackQuery;
      if (query.code === undefined && query.error === undefined) {
        throw gatewayError(
          'ERR_MISSING_QUERY_PARAMETER',
          'missing query parameter "code" (or "error" when authorization was not granted)',
          { field: 'code' },
        );
      }
      return reply.redirect(uiReturn(config.oauth.uiBaseUrl, apiName, query), 302);
    },
  });

  routeAtBoth(app, 'user', {
    method: 'GET',
    url: '/oauth/access-code/:apiName',
    config: {
      auth: 'user',
      openapi: {
        response: {
          200: Type.Object(
            {
              state_info: Type.String({
                description: 'The JSON the authorization request was opened with',
              }),
            },
            { additionalProperties: true },
          ),
        },
      },
    },
    schema: {
      tags: ['misc'],
      summary:
        'Exchange an OAuth authorization code for a token stored for the caller; answers `{state_info}`',
      description:
        'Forwarded to the apps service (/oauth/access-code/{api-name}) with only `code`, `state` and the identity; its answer is relayed unchanged.',
      security: routeSecurity('user'),
      params: Type.Object({ apiName: Type.String() }),
      querystring: accessCodeQuery,
      response: { default: { description: 'Relayed from the apps service' } },
    },
    handler: async (request, reply) => {
      const { apiName } = request.params as { apiName: string };
      const { code, state } = request.query as { code: string; state: string };
      return forwarder.forward(request, reply, 'apps', {
        method: 'GET',
        path: `/oauth/access-code/${encodeURIComponent(apiName)}`,
        rawQuery: new URLSearchParams({ code, state }).toString(),
        identity: request.identity,
        identityStyle: 'apps',
        bodyLimitBytes: config.bodyLimitBytes,
      });
    },
  });
}

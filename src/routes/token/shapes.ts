// Shapes shared by the token routes: the spec's "Access token response" and the way an identity
// provider's refusal becomes the gateway's error.
import { Type } from 'typebox';
import {
  gatewayError,
  relayedError,
  type ErrorCode,
  type GatewayError,
} from '../../common/errors.ts';
import type { TokenEndpointAnswer } from '../../common/identity-provider.ts';

export const AccessTokenResponse = Type.Object(
  {
    access_token: Type.String(),
    expires_in: Type.Integer({ description: 'Seconds' }),
    refresh_expires_in: Type.Optional(Type.Integer({ description: 'Seconds' })),
    refresh_token: Type.Optional(Type.String()),
    token_type: Type.Optional(Type.String()),
    'not-before-policy': Type.Optional(Type.Integer()),
    session_state: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String()),
  },
  { description: 'Access token response (spec)' },
);

const codeOfStatus: Record<number, ErrorCode> = {
  400: 'ERR_BAD_REQUEST',
  401: 'ERR_NOT_AUTHORIZED',
  403: 'ERR_FORBIDDEN',
  404: 'ERR_NOT_FOUND',
  429: 'ERR_TOO_MANY_REQUESTS',
};

/**
 * The error of an identity provider's refusal: a 4xx keeps its status (routes.md §2, "bad
 * credentials → idp status relayed") with the provider's `error` and `error_description`, and a
 * 429 its `Retry-After`; a 5xx is the provider failing (502).
 */
export function identityProviderError(answer: TokenEndpointAnswer): GatewayError {
  const error = typeof answer.body.error === 'string' ? answer.body.error : undefined;
  const description =
    typeof answer.body.error_description === 'string' ? answer.body.error_description : undefined;
  const reason = `The identity provider refused: ${description ?? error ?? `HTTP ${answer.status}`}`;
  if (answer.status < 400 || answer.status >= 500)
    return gatewayError('ERR_OAUTH_SERVER', reason, { status: answer.status });
  return relayedError(
    answer.status,
    codeOfStatus[answer.status] ?? 'ERR_BAD_REQUEST',
    reason,
    { ...(error ? { error } : {}) },
    answer.retryAfterSeconds === undefined
      ? {}
      : { 'retry-after': String(answer.retryAfterSeconds) },
  );
}

/** The tokens of a 200, else the provider's refusal thrown. */
export function tokensOf(answer: TokenEndpointAnswer): Record<string, unknown> {
  if (answer.status !== 200 || typeof answer.body.access_token !== 'string')
    throw identityProviderError(answer.status === 200 ? { status: 502, body: {} } : answer);
  return answer.body;
}

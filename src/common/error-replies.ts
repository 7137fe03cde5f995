// The Fastify wiring of the error table (common/errors.ts), for the gateway and the embedded
// backends alike: the error handler, sendError, and toGatewayError, which
// maps whatever a handler or Fastify threw onto the gateway's `{error_code, reason, ...}`.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { errorAs, gatewayError, GatewayError, relayedError, type ErrorCode } from './errors.ts';
import { isDatabaseUnavailable } from './database-unavailable.ts';

/** The body of every error answer (sendError): `error_code`, `reason` and context fields. For response schemas. */
export const ErrorAnswer = Type.Object(
  { error_code: Type.String(), reason: Type.Optional(Type.String()) },
  { additionalProperties: true },
);

export function sendError(reply: FastifyReply, error: GatewayError): FastifyReply {
  return reply
    .code(error.statusCode)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .send({ error_code: error.errorCode, reason: error.reason, ...error.extra });
}

const validationCodes: Record<string, { code: ErrorCode; noun: string }> = {
  body: { code: 'ERR_BAD_OR_MISSING_FIELD', noun: 'body field' },
  querystring: { code: 'ERR_BAD_QUERY_PARAMETER', noun: 'query parameter' },
  params: { code: 'ERR_BAD_REQUEST', noun: 'path parameter' },
  headers: { code: 'ERR_BAD_REQUEST', noun: 'header' },
};

/**
 * The dotted field (`a.0.b`) a schema error names, a missing or unexpected property included, and
 * whether it is missing: from Fastify's validator (`missingProperty`) or TypeBox's `Value.Errors`
 * (`requiredProperties`).
 */
export function schemaErrorField(error: { instancePath?: string; params?: unknown } | undefined): {
  field: string;
  missing: boolean;
} {
  const params = (error?.params ?? {}) as Record<string, unknown>;
  const pointer = (error?.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const missingProperty =
    typeof params.missingProperty === 'string'
      ? params.missingProperty
      : Array.isArray(params.requiredProperties) && typeof params.requiredProperties[0] === 'string'
        ? params.requiredProperties[0]
        : undefined;
  const named =
    missingProperty ??
    (typeof params.additionalProperty === 'string' ? params.additionalProperty : undefined);
  return {
    field: named === undefined ? pointer : [pointer, named].filter(Boolean).join('.'),
    missing: missingProperty !== undefined,
  };
}

/** Turns a Fastify schema failure into a 400 that names the offending field. */
function fromValidation(error: FastifyError): GatewayError {
  const context = error.validationContext ?? 'body';
  const first = error.validation?.[0];
  const { field, missing } = schemaErrorField(first);
  const { code, noun } = validationCodes[context] ?? validationCodes.body!;
  const errorCode = missing && context === 'querystring' ? 'ERR_MISSING_QUERY_PARAMETER' : code;
  const reason = field
    ? `${missing ? 'missing' : 'invalid'} ${noun} "${field}"${missing ? '' : `: ${first?.message ?? 'invalid value'}`}`
    : `invalid ${context}: ${first?.message ?? 'schema violation'}`;
  return gatewayError(errorCode, reason, field ? { field } : {});
}

/** PostgreSQL's `character_not_in_repertoire`: text with a NUL character (0x00) in it. */
const postgresBadCharacter = '22021';

/** Maps whatever a handler or Fastify threw onto the gateway's error model. */
export function toGatewayError(error: FastifyError | Error): GatewayError {
  if (error instanceof GatewayError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return fromValidation(fastifyError);
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return gatewayError('ERR_INVALID_JSON', fastifyError.message);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return gatewayError('ERR_REQUEST_BODY_TOO_LARGE', 'Request body is larger than the limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return gatewayError('ERR_UNSUPPORTED_MEDIA_TYPE', fastifyError.message);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return gatewayError('ERR_BAD_REQUEST', fastifyError.message);
    // Met before routing (see answerFrameworkError); their messages would echo the raw path.
    case 'FST_ERR_BAD_URL':
      return gatewayError('ERR_BAD_REQUEST', 'The URL path holds an invalid percent-encoding.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return errorAs(
        'ERR_BAD_REQUEST',
        'pathParameterTooLong',
        'A path parameter is longer than the router accepts.',
      );
  }
  // JSON.parse failures thrown by the body parser carry a 400 status.
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return gatewayError('ERR_INVALID_JSON', `Malformed JSON body: ${error.message}`);
  }
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Fastify's own 4xx (e.g. from a plugin) keeps Fastify's status.
    return relayedError(status, 'ERR_BAD_REQUEST', fastifyError.message);
  }
  // PostgreSQL stores no NUL character in text (SQLite does): a value the caller sent, not a fault.
  if ((error as { code?: unknown }).code === postgresBadCharacter)
    return gatewayError(
      'ERR_BAD_REQUEST',
      'The request holds a character the database cannot store (NUL).',
    );
  // An outage of the database (or the network to it) is the operator's to fix and the client's to retry.
  if (isDatabaseUnavailable(error))
    return gatewayError('ERR_UNAVAILABLE', 'The database is unavailable; try again shortly.');
  return gatewayError('ERR_UNCHECKED_EXCEPTION', 'Internal error');
}

/**
 * Fastify's `frameworkErrors` option: errors Fastify meets before a route is chosen (a bad
 * percent-escape in a path parameter, an over-long one) skip the error handler, and would
 * otherwise answer Fastify's own `{code: "FST_ERR_BAD_URL"}` body.
 */
export function answerFrameworkError(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  void sendError(reply, toGatewayError(error));
}

/**
 * Longest path parameter the router takes (Fastify's default is 100 characters, answered 414):
 * ontology IRIs (`/apps/hierarchies/{root-iri}`), group and team names arrive percent-encoded and
 * are often longer.
 */
export const MAX_PATH_PARAMETER_LENGTH = 2048;

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const answer = toGatewayError(error);
    if (answer.statusCode >= 500) {
      request.log.error({ err: error }, 'request failed');
    }
    return sendError(reply, answer);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      gatewayError(
        'ERR_NOT_FOUND',
        `unrecognized service path: ${request.method} ${request.url.split('?')[0]}`,
      ),
    ),
  );
}

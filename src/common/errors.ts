/**
 * The one table of the service's error codes: every `error_code` the gateway and its embedded
 * backends answer is defined here once, with its status and a default reason, in the habit of
 * Fastify's `lib/errors.js` and jose's `util/errors.ts`. Call sites name the code
 * (`gatewayError('ERR_DOES_NOT_EXIST', reason, extra)`) and never write a status: where a code is
 * answered with another status, the table names that variant and says why, and the call site picks
 * it by name (`errorAs('ERR_EXISTS', 'conflict', reason, extra)`).
 *
 * This module imports nothing, so that the gateway (http/, routes/) and every backend can share it.
 */

/** Another status a code is answered with, and the reason it departs from the code's default. */
export interface ErrorVariant {
  readonly status: number;
  readonly because: string;
}

export interface ErrorDefinition {
  /** The status the code is answered with unless a variant is chosen. */
  readonly status: number;
  /** The reason given when the call site has nothing more precise to say. */
  readonly reason: string;
  readonly variants?: Readonly<Record<string, ErrorVariant>>;
}

/**
 * Spec "Errors" item 2: file I/O errors are 500 with `{error_code, ...context}`, and only the code
 * may be relied on (clients of the file I/O endpoints branch on the code, not the status).
 */
const fileio: ErrorVariant = {
  status: 500,
  because: 'spec "Errors" 2: every file I/O error is answered 500 with its error_code',
};

/**
 * The statuses follow the status table of backends.md §10.2. Where the reference data store answers
 * 500 for a caller's mistake (ERR_DOES_NOT_EXIST, ERR_NOT_READABLE, ERR_NOT_A_FILE, ...), the
 * embedded services give the 4xx a production API would: clients branch on `error_code`
 * (clients.md §4), and file I/O turns them back into the spec's 500s (the `fileio` variants).
 */
export const errorTable = {
  // --- The request itself -------------------------------------------------------------------
  ERR_BAD_REQUEST: {
    status: 400,
    reason: 'The request is malformed.',
    variants: {
      pathParameterTooLong: {
        status: 414,
        because:
          "Fastify's router refuses a path parameter over its limit with 414 URI Too Long (FST_ERR_MAX_PARAM_LENGTH); the status is kept, the body made the gateway's",
      },
    },
  },
  ERR_INVALID_JSON: { status: 400, reason: 'Malformed JSON body.', variants: { fileio } },
  ERR_BAD_OR_MISSING_FIELD: { status: 400, reason: 'A body field is missing or invalid.' },
  ERR_MISSING_FORM_FIELD: { status: 400, reason: 'A multipart form part is missing.' },
  ERR_MISSING_QUERY_PARAMETER: { status: 400, reason: 'A query parameter is missing.' },
  ERR_BAD_QUERY_PARAMETER: { status: 400, reason: 'A query parameter is invalid.' },
  /** Spec "Errors" 5: a query parameter repeated with different values. */
  ERR_CONFLICTING_QUERY_PARAMETER_VALUES: {
    status: 409,
    reason: 'A query parameter was given different values.',
  },
  ERR_ILLEGAL_ARGUMENT: {
    status: 400,
    reason: 'The request asks for something that cannot be done.',
  },
  ERR_NOT_UNIQUE: { status: 400, reason: 'An equal item is already there.' },
  ERR_TOO_MANY_RESULTS: {
    status: 400,
    reason: 'The request would touch more items than are answered at once.',
  },
  ERR_REQUEST_BODY_TOO_LARGE: { status: 413, reason: 'Request body is larger than the limit.' },
  ERR_FILE_SIZE_TOO_LARGE: {
    status: 413,
    reason: 'The file is larger than this operation accepts.',
    variants: { fileio },
  },
  ERR_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    reason: 'The body has a content type this route does not take.',
  },
  ERR_RANGE_NOT_SATISFIABLE: { status: 416, reason: 'The requested range is outside the file.' },
  ERR_REQUEST_TIMEOUT: { status: 408, reason: 'The request did not arrive in time.' },
  ERR_HEADERS_TOO_LARGE: {
    status: 431,
    reason: 'The request line and headers are larger than the server accepts.',
  },
  /** Not sent to anyone (the client has gone): named so that logs and metrics tell it from a failure. */
  ERR_CLIENT_CLOSED_REQUEST: { status: 499, reason: 'The client closed the request.' },

  // --- Who is asking ------------------------------------------------------------------------
  ERR_NOT_AUTHORIZED: {
    status: 401,
    reason: 'No valid credentials.',
    variants: {
      ownHome: {
        status: 403,
        because:
          "deleting one's own home folder is refused, not unauthenticated: a 401 would make clients sign in again",
      },
    },
  },
  ERR_FORBIDDEN: { status: 403, reason: 'The caller may not do this.' },
  ERR_NOT_A_USER: {
    status: 404,
    reason: 'No such user.',
    variants: {
      headOfData: {
        status: 422,
        because:
          'HEAD /data/{id} answers a status alone, and backends.md §10 gives it 422 for an unknown user so that it differs from 404 (no such id)',
      },
    },
  },
  ERR_NOT_OWNER: { status: 403, reason: 'The caller does not own it.' },
  ERR_NOT_READABLE: {
    status: 403,
    reason: 'The caller cannot read it.',
    variants: {
      namedInBody: {
        status: 400,
        because:
          'a quick launch naming paths its users cannot read is a bad body field (`field` names it), not a refusal of the caller',
      },
    },
  },
  ERR_NOT_WRITEABLE: { status: 403, reason: 'The caller cannot write it.' },
  ERR_TOO_MANY_REQUESTS: { status: 429, reason: 'Rate limit exceeded.' },
  ERR_TOO_MANY_STREAMS: { status: 429, reason: 'Too many notification streams at once.' },
  ERR_LIMIT_REACHED: { status: 400, reason: 'The caller has reached a limit.' },
  /** SUBSCRIPTIONS_ENFORCE: the caller's usage of a resource type has reached their subscription's quota. */
  ERR_QUOTA_EXCEEDED: {
    status: 403,
    reason: "The caller's usage has reached their subscription's quota.",
  },

  // --- What is asked for --------------------------------------------------------------------
  ERR_NOT_FOUND: { status: 404, reason: 'Not found.' },
  ERR_DOES_NOT_EXIST: { status: 404, reason: 'No such file or folder.' },
  ERR_TICKET_DOES_NOT_EXIST: { status: 404, reason: 'No such ticket.' },
  ERR_NOT_A_FILE: { status: 400, reason: 'It is a folder, not a file.', variants: { fileio } },
  ERR_NOT_A_FOLDER: { status: 400, reason: 'It is a file, not a folder.', variants: { fileio } },
  /** backends.md's status table gives ERR_EXISTS 400; the reference data store answers it 500. */
  ERR_EXISTS: {
    status: 400,
    reason: 'It already exists.',
    variants: {
      fileio,
      conflict: {
        status: 409,
        because:
          "a create that clashes with what is stored (a path in the embedded data store, an app version) is 409 Conflict: the reference data store's 500 cannot be told from a failure, and clients branch on the code, not the status (clients.md §4)",
      },
    },
  },
  ERR_CONFLICT: { status: 409, reason: 'The item kept changing; try again.' },
  ERR_APP_DISABLED: { status: 400, reason: 'The app is disabled.' },
  ERR_MISSING_DEPENDENCY: { status: 424, reason: 'Something this depends on is missing.' },

  // --- Other services and this one ----------------------------------------------------------
  /** File I/O URL import (spec "Errors" 2 and 3): only ever answered by file I/O, hence 500. */
  ERR_INVALID_URL: { status: 500, reason: 'The URL cannot be imported.' },
  /** File I/O URL import and the genome routes: a service the gateway called failed (spec "Errors" 2 and 3). */
  ERR_REQUEST_FAILED: { status: 500, reason: 'A request to another service failed.' },
  ERR_BAD_GATEWAY: { status: 502, reason: 'A backend answered something unusable.' },
  ERR_OAUTH_SERVER: { status: 502, reason: 'The OAuth provider failed.' },
  ERR_PID_PROVIDER: { status: 502, reason: 'The permanent identifier provider failed.' },
  /** The S3-compatible store of file bytes (BLOB_STORE_URL) refused a request (4xx: access, bucket). */
  ERR_BLOB_STORE: { status: 502, reason: 'The file byte store refused the request.' },
  /** The S3-compatible store of file bytes could not be reached, timed out or answered 5xx. */
  ERR_BLOB_STORE_UNAVAILABLE: {
    status: 503,
    reason: 'The file byte store is unavailable; try again shortly.',
  },
  ERR_UNAVAILABLE: {
    status: 503,
    reason: 'The service is unavailable; try again shortly.',
    variants: {
      backendFailed: {
        status: 502,
        because:
          'the backend answered, but broke off or failed mid-answer: a bad gateway, not an outage',
      },
      backendTimedOut: {
        status: 504,
        because:
          'the backend did not answer within its timeout: a gateway timeout, so clients and proxies can tell it from an outage',
      },
    },
  },
  ERR_NOT_IMPLEMENTED: { status: 501, reason: 'This deployment does not serve this.' },
  ERR_UNEXPECTED_SERVICE: { status: 500, reason: 'This is not the service that was expected.' },
  ERR_UNCHECKED_EXCEPTION: { status: 500, reason: 'Internal error' },
  /** Only with CONTRACT_CHECK (tests): an exchange that departs from the OpenAPI document. */
  ERR_CONTRACT_VIOLATION: {
    status: 500,
    reason: 'The answer or the request departs from the documented contract.',
  },
} as const satisfies Record<`ERR_${string}`, ErrorDefinition>;

export type ErrorTable = typeof errorTable;
/** Every code the service answers. */
export type ErrorCode = keyof ErrorTable;
/** The named variants of one code (never for a code that has none). */
export type VariantOf<C extends ErrorCode> = ErrorTable[C] extends { variants: infer V }
  ? keyof V & string
  : never;
/** The codes that have a variant of this name. */
export type CodeWithVariant<V extends string> = {
  [C in ErrorCode]: V extends VariantOf<C> ? C : never;
}[ErrorCode];
/** The statuses a code may be answered with: its default and its variants'. */
export type AllowedStatus<C extends ErrorCode> =
  | ErrorTable[C]['status']
  | (ErrorTable[C] extends { variants: infer V }
      ? { [K in keyof V]: V[K] extends { status: infer S } ? S : never }[keyof V]
      : never);

/**
 * An error the gateway (or an embedded backend) answers itself. Every one becomes
 * `{error_code, reason, ...extra}`; backend errors relayed by the forwarder never pass through here.
 * Made by gatewayError/errorAs (codes of the table) or relayedError (another service's answer).
 */
export class GatewayError extends Error {
  readonly statusCode: number;
  readonly errorCode: string;
  readonly reason: string;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    statusCode: number,
    errorCode: string,
    reason: string,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(reason);
    this.statusCode = statusCode;
    this.errorCode = errorCode;
    this.reason = reason;
    this.extra = extra;
    this.headers = headers;
  }

  /** The same error with other context fields (the status, code, reason and headers are kept). */
  withExtra(extra: Record<string, unknown>): GatewayError {
    return new GatewayError(this.statusCode, this.errorCode, this.reason, extra, this.headers);
  }
}

type Extra = Record<string, unknown>;
type Headers = Record<string, string>;

/** The error of a code of the table, with the code's default status. */
export function gatewayError(
  code: ErrorCode,
  reason?: string,
  extra: Extra = {},
  headers: Headers = {},
): GatewayError {
  const definition: ErrorDefinition = errorTable[code];
  return new GatewayError(definition.status, code, reason ?? definition.reason, extra, headers);
}

/** The error of a code of the table, with the status of one of its named variants. */
export function errorAs<C extends ErrorCode>(
  code: C,
  variant: VariantOf<C>,
  reason?: string,
  extra: Extra = {},
  headers: Headers = {},
): GatewayError {
  const definition: ErrorDefinition = errorTable[code];
  const chosen = definition.variants?.[variant];
  if (!chosen) throw new TypeError(`error code ${code} has no variant ${variant}`);
  return new GatewayError(chosen.status, code, reason ?? definition.reason, extra, headers);
}

/**
 * The statuses the table allows for a code, the default first. A status decided elsewhere
 * (see relayedError) may be checked against it.
 */
export function allowedStatuses(code: ErrorCode): number[] {
  const definition: ErrorDefinition = errorTable[code];
  return [
    definition.status,
    ...Object.values(definition.variants ?? {}).map((variant) => variant.status),
  ];
}

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(errorTable, code);
}

/**
 * An error whose status (and possibly code) another party decided: a backend's answer that a
 * gateway route reads rather than relays, a 4xx that Fastify itself raised, or an error carried
 * over to the 500 of file I/O (spec "Errors" 2). The only way to give a status the table does not
 * list for the code, so every use of it is a place where the status is not the gateway's choice.
 */
export function relayedError(
  statusCode: number,
  errorCode: string,
  reason: string,
  extra: Extra = {},
  headers: Headers = {},
): GatewayError {
  return new GatewayError(statusCode, errorCode, reason, extra, headers);
}

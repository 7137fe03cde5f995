import { GatewayError } from '../../http/errors.js';

/**
 * The data-info service's error codes and the status each one gets (backends.md §10.2).
 * The reference data store answers 500 for most of these; clients branch on `error_code`
 * (clients.md §4), so the embedded service gives them the 4xx a production API would, and the
 * gateway's file I/O routes turn the spec's listed codes into its 500s.
 */
const statusOf = {
  ERR_BAD_OR_MISSING_FIELD: 400,
  ERR_BAD_QUERY_PARAMETER: 400,
  ERR_MISSING_QUERY_PARAMETER: 400,
  ERR_MISSING_FORM_FIELD: 400,
  ERR_ILLEGAL_ARGUMENT: 400,
  ERR_TOO_MANY_RESULTS: 400,
  ERR_NOT_A_FILE: 400,
  ERR_NOT_A_FOLDER: 400,
  ERR_NOT_READABLE: 403,
  ERR_NOT_WRITEABLE: 403,
  ERR_NOT_OWNER: 403,
  /** Deleting one's own home; 403, not the table's 401, which would make clients log in again. */
  ERR_NOT_AUTHORIZED: 403,
  ERR_DOES_NOT_EXIST: 404,
  ERR_NOT_A_USER: 404,
  ERR_TICKET_DOES_NOT_EXIST: 404,
  ERR_EXISTS: 409,
  ERR_TICKET_EXISTS: 409,
  ERR_REQUEST_BODY_TOO_LARGE: 413,
  ERR_FILE_SIZE_TOO_LARGE: 413,
  ERR_RANGE_NOT_SATISFIABLE: 416,
  ERR_INCOMPLETE_MOVE: 500,
  ERR_INCOMPLETE_DELETION: 500,
  ERR_INCOMPLETE_RENAME: 500,
} as const;

export type DataErrorCode = keyof typeof statusOf;

/** A data-info error: `{error_code, reason, ...extra}` with the code's status. */
export function dataError(code: DataErrorCode, reason: string, extra: Record<string, unknown> = {}): GatewayError {
  return new GatewayError(statusOf[code], code, reason, extra);
}

// Telling a database that cannot serve now (an outage: 503, retry) from a request it refuses
// (a bug or bad input), for every part that answers errors.

/** What pg rejects a query with when `query_timeout` passes. */
export const queryTimeoutMessage = 'Query read timeout';

/** pg and pg-pool messages for a connection that failed, timed out or is gone. */
const connectionMessages = [
  queryTimeoutMessage,
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'timeout expired',
  'is not queryable',
];
/** Node's codes for a peer that cannot be reached or went away. */
const networkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/**
 * SQLSTATEs of a server that cannot serve now: class 08 (connection exception), shutdown and
 * recovery (57P01-57P03), too many connections (53300), a query cancelled by a timeout (57014).
 */
const unavailableStates = /^(08...|57P0[123]|53300|57014)$/;

/** True when `error` says the database (or the network to it) is unavailable, not that the request is wrong. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 3) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (networkCodes.has(code) || unavailableStates.test(code)))
    return true;
  if (
    connectionMessages.some(
      (message) => error.message.startsWith(message) || error.message.endsWith(message),
    )
  )
    return true;
  if (
    error instanceof AggregateError &&
    error.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))
  )
    return true;
  return isDatabaseUnavailable(error.cause, depth + 1);
}

/**
 * True when `error` is pg's word for a connection that ended under the query (`Connection
 * terminated unexpectedly`): that connection is gone, not necessarily the database.
 */
export function isConnectionTerminated(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('Connection terminated');
}

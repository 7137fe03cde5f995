// How a failed backend call is answered: the one place that turns undici's errors (refused,
// timed out, aborted) into the gateway's 502/503/504 and 499 answers.
import type { BackendName } from '../common/backend-names.ts';
import { GatewayError, errorAs, gatewayError } from '../common/errors.ts';

const unreachable = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOENT',
  'ECONNRESET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);

export function backendFailure(
  backend: BackendName,
  timeoutMs: number,
  error: unknown,
): GatewayError {
  if (error instanceof GatewayError) return error;
  const code = (error as { code?: string }).code ?? '';
  const causeCode = ((error as { cause?: { code?: string } }).cause?.code ?? '') as string;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return errorAs(
      'ERR_UNAVAILABLE',
      'backendTimedOut',
      `The ${backend} service did not answer within ${timeoutMs} ms.`,
      { backend },
    );
  }
  if (unreachable.has(code) || unreachable.has(causeCode)) {
    return gatewayError('ERR_UNAVAILABLE', `The ${backend} service is unavailable.`, { backend });
  }
  if ((error as Error).name === 'AbortError' || code === 'UND_ERR_ABORTED') {
    return gatewayError('ERR_CLIENT_CLOSED_REQUEST', 'The client closed the request.', { backend });
  }
  return errorAs(
    'ERR_UNAVAILABLE',
    'backendFailed',
    `The ${backend} service failed: ${(error as Error).message}`,
    { backend },
  );
}

/** The status label a failed call is counted under in the backend-duration metric. */
export function failureStatusLabel(failure: GatewayError): string {
  return failure.errorCode === 'ERR_UNAVAILABLE' ? String(failure.statusCode) : 'error';
}

// Reading a backend's answer when the gateway uses it itself (rather than relaying it): the one
// place that turns a backend's error body into a GatewayError.
import type { BackendName } from '../common/backend-names.ts';
import { GatewayError, gatewayError, relayedError } from '../common/errors.ts';
import type { Dispatcher } from 'undici';
import { backendFailure } from './backend-failure.ts';

/** A backend's answer as the forwarder hands it over, the body not yet read. */
export interface BackendResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
  /** The backend's timeout (ms), for the message of a body that stalls past it. */
  timeoutMs?: number;
}

/**
 * A backend's whole body as text. A backend that dies, stalls past its timeout or closes the
 * connection mid-body fails the read with undici's error: it becomes the 502 or 504 a passthrough
 * answers (backendFailure), not an unchecked 500.
 */
export async function bodyText(backend: BackendName, response: BackendResponse): Promise<string> {
  try {
    return await response.body.text();
  } catch (error) {
    throw backendFailure(backend, response.timeoutMs ?? 0, error);
  }
}

function parsed(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A backend's non-2xx answer as a GatewayError with the backend's status. A JSON error body keeps
 * its `error_code`, its `reason` (or `message`) and every context key (`path`, `paths`, `user`,
 * `count`…): clients read them (clients.md §4). Any other body is described, naming the backend.
 */
export function backendErrorOf(
  backend: BackendName,
  statusCode: number,
  text: string,
): GatewayError {
  const body = parsed(text);
  // A 5xx without a code of its own is the backend failing, not the caller's request.
  const fallbackCode = statusCode >= 500 ? 'ERR_BAD_GATEWAY' : 'ERR_REQUEST_FAILED';
  // An HTML error page is no reason: a short start of it is enough to recognise it in a log.
  const described = text.trim().slice(0, 200) || `The ${backend} service answered ${statusCode}.`;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return relayedError(statusCode, fallbackCode, described, { backend });
  }
  const { error_code: code, reason, ...context } = body as Record<string, unknown>;
  let why = typeof reason === 'string' ? reason : undefined;
  if (why === undefined && typeof context.message === 'string') {
    why = context.message;
    delete context.message;
  }
  return relayedError(
    statusCode,
    typeof code === 'string' ? code : fallbackCode,
    why ?? described,
    context,
  );
}

/** Reads a backend's error answer (see backendErrorOf). */
export async function backendError(
  backend: BackendName,
  response: BackendResponse,
): Promise<GatewayError> {
  const text = await response.body.text().catch(() => '');
  return backendErrorOf(backend, response.statusCode, text);
}

/** A backend's JSON answer: the value of a 2xx (undefined for an empty body), otherwise its error. */
export async function jsonAnswer<T>(backend: BackendName, response: BackendResponse): Promise<T> {
  if (response.statusCode < 200 || response.statusCode >= 300)
    throw await backendError(backend, response);
  const text = await bodyText(backend, response);
  const body = parsed(text);
  if (body === undefined && text !== '') {
    throw gatewayError(
      'ERR_BAD_GATEWAY',
      `The ${backend} service answered with something other than JSON.`,
      { backend },
    );
  }
  return body as T;
}

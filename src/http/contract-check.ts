/**
 * The contract check (CONTRACT_CHECK, on in tests only: scripts/test.mjs sets it): every answer the
 * gateway sends is held against the OpenAPI document it publishes (contract.ts), and so is every
 * request answered 2xx. An answer that departs from it, or a request that departs from it but is
 * answered 2xx, becomes 500 `ERR_CONTRACT_VIOLATION` naming the operation, the status the route
 * answered and each departure (an Ajv instance path and message), and is logged: a test that checks
 * only a status fails too. Checked at the gateway's edge, what the client receives: the passthroughs'
 * relayed answers of embedded backends included.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { gatewayError } from '../common/errors.ts';
import { hasBody } from '../common/request-body.ts';
import { tapRequestBody } from './connection-limits.ts';
import {
  Contract,
  isJsonMediaType,
  mediaType,
  type CheckedRequest,
  type ContractDocument,
  type ContractError,
} from './contract.ts';

/** JSON bodies streamed on larger than this are not copied for the check. */
const tappedBodyBytes = 1024 * 1024;

/** Headers of the answer that described the replaced body. */
const entityHeaders = [
  'content-length',
  'content-range',
  'content-disposition',
  'content-encoding',
  'accept-ranges',
  'etag',
  'last-modified',
  'transfer-encoding',
];

const taps = new WeakMap<FastifyRequest, Buffer[]>();

function isStream(payload: unknown): payload is NodeJS.ReadableStream & { destroy(): void } {
  return typeof (payload as { pipe?: unknown } | null)?.pipe === 'function';
}

/** The request as the client sent it, as far as the check reads it. */
function checkedRequest(request: FastifyRequest, route: string): CheckedRequest {
  const contentType = mediaType(request.headers['content-type']);
  const checked: CheckedRequest = {
    method: request.method,
    route,
    params: (request.params ?? {}) as Record<string, unknown>,
    query: (request.query ?? {}) as Record<string, unknown>,
    hasBody: hasBody(request),
    ...(contentType ? { contentType } : {}),
  };
  if (!checked.hasBody || !isJsonMediaType(contentType)) return checked;
  let body: unknown = request.body;
  const tapped = taps.get(request);
  if (body === undefined || body === null) {
    // Streamed on: its copy, when the whole body passed.
    if (!tapped || tapped.length === 0 || !request.raw.readableEnded) return checked;
    body = Buffer.concat(tapped).toString('utf8');
  }
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    try {
      checked.body = JSON.parse(body.toString());
    } catch {
      checked.bodyUnreadable = true;
    }
  } else checked.body = body;
  return checked;
}

function violation(
  request: FastifyRequest,
  reply: FastifyReply,
  route: string | undefined,
  status: number,
  errors: ContractError[],
): string {
  const operation =
    route === undefined
      ? `${request.method} (no route)`
      : Contract.operationName(request.method, route);
  const first = errors[0]!;
  const error = gatewayError(
    'ERR_CONTRACT_VIOLATION',
    `${operation} answered ${status} against its documented contract: ${first.path}: ${first.message}`,
    { operation, status, errors },
  );
  request.log.error({ contract: { operation, status, errors } }, 'contract violation');
  for (const header of entityHeaders) reply.removeHeader(header);
  reply.code(error.statusCode).type('application/json; charset=utf-8');
  return JSON.stringify({ error_code: error.errorCode, reason: error.reason, ...error.extra });
}

/** Holds every answer (and every request answered 2xx) of `app` against its OpenAPI document. */
export function registerContractCheck(app: FastifyInstance): void {
  let contract: Contract | undefined;
  // The document is complete once the gateway is ready, before its first request.
  const contractOf = () =>
    (contract ??= new Contract(structuredClone(app.swagger()) as unknown as ContractDocument));

  app.addHook('onRequest', (request, _reply, done) => {
    const length = Number(request.headers['content-length'] ?? 0);
    if (
      hasBody(request) &&
      length <= tappedBodyBytes &&
      isJsonMediaType(mediaType(request.headers['content-type']))
    )
      taps.set(request, tapRequestBody(request.raw));
    done();
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const contentType = mediaType(reply.getHeader('content-type'));
    const check = (body: unknown) => {
      const route = request.is404 ? undefined : request.routeOptions.url;
      const status = reply.statusCode;
      const checks = contractOf();
      const streamed = isStream(body);
      const errors = checks.checkAnswer(request.method, route, {
        status,
        ...(contentType ? { contentType } : {}),
        ...(streamed ? { streamed: true } : { body: body as string | Buffer | undefined }),
      });
      if (route !== undefined && status >= 200 && status < 300)
        errors.push(...checks.checkRequest(checkedRequest(request, route)));
      if (errors.length === 0) return done(null, body);
      if (streamed) body.destroy();
      done(null, violation(request, reply, route, status, errors));
    };
    // A JSON answer streamed (relayed without a length, or larger than the relay sends at once) is
    // read whole here to be checked, then sent as bytes; other streams are checked by type alone.
    if (isStream(payload) && isJsonMediaType(contentType) && request.method !== 'HEAD')
      readWhole(payload).then(check, (error: Error) => done(error));
    else check(payload);
  });
}

async function readWhole(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

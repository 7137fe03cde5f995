/**
 * The contract check (CONTRACT_CHECK, on in tests only: scripts/test.mjs sets it): every answer the
 * gateway sends is held against the OpenAPI document it publishes (contract.ts), and so is every
 * request answered 2xx. An answer that departs from it, or a request that departs from it but is
 * answered 2xx, becomes 500 `ERR_CONTRACT_VIOLATION` naming the operation, the status the route
 * answered and each departure (an Ajv instance path and message), and is logged: a test that checks
 * only a status fails too. Checked at the gateway's edge, what the client receives: the passthroughs'
 * relayed answers of embedded backends included.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { gatewayError } from '../common/errors.ts';
import { hasBody } from '../common/request-body.ts';
import { tapRequestBody } from './connection-limits.ts';
import type { Forwarder } from './proxy.ts';
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

/** The contracts made in this process, by a digest of the routes and schemas they describe. */
const contracts = new Map<string, Contract>();

/** TypeBox's `Type.Optional` marks a schema with a property JSON leaves out: the document reads it. */
function optionalMarks(route: { schema?: { body?: unknown }; config?: unknown }): boolean {
  const documented = (route.config as { openapi?: { body?: unknown } } | undefined)?.openapi;
  return [route.schema?.body, documented?.body].some(
    (body) => (body as { '~optional'?: unknown } | undefined)?.['~optional'] === true,
  );
}

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

/**
 * Holds every answer (and every request answered 2xx) of `app` against its OpenAPI document. An
 * answer made from what a backend reached by URL answered (a remote service, a test's stand-in) is
 * left alone: the gateway passes on that service's shapes (`documentedNotEnforced`), and the
 * document describes the embedded services'.
 */
export function registerContractCheck(app: FastifyInstance, forwarder: Forwarder): void {
  const remote = new Set<string>();
  forwarder.remoteCallObserver = (requestId) => remote.add(requestId);
  app.addHook('onResponse', (request, _reply, done) => {
    remote.delete(request.id);
    done();
  });
  // The document is complete once the gateway is ready. Making it costs a gateway ≈ 0.2 s:
  // gateways of one process with the same routes and schemas share one.
  const routes: unknown[] = [];
  app.addHook('onRoute', (route) => {
    routes.push([
      route.method,
      route.url,
      route.schema,
      route.config?.openapi,
      optionalMarks(route),
    ]);
  });
  let contract: Contract | undefined;
  const contractOf = () => {
    if (contract) return contract;
    const fingerprint = createHash('sha256').update(JSON.stringify(routes)).digest('base64url');
    contract = contracts.get(fingerprint);
    if (!contract) {
      contract = new Contract(structuredClone(app.swagger()) as unknown as ContractDocument);
      contracts.set(fingerprint, contract);
    }
    routes.length = 0;
    return contract;
  };
  // Made while the gateway gets ready, not on its first request (which tests may time).
  app.addHook('onReady', (done) => {
    contractOf();
    done();
  });

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
    /** The departures of the answer `body` (and of its request), or the failure to judge them. */
    const judge = (body: unknown): ContractError[] | Error => {
      try {
        const route = request.is404 ? undefined : request.routeOptions.url;
        const checks = contractOf();
        // What a remote service answered is that service's to keep (a stand-in's in tests).
        const errors = remote.has(request.id)
          ? []
          : checks.checkAnswer(request.method, route, {
              status: reply.statusCode,
              ...(contentType ? { contentType } : {}),
              ...(isStream(body)
                ? { streamed: true }
                : { body: body as string | Buffer | undefined }),
            });
        if (route !== undefined && reply.statusCode >= 200 && reply.statusCode < 300)
          errors.push(...checks.checkRequest(checkedRequest(request, route)));
        return errors;
      } catch (error) {
        return error as Error;
      }
    };
    // Every way out calls `done` once: a check that throws fails the answer instead of leaving it
    // hanging.
    const check = (body: unknown) => {
      const errors = judge(body);
      if (errors instanceof Error) return done(errors);
      if (errors.length === 0) return done(null, body);
      if (isStream(body)) {
        // Not sent: its reader's own abort error has no one else to hear it.
        body.on('error', () => {});
        body.destroy();
      }
      const route = request.is404 ? undefined : request.routeOptions.url;
      done(null, violation(request, reply, route, reply.statusCode, errors));
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

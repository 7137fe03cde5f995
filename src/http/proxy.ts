import { pipeline, type Readable, type Transform } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Pool, type Dispatcher } from 'undici';
import { type BackendName, type IdentityStyle, backendEnvPrefix } from '../common/backend-names.ts';
import type { BackendSetting } from '../config/index.ts';
import type { Identity } from '../common/identity.ts';
import { jsonAnswer, type BackendResponse } from './backend-answer.ts';
import { requestBody } from './connection-limits.ts';
import { GatewayError, gatewayError } from '../common/errors.ts';
import { backendFailure, failureStatusLabel } from './backend-failure.ts';
import { Relay } from './relay.ts';
import { endToEndHeaders } from './end-to-end-headers.ts';
import { bodyTooLarge, byteLimit, hasBody } from '../common/request-body.ts';
import type { Metrics } from './metrics.ts';
import { qualifiedUsername } from '../common/users.ts';
import { activeTracing } from '../common/tracing.ts';

/** Where a backend lives: a base URL (origin plus path prefix), or a Unix socket for embedded services. */
export interface BackendTarget {
  origin: string;
  basePath: string;
  socketPath?: string;
  timeoutMs: number;
  /** Sent as `X-Backend-Secret`: embedded backends answer only a gateway that holds it. */
  secret?: string;
  /** One of this process's embedded services (src/embedded/host.ts), not a service reached by URL. */
  embedded?: boolean;
}

/** The target of a backend configured by URL (`<NAME>_URL`), or undefined when it has none. */
export function remoteTarget({
  url,
  timeoutMs,
  secret,
}: BackendSetting): BackendTarget | undefined {
  return url
    ? { origin: url.origin, basePath: url.pathname.replace(/\/+$/, ''), timeoutMs, secret }
    : undefined;
}

export interface BackendCall {
  method: string;
  /** Backend path, appended to the target's base path; already encoded. */
  path: string;
  identity?: Identity;
  identityStyle: IdentityStyle;
  /** Extra query parameters; the caller's query string is not forwarded by `call`. */
  query?: Record<string, string | string[] | undefined>;
  /** A JSON value to send. */
  json?: unknown;
  /** Bytes to send as they are (a file's content, say), with their content type; instead of `json`. */
  raw?: { content: string | Readable; contentType: string };
  /** Ends the call early (a client gone, a server closing). */
  signal?: AbortSignal;
  /** Extra request headers (a backend that takes the caller's identity as a signed token, say). */
  headers?: Record<string, string>;
}

/** A client's request as it goes on to a backend (Forwarder.outgoing). */
interface Outgoing {
  pathAndQuery: string;
  headers: Record<string, string | string[]>;
  body: Readable | string | undefined;
  /** Counts a chunked body against the limit; its error is the answer when it trips. */
  limiter: Transform | undefined;
}

export interface ForwardOptions extends Omit<
  BackendCall,
  'query' | 'json' | 'raw' | 'signal' | 'headers'
> {
  /** The raw query string to forward (`a=1&b=2`), identity parameters stripped before use. */
  rawQuery: string;
  /** A parsed JSON body to re-send; when absent, the request body is streamed through. */
  json?: unknown;
  bodyLimitBytes: number;
  /** An answer that may stay open indefinitely (an event stream): no time limit between its bytes. */
  openEnded?: boolean;
}

/** The caller's credentials stop at the gateway: backends trust identity parameters (and the backend secret) instead. */
const credentialHeaders = new Set([
  'authorization',
  'x-vendor-de-jwt',
  'cookie',
  'x-backend-secret',
]);

/**
 * With tracing on, a client's trace context is continued by the gateway's own spans, and the call
 * carries theirs (undici's instrumentation adds it): the client's headers would make a second one.
 */
const credentialAndTraceHeaders = new Set([
  ...credentialHeaders,
  'traceparent',
  'tracestate',
  'baggage',
]);

/** The `data-user` identity parameter saying the caller is an administrator (backend-names.ts). */
export const dataStoreAdminParam = 'data-store-admin';

/** Identity parameters a client must never set itself (backends trust them). */
const identityKeys = new Set([
  'user',
  'email',
  'first-name',
  'last-name',
  'first_name',
  'last_name',
  dataStoreAdminParam,
]);

/**
 * The identity parameters of a call in `style`. `administratorRoles` are the token roles that make
 * the caller an administrator for `data-user` (ADMIN_ROLES and DATA_STORE_ADMIN_ROLES).
 */
export function identityParams(
  style: IdentityStyle,
  identity: Identity | undefined,
  uidDomain: string,
  administratorRoles: readonly string[] = [],
): [string, string][] {
  const user = identity?.username ?? 'anonymous';
  const email = identity?.email ?? (identity ? '' : 'anonymous');
  switch (style) {
    case 'apps':
      return [
        ['user', user],
        ['email', email],
        ['first-name', identity?.firstName ?? ''],
        ['last-name', identity?.lastName ?? ''],
      ];
    case 'notification':
      return [
        ['user', user],
        ['email', email],
        ['first_name', identity?.firstName ?? ''],
        ['last_name', identity?.lastName ?? ''],
      ];
    case 'user':
      return [['user', user]];
    case 'data-user':
      return identity?.roles.some((role) => administratorRoles.includes(role))
        ? [
            ['user', user],
            [dataStoreAdminParam, 'true'],
          ]
        : [['user', user]];
    case 'qualified-user':
      return [['user', qualifiedUsername(user, uidDomain)]];
    case 'path':
    case 'none':
      return [];
  }
}

/** Keeps the client's encoding of every pair, minus identity parameters and `ip-address`. */
function filteredQuery(rawQuery: string): string[] {
  return rawQuery
    .split('&')
    .filter((pair) => pair !== '')
    .filter((pair) => {
      const rawKey = pair.split('=', 1)[0] ?? '';
      let key: string;
      try {
        key = decodeURIComponent(rawKey.replace(/\+/g, ' ')).toLowerCase();
      } catch {
        key = rawKey.toLowerCase();
      }
      return !identityKeys.has(key) && key !== 'ip-address';
    });
}

/** A caller's identity parameters, encoded, by identity style: the same identity (a cached token's) is encoded once. */
type EncodedIdentities = WeakMap<Identity, Partial<Record<IdentityStyle, string>>>;

function identityQuery(
  style: IdentityStyle,
  identity: Identity | undefined,
  uidDomain: string,
  administratorRoles: readonly string[],
  cache: EncodedIdentities,
): string {
  if (style === 'none' || style === 'path') return '';
  const encoded = identity === undefined ? undefined : cache.get(identity);
  const known = encoded?.[style];
  if (known !== undefined) return known;
  const query = encodePairs(identityParams(style, identity, uidDomain, administratorRoles)).join(
    '&',
  );
  if (identity !== undefined) {
    if (encoded) encoded[style] = query;
    else cache.set(identity, { [style]: query });
  }
  return query;
}

function joinQuery(pairs: string[], more: string): string {
  if (more !== '') pairs.push(more);
  return pairs.join('&');
}

function encodePairs(pairs: [string, string][]): string[] {
  return pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`);
}

function objectPairs(query: BackendCall['query']): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) pairs.push([key, item]);
  }
  return pairs;
}

/**
 * The forwarding core: one undici pool per backend, identity added per backend convention,
 * bodies streamed both ways, and backend failures turned into fast 502/503/504 answers.
 */
export class Forwarder {
  private readonly pools = new Map<BackendName, Pool>();
  private readonly encodedIdentities: EncodedIdentities = new WeakMap();
  /** Request headers not sent on (credentials; trace context when tracing is on). */
  private readonly droppedHeaders = activeTracing() ? credentialAndTraceHeaders : credentialHeaders;

  /**
   * Told the request id of each call made for a client's request to a backend reached by URL
   * (not embedded): the contract check (contract-check.ts) leaves such answers alone, since the
   * gateway passes on what that service answers. Unset outside it.
   */
  remoteCallObserver: ((requestId: string) => void) | undefined;

  private readonly targets: Partial<Record<BackendName, BackendTarget>>;
  private readonly uidDomain: string;
  private readonly metrics: Metrics;
  private readonly administratorRoles: readonly string[];
  /**
   * `administratorRoles`: the token roles that make a caller an administrator of the data store
   * (the `data-user` identity style); none where no call made needs it.
   */
  constructor(
    targets: Partial<Record<BackendName, BackendTarget>>,
    uidDomain: string,
    metrics: Metrics,
    administratorRoles: readonly string[] = [],
  ) {
    this.targets = targets;
    this.uidDomain = uidDomain;
    this.metrics = metrics;
    this.administratorRoles = administratorRoles;
  }

  target(backend: BackendName): BackendTarget {
    const target = this.targets[backend];
    if (!target) {
      throw gatewayError(
        'ERR_NOT_IMPLEMENTED',
        `The ${backend} service is not part of this deployment; set ${backendEnvPrefix(backend)}_URL to reach one.`,
        { backend },
      );
    }
    return target;
  }

  private pool(backend: BackendName): Pool {
    let pool = this.pools.get(backend);
    if (!pool) {
      const target = this.target(backend);
      pool = new Pool(target.origin, {
        connections: 128,
        connectTimeout: Math.min(target.timeoutMs, 5_000),
        headersTimeout: target.timeoutMs,
        bodyTimeout: target.timeoutMs,
        ...(target.socketPath ? { socketPath: target.socketPath } : {}),
      });
      this.pools.set(backend, pool);
    }
    return pool;
  }

  /**
   * Sends a request to a backend; the caller reads (or dumps) the body. `headers` is the call's
   * own object: the backend secret, when the target has one, is added to it.
   */
  async request(
    backend: BackendName,
    method: string,
    pathAndQuery: string,
    headers: Record<string, string | string[]>,
    body: Readable | string | undefined,
    signal?: AbortSignal,
    openEnded = false,
  ): Promise<BackendResponse> {
    const target = this.target(backend);
    const started = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      if (target.secret) headers['x-backend-secret'] = target.secret;
      const response = await this.pool(backend).request({
        method: method as Dispatcher.HttpMethod,
        path: target.basePath + pathAndQuery,
        headers,
        body,
        signal,
        // undefined keeps the pool's body timeout; 0 lifts it for answers that stay open.
        bodyTimeout: openEnded ? 0 : undefined,
      });
      this.metrics.backendDuration.series(backend, response.statusCode).observe(elapsed());
      return {
        statusCode: response.statusCode,
        headers: response.headers,
        body: response.body,
        timeoutMs: target.timeoutMs,
      };
    } catch (error) {
      const failure = backendFailure(backend, target.timeoutMs, error);
      this.metrics.backendDuration.series(backend, failureStatusLabel(failure)).observe(elapsed());
      throw failure;
    }
  }

  /**
   * A backend call the gateway makes itself (JSON or raw bytes in, response handed back): the one
   * place, besides `exchange`, that builds a backend URL with identity parameters.
   */
  async call(
    backend: BackendName,
    call: BackendCall,
    requestId?: string,
  ): Promise<BackendResponse> {
    const query = [
      ...encodePairs(
        identityParams(call.identityStyle, call.identity, this.uidDomain, this.administratorRoles),
      ),
      ...encodePairs(objectPairs(call.query)),
    ];
    const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
    if (requestId) headers['x-request-id'] = requestId;
    if (requestId && !this.targets[backend]?.embedded) this.remoteCallObserver?.(requestId);
    let body: string | Readable | undefined;
    if (call.raw !== undefined) {
      body = call.raw.content;
      headers['content-type'] = call.raw.contentType;
    } else if (call.json !== undefined) {
      body = JSON.stringify(call.json);
      headers['content-type'] = 'application/json';
    }
    return this.request(
      backend,
      call.method,
      call.path + (query.length ? `?${query.join('&')}` : ''),
      headers,
      body,
      call.signal,
    );
  }

  /**
   * A backend call whose JSON answer the gateway uses itself. A non-2xx answer becomes a
   * GatewayError with the backend's status and its error body (see `backendError`).
   */
  async callJson<T>(backend: BackendName, call: BackendCall, requestId?: string): Promise<T> {
    return jsonAnswer<T>(backend, await this.call(backend, call, requestId));
  }

  /**
   * What a client's request becomes on its way to a backend: the backend path with the client's
   * query (identity parameters stripped) and the caller's identity parameters, end-to-end headers
   * plus X-Forwarded-* and the request id, and the body (re-sent JSON, or the client's bytes
   * streamed, counted against the limit when their length is not declared).
   */
  private outgoing(request: FastifyRequest, options: ForwardOptions): Outgoing {
    const identity = identityQuery(
      options.identityStyle,
      options.identity,
      this.uidDomain,
      this.administratorRoles,
      this.encodedIdentities,
    );
    const query =
      options.rawQuery === '' ? identity : joinQuery(filteredQuery(options.rawQuery), identity);
    const headers = endToEndHeaders(request.headers, this.droppedHeaders);
    // Behind a trusted proxy the chain grows by the peer; otherwise a client-sent chain is not believed.
    // `ips` holds the peer and the forwarded addresses believed (TRUST_PROXY), so more than one
    // means the peer is a trusted proxy; a peer not among listed proxies has `ips` = [itself].
    const priorFor = request.headers['x-forwarded-for'];
    headers['x-forwarded-for'] =
      request.ips && request.ips.length > 1 && priorFor
        ? `${priorFor}, ${request.socket.remoteAddress}`
        : request.ip;
    headers['x-forwarded-proto'] = request.protocol;
    headers['x-forwarded-host'] = request.host;
    headers['x-request-id'] = request.id;

    let body: Readable | string | undefined;
    let limiter: Transform | undefined;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    } else if (request.method !== 'GET' && request.method !== 'HEAD' && hasBody(request)) {
      const tooLarge = () => bodyTooLarge(options.bodyLimitBytes);
      // A declared length over the limit is refused before any byte is sent on; the rest are counted.
      if (Number(request.headers['content-length'] ?? 0) > options.bodyLimitBytes) throw tooLarge();
      // requestBody, not request.raw: a failure here must not destroy the request, whose
      // connection still carries the answer. A client that aborts mid-upload (or stalls past its
      // deadline) fails that stream, and with it the backend's body.
      if (request.headers['content-length'] !== undefined) {
        // Node's parser delivers exactly the declared length, already checked: nothing to count,
        // and one stream less for every chunk of a large upload.
        body = requestBody(request);
      } else {
        // Chunked: only counting can tell. pipeline ties both ends.
        limiter = byteLimit(options.bodyLimitBytes, tooLarge);
        pipeline(requestBody(request), limiter, () => {});
        body = limiter;
      }
    } else {
      delete headers['content-length'];
      delete headers['content-type'];
    }
    return {
      pathAndQuery: options.path + (query === '' ? '' : `?${query}`),
      headers,
      body,
      limiter,
    };
  }

  /**
   * Sends a client's request on to a backend (body streamed, identity added, client abort
   * cancelling the call) and hands back the backend's answer for the caller to relay or reshape.
   */
  async exchange(
    request: FastifyRequest,
    reply: FastifyReply,
    backend: BackendName,
    options: ForwardOptions,
  ): Promise<BackendResponse> {
    const { pathAndQuery, headers, body, limiter } = this.outgoing(request, options);
    if (!this.targets[backend]?.embedded) this.remoteCallObserver?.(request.id);
    // A client that goes away cancels its backend call.
    const abort = new AbortController();
    const onClose = () => {
      if (!reply.raw.writableFinished) abort.abort();
    };
    reply.raw.once('close', onClose);

    return this.request(
      backend,
      options.method,
      pathAndQuery,
      headers,
      body,
      abort.signal,
      options.openEnded,
    ).catch((error: unknown) => {
      // A body over the limit surfaces as the backend call failing; report the limit, not the backend.
      throw limiter?.errored instanceof GatewayError ? limiter.errored : error;
    });
  }

  /**
   * Relays a client request to a backend and the backend's answer to the client, unchanged. It
   * drives undici's dispatcher directly (see Relay): the answer's headers are copied from the raw
   * header list and a small answer is sent in one write, with no response stream, promise or
   * abort signal per request. Failures reach the reply as GatewayErrors (502/503/504, 413).
   */
  forward(
    request: FastifyRequest,
    reply: FastifyReply,
    backend: BackendName,
    options: ForwardOptions,
  ): FastifyReply {
    const target = this.target(backend);
    const { pathAndQuery, headers, body, limiter } = this.outgoing(request, options);
    if (target.secret) headers['x-backend-secret'] = target.secret;
    if (!target.embedded) this.remoteCallObserver?.(request.id);
    const relay = new Relay(reply, {
      backend,
      timeoutMs: target.timeoutMs,
      metrics: this.metrics,
      openEnded: options.openEnded === true,
      head: request.method === 'HEAD',
      body,
      limiter,
    });
    // `on`, not `once`: a response closes once, and `once` wraps the listener anew per request.
    reply.raw.on('close', relay.onClientClose);
    this.pool(backend).dispatch(
      {
        method: options.method as Dispatcher.HttpMethod,
        path: target.basePath + pathAndQuery,
        headers,
        body,
        // undefined keeps the pool's body timeout; 0 lifts it for answers that stay open.
        bodyTimeout: options.openEnded ? 0 : undefined,
      },
      relay,
    );
    return reply;
  }

  /** Closes the pools: calls in flight get `graceMs` to finish, then their connections are destroyed. */
  async close(graceMs = 2_000): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(
      pools.map(async (pool) => {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>(
          (resolve) => (timer = setTimeout(() => resolve('late'), graceMs)),
        );
        const outcome = await Promise.race([pool.close().then(() => 'closed' as const), late]);
        clearTimeout(timer);
        if (outcome === 'late') await pool.destroy();
      }),
    );
  }
}

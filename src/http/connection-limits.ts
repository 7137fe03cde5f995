// Connection-level limits of a listener: how long request headers and bodies may take, how Node's own
// answers (408, 431, 400) carry an error_code, how a connection whose request body is left unread is
// closed without resetting the answer, and how long `close()` waits for connections before cutting them.
import {
  STATUS_CODES,
  type IncomingMessage,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { GatewayError, errorTable, gatewayError, type ErrorCode } from '../common/errors.ts';
import { hasBody } from '../common/request-body.ts';

export interface ConnectionLimits {
  /** All request headers must arrive within this (HEADERS_TIMEOUT_MS); Node answers 408 otherwise. */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this (KEEP_ALIVE_TIMEOUT_MS). */
  keepAliveTimeoutMs: number;
  /** How long `close()` lets requests in flight finish before their connections are destroyed (SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
}

/**
 * After answering a request whose body has not all arrived, the connection is closed, but only
 * once the client has had time to read the answer: closing a socket with unread bytes (the rest of
 * the body still coming) sends a reset, which makes the client's TCP stack drop the answer. Until
 * then the rest of the body is read and thrown away (nginx's "lingering close", Go's rstAvoidanceDelay).
 */
export const LINGER_MS = 2_000;

/** Node checks header deadlines on a timer: often enough that a deadline is kept to within a quarter. */
const checkingInterval = (headersTimeoutMs: number) =>
  Math.max(10, Math.min(1_000, Math.floor(headersTimeoutMs / 4)));

function errorResponse(errorCode: ErrorCode, reason: string): string {
  const status = errorTable[errorCode].status;
  const body = JSON.stringify({ error_code: errorCode, reason });
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Node's parse and timeout errors (ConnectionError codes) as the gateway's `{error_code, reason}`. */
function clientErrorAnswer(code: string | undefined, limits: ConnectionLimits): string {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return errorResponse(
        'ERR_REQUEST_TIMEOUT',
        `The request headers did not arrive within ${limits.headersTimeoutMs} ms`,
      );
    case 'HPE_HEADER_OVERFLOW':
      return errorResponse(
        'ERR_HEADERS_TOO_LARGE',
        'The request line and headers are larger than the server accepts',
      );
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return errorResponse(
        'ERR_REQUEST_BODY_TOO_LARGE',
        'The chunk extensions of the request body are larger than the server accepts',
      );
    default:
      return errorResponse('ERR_BAD_REQUEST', `Malformed HTTP request${code ? ` (${code})` : ''}`);
  }
}

/** Responses in flight per connection: a client error after one has started must not write into it. */
const responses = new WeakMap<Socket, ServerResponse>();
/** Sockets already answered or being closed: Node reports every later parse error of them again. */
const closing = new WeakSet<Socket>();

/** Ends `socket` (its answer written) and destroys it once the client closes too, or after LINGER_MS. */
function lingerThenClose(socket: Socket): void {
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  // The client has closed its side: once the answer is flushed, nothing can meet a closed socket any more.
  socket.once('end', () => {
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
  });
  socket.resume();
}

/**
 * The listener's options for Fastify: header deadline, keep-alive, no whole-request deadline (bodies
 * get their own, see `registerBodyDeadlines`: Node's would cut a large upload that is still progressing),
 * and Node's own error answers as JSON with an error_code.
 */
export function connectionServerOptions(limits: ConnectionLimits): {
  http: ServerOptions;
  requestTimeout: number;
  connectionTimeout: number;
  keepAliveTimeout: number;
  clientErrorHandler: (this: FastifyInstance, error: Error, socket: Socket) => void;
} {
  const http: ServerOptions = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: 0,
    connectionsCheckingInterval: checkingInterval(limits.headersTimeoutMs),
  };
  return {
    http,
    requestTimeout: 0,
    connectionTimeout: 0,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    clientErrorHandler(this: FastifyInstance, error, socket) {
      if (closing.has(socket)) return;
      closing.add(socket);
      const code = (error as { code?: string }).code;
      const response = responses.get(socket);
      // As Node does: answer only when nothing of a response has been written yet, else the peer gets garbage.
      const answerable =
        socket.writable &&
        code !== 'ECONNRESET' &&
        code !== 'EPIPE' &&
        !(response?.headersSent && !response.writableFinished);
      this.log.debug({ err: error }, 'client error');
      if (!answerable) {
        socket.destroy();
        return;
      }
      socket.end(clientErrorAnswer(code, limits));
      lingerThenClose(socket);
    },
  };
}

/**
 * Registers what every listener does with its connections: a request answered before its body has
 * all arrived (refused early, over a limit, timed out) is answered with `Connection: close` and closed
 * after a linger (`LINGER_MS`), its remaining body read and discarded; and `close()` destroys the
 * connections still open `shutdownGraceMs` after it starts (idle keep-alive ones are closed at once).
 */
export function registerConnectionHandling(app: FastifyInstance, limits: ConnectionLimits): void {
  // Connections that have not sent a byte yet: idle for shutdown's purposes, though Node counts them
  // as waiting for headers (a client's spare connection would otherwise hold close() for the grace).
  const silent = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    silent.add(socket);
    socket.once('close', () => silent.delete(socket));
  });
  app.addHook('onRequest', (request, reply, done) => {
    silent.delete(request.raw.socket);
    responses.set(request.raw.socket, reply.raw);
    done();
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    if (hasBody(request) && !request.raw.complete) closeAfterAnswer(request.raw, reply);
    done(null, payload);
  });

  app.addHook('preClose', (done) => {
    const server = app.server;
    for (const socket of silent) if (socket.bytesRead === 0) socket.destroy();
    const cut = setTimeout(() => server.closeAllConnections(), limits.shutdownGraceMs);
    cut.unref();
    server.once('close', () => clearTimeout(cut));
    done();
  });
}

/** Marks the answer `Connection: close` and takes over Node's close of the socket once it is written. */
function closeAfterAnswer(raw: IncomingMessage, reply: FastifyReply): void {
  const socket = raw.socket;
  reply.header('connection', 'close');
  if (closing.has(socket)) return;
  closing.add(socket);
  // Node ends and then destroys a `Connection: close` socket as soon as the answer is written (its
  // `destroySoon`); destroying it while the body still arrives would reset the answer. Ending it and
  // lingering instead is the same close, only later.
  (socket as Socket & { destroySoon(): void }).destroySoon = () => {
    socket.end();
    lingerThenClose(socket);
  };
  reply.raw.once('finish', () => {
    // The answer is out, so nothing needs the rest of the body: whoever read it stops (a backend
    // upload is cancelled), and it keeps flowing, into nothing.
    watches.get(raw)?.abandon();
    raw.unpipe();
    raw.resume();
  });
}

// ---- Body deadlines (the gateway's listener) ----

/**
 * The least a body must average (BODY_MIN_BYTES_PER_SECOND, 0 for no minimum) over the last
 * `windowMs` (BODY_MIN_RATE_WINDOW_MS), measured once a whole window has passed: a body trickled a
 * byte at a time never stalls, yet holds its connection for ever.
 */
export interface MinimumBodyRate {
  bytesPerSecond: number;
  windowMs: number;
}

const watches = new WeakMap<IncomingMessage, BodyWatch>();

/**
 * Watches one request body that had not all arrived when the request began. The body fails with
 * 408 ERR_REQUEST_TIMEOUT when no byte arrives for `timeoutMs` while the gateway is ready to read
 * (a stall), when it averages less than the minimum rate over a window (a trickle), and, for a body
 * the gateway buffers (parsed JSON or text), when it has not all arrived `timeoutMs` after the
 * request began. A streamed body (an upload on its way to a backend) has no overall deadline:
 * however large, it lives as long as it keeps moving at the minimum rate.
 */
class BodyWatch {
  private readonly timer: NodeJS.Timeout;
  private stream?: PassThrough;
  private lastBytes: number;
  private lastProgress = Date.now();
  private deadline: number | undefined;
  private failure?: GatewayError;
  /**
   * Bytes read from the socket at each check since the rate window last restarted, oldest first:
   * the rate is what arrived between the newest and the one a window earlier.
   */
  private samples: { at: number; bytes: number }[];

  private readonly raw: IncomingMessage;
  private readonly timeoutMs: number;
  private readonly minRate: MinimumBodyRate;
  private readonly tickMs: number;
  private lastCheck: number;

  constructor(
    raw: IncomingMessage,
    answer: ServerResponse,
    timeoutMs: number,
    minRate: MinimumBodyRate,
  ) {
    this.raw = raw;
    this.timeoutMs = timeoutMs;
    this.minRate = minRate;
    this.lastBytes = raw.socket.bytesRead;
    this.deadline = Date.now() + timeoutMs;
    this.samples = [{ at: Date.now(), bytes: this.lastBytes }];
    const rateTick = minRate.bytesPerSecond > 0 ? Math.floor(minRate.windowMs / 5) : Infinity;
    this.tickMs = Math.max(10, Math.min(1_000, Math.floor(timeoutMs / 5), rateTick));
    this.lastCheck = Date.now();
    this.timer = setInterval(() => this.check(), this.tickMs);
    this.timer.unref();
    // Watched until the answer is sent, or the request goes (its client gone first).
    answer.once('finish', () => this.stop());
    raw.once('close', () => this.stop());
  }

  /** The body as consumers read it: a stream this watch can fail without touching the connection. */
  body(): Readable {
    if (this.failure) throw this.failure;
    this.stream ??= detachedBody(this.raw);
    return this.stream;
  }

  /** The route streams its body on: from now on only stalls end it. */
  streamed(): void {
    this.deadline = undefined;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The request has been answered: its readers get a premature close. */
  abandon(): void {
    this.stop();
    if (this.stream && !this.stream.destroyed) {
      this.raw.unpipe(this.stream);
      this.stream.destroy();
    }
  }

  private check(): void {
    const raw = this.raw;
    if (raw.complete || raw.destroyed) return this.stop();
    const now = Date.now();
    const bytes = raw.socket?.bytesRead ?? this.lastBytes;
    // Checks far apart mean this process could not run (a long GC pause, a starved CPU, a blocked
    // event loop): it read nothing then, whatever the client sent, so that time is not the client's
    // to be measured by (a stall, counted in whole BODY_TIMEOUT_MS, is left to the timeout).
    const lagged = now - this.lastCheck > 2 * this.tickMs;
    this.lastCheck = now;
    // Below its high-water mark the request stream reads the socket: if nothing comes, the client is
    // not sending. Above it, the gateway holds the body back (a slow backend): that is no stall.
    const waitingOnClient = raw.readableLength < raw.readableHighWaterMark;
    if (bytes !== this.lastBytes || !waitingOnClient) {
      this.lastBytes = bytes;
      this.lastProgress = now;
    }
    if (now - this.lastProgress >= this.timeoutMs) {
      this.fail(`No bytes of the request body arrived for ${this.timeoutMs} ms`);
    } else if (this.deadline !== undefined && now >= this.deadline) {
      this.fail(`The request body did not arrive within ${this.timeoutMs} ms`);
    } else {
      const rate = this.rateOverWindow(now, bytes, waitingOnClient && !lagged);
      if (rate !== undefined && rate < this.minRate.bytesPerSecond)
        this.fail(
          `The request body arrived at ${rate.toFixed(1)} bytes/s over the last ${this.minRate.windowMs} ms, under the minimum of ${this.minRate.bytesPerSecond}`,
        );
    }
  }

  /**
   * The body's average rate (bytes/s) over the last window, once a whole window has been watched
   * (the grace period); undefined before, or with no minimum. Time the gateway holds the body back
   * (a slow backend), or could not read at all (`check`'s lag), restarts the window: the client
   * could not send then, or was not heard.
   */
  private rateOverWindow(now: number, bytes: number, waitingOnClient: boolean): number | undefined {
    if (this.minRate.bytesPerSecond <= 0) return undefined;
    if (!waitingOnClient) {
      this.samples = [{ at: now, bytes }];
      return undefined;
    }
    this.samples.push({ at: now, bytes });
    const windowStart = now - this.minRate.windowMs;
    // Keep one sample at or before the window's start (the baseline), none older.
    while (this.samples.length > 1 && this.samples[1]!.at <= windowStart) this.samples.shift();
    const baseline = this.samples[0]!;
    if (baseline.at > windowStart) return undefined;
    return ((bytes - baseline.bytes) * 1000) / (now - baseline.at);
  }

  private fail(reason: string): void {
    this.stop();
    this.failure = gatewayError('ERR_REQUEST_TIMEOUT', reason);
    // Unhooked from the request first: failing the stream must not destroy the request (and its socket).
    if (this.stream) {
      this.raw.unpipe(this.stream);
      this.stream.destroy(this.failure);
    }
  }
}

/**
 * A copy of the request body that its reader may destroy (a body over a limit, a backend that
 * failed) without destroying the request, and with it the connection that carries the answer.
 * A client gone before its body arrived fails it.
 */
function detachedBody(raw: IncomingMessage): PassThrough {
  const stream = new PassThrough();
  // Readers see a failure through their own listeners (parser, pipeline); none may crash the process.
  stream.on('error', () => {});
  raw.pipe(stream);
  // A second listener beside the pipe's sees the same chunks, and leaves the flow to the pipe.
  const tap = bodyTaps.get(raw);
  if (tap) raw.on('data', (chunk: Buffer) => tap.push(chunk));
  raw.once('close', () => {
    if (!raw.complete)
      stream.destroy(
        Object.assign(new Error('the client closed the connection before its body arrived'), {
          code: 'ECONNRESET',
        }),
      );
  });
  return stream;
}

const detached = new WeakMap<IncomingMessage, Readable>();

/** Requests whose streamed body is copied as it passes (tapRequestBody). */
const bodyTaps = new WeakMap<IncomingMessage, Buffer[]>();

/**
 * The chunks of a request body that a route streams on (requestBody), copied as they pass: the
 * contract check (contract-check.ts, on in tests only) reads a streamed JSON body this way. Call it
 * before the body is read; the array fills as the body flows.
 */
export function tapRequestBody(raw: IncomingMessage): Buffer[] {
  let chunks = bodyTaps.get(raw);
  if (!chunks) {
    chunks = [];
    bodyTaps.set(raw, chunks);
  }
  return chunks;
}

/**
 * The body of `request` as the gateway's handlers read it (streamed on to a backend, say): the
 * watched stream when the body has a deadline, else a detached copy (see detachedBody).
 */
export function requestBody(request: FastifyRequest): Readable {
  const watched = watches.get(request.raw)?.body();
  if (watched) return watched;
  let body = detached.get(request.raw);
  if (!body) {
    body = detachedBody(request.raw);
    detached.set(request.raw, body);
  }
  return body;
}

/** Methods whose body Fastify never parses (its `bodyless` methods): only a route streams theirs. */
export const unparsedBodyMethods = new Set(['GET', 'HEAD', 'TRACE']);

/**
 * Body deadlines (BODY_TIMEOUT_MS), see BodyWatch. Fastify's parsers read the watched stream (a
 * preParsing hook hands it to them); routes that stream the body read it through `requestBody`.
 *
 * Only routes with a method whose body Fastify may parse get the preHandler hook, and a watch stops
 * when its answer is sent instead of in an onResponse hook: a hook stage costs every request that
 * passes it (a closure and a call per hook), and GET routes, most of the traffic, have nothing for
 * them to do (bench/README.md). preParsing stays on every route: Fastify builds the not-found
 * answer's hooks from the global ones, out of `onRoute`'s sight, and a body trickled to a path no
 * route serves must keep its deadline too.
 */
export function registerBodyDeadlines(
  app: FastifyInstance,
  bodyTimeoutMs: number,
  minRate: MinimumBodyRate = { bytesPerSecond: 0, windowMs: 30_000 },
): void {
  // Callback-style hooks: every request passes them, and an async hook costs a promise each.
  app.addHook('onRequest', (request, reply, done) => {
    if (hasBody(request) && !request.raw.complete) {
      const watch = new BodyWatch(request.raw, reply.raw, bodyTimeoutMs, minRate);
      watches.set(request.raw, watch);
      // Never parsed, such a body is the route's to stream (or nobody's): only stalls end it.
      if (unparsedBodyMethods.has(request.method)) watch.streamed();
    }
    done();
  });
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const watch = watches.get(request.raw);
    if (!watch) return done(null, payload);
    try {
      done(null, watch.body());
    } catch (error) {
      done(error as Error);
    }
  });
  const preHandler: preHandlerHookHandler = (request, _reply, done) => {
    // A body parsed by Fastify has all arrived by now; one still arriving is the route's to stream.
    if (!request.raw.complete) watches.get(request.raw)?.streamed();
    done();
  };
  app.addHook('onRoute', (route) => {
    if ([route.method].flat().every((method) => unparsedBodyMethods.has(method))) return;
    route.preHandler = [...[route.preHandler ?? []].flat(), preHandler];
  });
}

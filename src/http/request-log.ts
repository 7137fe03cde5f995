// The gateway's request log: one line per request (method, route, status, duration, user, request
// id), and logger settings that keep credentials out of every line.
import { hostname } from 'node:os';
import { destination, levels, symbols, type Logger } from 'pino';
import {
  LogController,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { routeLabel } from './matched-route.ts';

/** Query parameters that carry credentials (a `?token=` from clients that cannot set headers, OAuth codes). */
const secretParameters = new Set([
  'token',
  'access_token',
  'id_token',
  'refresh_token',
  'code',
  'client_secret',
  'password',
  'jwt',
]);

/** `url` with the value of every credential-carrying query parameter replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const questionMark = url.indexOf('?');
  if (questionMark === -1) return url;
  const pairs = url
    .slice(questionMark + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const rawName = equals === -1 ? pair : pair.slice(0, equals);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // A malformed escape in the name: compare it as sent.
      }
      return equals !== -1 && secretParameters.has(name.toLowerCase())
        ? `${rawName}=[redacted]`
        : pair;
    });
  return `${url.slice(0, questionMark)}?${pairs.join('&')}`;
}

/** Where credentials could sit in a logged object; pino replaces them wherever they appear. */
const redactedPaths = ['req.headers', 'headers', 'res.headers'].flatMap((object) =>
  ['authorization', 'cookie', 'x-vendor-de-jwt', 'set-cookie'].map(
    (header) => `${object}["${header}"]`,
  ),
);

/**
 * pino settings for every process of the platform (gateway, standalone backends): a request
 * serializer without headers and with a redacted URL, and header credentials redacted should
 * anything log them.
 */
export function loggerSettings(level: string) {
  return {
    level,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    serializers: {
      req: (request: { method?: string; url?: string; ip?: string }) => ({
        method: request.method,
        url: redactUrl(request.url ?? ''),
        remoteAddress: request.ip,
      }),
    },
  };
}

/** The longest write to a pipe that POSIX keeps whole (Linux: 4096 bytes). */
const PIPE_BUF = 4096;

/**
 * Standard output for log lines, written asynchronously by pino's own destination (sonic-boom)
 * in its buffer mode, each line handed over as a Buffer. In its default (string) mode sonic-boom
 * appends each line to the text still waiting for the write in flight and measures that whole
 * text's UTF-8 length on every write, which makes V8 copy it flat each time: under load, with a
 * few kilobytes waiting, that copy was ≈ 5 KB of garbage per request line (bench/README.md). In
 * buffer mode lines wait as a list of Buffers with their lengths kept as numbers, joined once per
 * write.
 *
 * One process writes in batches: a write waits for 8 KiB of lines (or 200 ms, whichever comes
 * first), since each write's completion is a callback through libuv's thread pool, and writing
 * whatever had gathered during the last one (≈ 15 lines under load) cost ≈ 0.5 µs per request line
 * (bench/README.md). Worker processes (WORKERS) share the primary's standard output instead, and a
 * write to a pipe is whole only up to PIPE_BUF (4 KiB on Linux): a longer one may be split and
 * interleaved with another worker's, cutting lines in two. So a worker's writes hold whole lines,
 * 4 KiB at most, and go as soon as they can. pino flushes what waits when the process exits.
 */
function stdoutLines(shared: boolean): { write(line: string): void } {
  const out = destination({
    dest: 1,
    sync: false,
    contentMode: 'buffer',
    ...(shared ? { maxWrite: PIPE_BUF } : { minLength: 8192, periodicFlush: 200 }),
  });
  // `out.write` is looked up on each call: on EPIPE pino swaps it for a no-op. sonic-boom's types
  // know only its string mode; in buffer mode its write takes a Buffer.
  return { write: (line) => out.write(Buffer.from(line) as unknown as string) };
}

/**
 * Fastify's `logger` and `logController` options for the gateway: loggerSettings, and no
 * per-request lines from Fastify (registerRequestLog writes the one line). Lines go to stdout
 * asynchronously: a synchronous write per request line cost the request path a system call
 * each; written asynchronously, lines logged while a write is in flight go out together. pino
 * flushes what is pending when the process exits.
 */
export function gatewayLoggerOptions(
  level: string,
  stream?: { write(line: string): void },
  /** The cluster worker's id (WORKERS>1): every line says which worker wrote it. */
  worker?: number,
): Pick<FastifyServerOptions, 'logger' | 'logController'> {
  return {
    logger: {
      ...loggerSettings(level),
      stream: stream ?? stdoutLines(worker !== undefined),
      ...(worker !== undefined ? { base: { pid: process.pid, hostname: hostname(), worker } } : {}),
    },
    logController: new LogController({ disableRequestLogging: true }),
  };
}

/** Requests already logged: a response that fails after its client went away could report twice. */
declare module 'fastify' {
  interface FastifyRequest {
    /** performance.now() when the request was routed (the log's duration for an aborted one). */
    receivedAt: number;
    /** Whether its log line is written: each request gets one. */
    requestLogged: boolean;
  }
}

interface Outcome {
  status: number;
  durationMs: number;
  aborted?: boolean;
}

const infoLevel = levels.values.info!;

/** The pieces of a pino logger that its `info()` joins into a line (pino's `asJson`). */
interface PinoLinePieces {
  /** `{"level":30` for each level. */
  [symbols.lsCacheSym]: Record<number, string>;
  /** `,"time":…`. */
  [symbols.timeSym]: () => string;
  /** The bindings, base and child: `,"pid":…,"hostname":…,"reqId":…`. */
  [symbols.chindingsSym]: string;
  /** `}` and the line end. */
  [symbols.endSym]: string;
  [symbols.streamSym]: { write(line: string): void };
}

/** A character JSON escapes, or one outside ASCII (left to JSON.stringify: lone surrogates). */
const needsEscaping = /["\\\u0000-\u001f\u007f-\uffff]/;

/**
 * `text` as a JSON string. Most URLs, routes and user names need no escaping, and JSON.stringify
 * is a call into V8's C++ runtime each time; a regular expression's test is not.
 */
function quoted(text: string): string {
  return needsEscaping.test(text) ? JSON.stringify(text) : '"' + text + '"';
}

/** `ms` rounded to a tenth, as JSON writes that number, from integers (a fraction's text is V8's slow path). */
function tenthsText(ms: number): string {
  const tenths = Math.round(ms * 10);
  const whole = Math.floor(tenths / 10);
  const tenth = tenths - whole * 10;
  return tenth === 0 ? String(whole) : `${whole}.${tenth}`;
}

/**
 * The request line, joined here from the pieces pino would join for
 * `request.log.info({ method, route, url, status, aborted, durationMs, user }, 'request completed')`
 * and written to the same stream, so it is the line pino writes (a test compares the two). Every
 * request writes one, and through pino's general path (a loop over the object's keys, serializer
 * and redaction lookups, each value's escaping checked, a fraction's text) the line was ≈ 16,000
 * of a `/uuid` request's ≈ 114,000 instructions; joined here, ≈ 8,000 (bench/README.md "Sixth
 * pass"). The method needs no escaping (Node's parser accepts only known methods); the route,
 * the URL and the user are quoted, escaped only when they need it. gatewayLoggerOptions sets no
 * formatters, mixin or message key that pino would apply to a line.
 */
function logOnce(request: FastifyRequest, outcome: Outcome): void {
  if (request.requestLogged) return;
  request.requestLogged = true;
  const pieces = request.log as Logger & PinoLinePieces;
  if (!pieces.isLevelEnabled('info')) return;
  const user = request.identity?.username;
  pieces[symbols.streamSym].write(
    pieces[symbols.lsCacheSym][infoLevel] +
      pieces[symbols.timeSym]() +
      pieces[symbols.chindingsSym] +
      ',"method":"' +
      request.method +
      '","route":' +
      quoted(routeLabel(request)) +
      ',"url":' +
      quoted(redactUrl(request.url)) +
      ',"status":' +
      outcome.status +
      (outcome.aborted ? ',"aborted":true' : '') +
      ',"durationMs":' +
      tenthsText(outcome.durationMs) +
      (user === undefined ? '' : ',"user":' + quoted(user)) +
      ',"msg":"request completed"' +
      pieces[symbols.endSym],
  );
}

/** The request's one log line; `route` is the matched route's pattern, `unmatched` for 404s and requests refused before routing. */
export function logRequest(request: FastifyRequest, reply: FastifyReply): void {
  logOnce(request, { status: reply.statusCode, durationMs: reply.elapsedTime });
}

/** The line of a request whose client left before its answer was complete: status 499, `aborted: true`. */
export function logAbortedRequest(request: FastifyRequest): void {
  logOnce(request, {
    status: 499,
    aborted: true,
    durationMs: request.receivedAt === 0 ? 0 : performance.now() - request.receivedAt,
  });
}

/** The binding Fastify gives each request's child logger (its default `requestIdLogLabel`). */
const requestIdLabel = 'reqId';

/**
 * Fastify makes each request's logger with `logger.child({ reqId }, {})`: an options object even
 * when it has none to give, which sends pino down its general path (the formatters rebuilt, each
 * option looked up, the binding serialized through its stringifiers); the child was ≈ 2.7 % of a
 * `/uuid` request's instructions, 0.8 % when made as here (bench/README.md "Eighth pass"). For
 * exactly that call, this makes the child pino would make — the server's logger as prototype, the
 * formatters pino gives every child, the binding appended to the bindings as JSON — directly; any
 * other call (other bindings, real options, a child of a child) goes to pino. A test compares its
 * lines with pino's own.
 */
function makeRequestChildrenDirectly(logger: Logger): void {
  const pinoChild = logger.child;
  const childFormatters = (pinoChild.call(logger, {}) as unknown as Record<symbol, unknown>)[
    symbols.formattersSym
  ];
  logger.child = function (this: Logger, bindings, options) {
    const id: unknown = bindings[requestIdLabel];
    if (
      this !== logger ||
      typeof id !== 'string' ||
      !hasOnlyKey(bindings, requestIdLabel) ||
      !isEmpty(options)
    )
      return pinoChild.call(this, bindings, options);
    const child = Object.create(this) as Logger & Record<symbol, unknown>;
    child[symbols.formattersSym] = childFormatters;
    child[symbols.chindingsSym] =
      (this as unknown as PinoLinePieces)[symbols.chindingsSym] +
      `,"${requestIdLabel}":` +
      quoted(id);
    return child;
  } as Logger['child'];
}

function hasOnlyKey(object: object, key: string): boolean {
  for (const name in object) if (name !== key) return false;
  return true;
}

function isEmpty(object: object | undefined): boolean {
  if (object === undefined) return true;
  for (const _ in object) return false;
  return true;
}

/**
 * Logs every routed request (404s included) once: when its answer is sent, or — status 499,
 * `aborted: true` — when its client leaves before the answer is complete (no answer is sent then).
 */
export function registerRequestLog(app: FastifyInstance): void {
  makeRequestChildrenDirectly(app.log as Logger);
  // Request decorations, not WeakMaps keyed by request: a weak entry per request is work for
  // every garbage collection.
  app.decorateRequest('receivedAt', 0);
  app.decorateRequest('requestLogged', false);
  app.addHook('onRequest', (request, _reply, done) => {
    request.receivedAt = performance.now();
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    logRequest(request, reply);
    done();
  });
  app.addHook('onRequestAbort', async (request) => logAbortedRequest(request));
}

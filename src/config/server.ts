// The listener and its limits: where the gateway listens and with how many processes, what it
// logs, whose forwarded addresses it believes, how large and deep a request may be, its
// connections' deadlines and its rate limits.
import { availableParallelism } from 'node:os';
import { defaultJsonMaxDepth, jsonDepthCeiling } from '../common/json-depth.ts';
import { addressRanges, boolean, ConfigError, integer, text, url, type Env } from './variables.ts';

export interface ServerSettings {
  port: number;
  host: string;
  /** Processes serving the port (WORKERS: a number, or `auto` for one per core; default 1 = no cluster). */
  workers: number;
  /** Longest wait for each `/readyz` check (READINESS_TIMEOUT_MS). */
  readinessTimeoutMs: number;
  logLevel: string;
  /**
   * Whose `X-Forwarded-For` (and `-Host`, `-Proto`) to believe (TRUST_PROXY): `true` every peer's,
   * `false` none, or the IP addresses and CIDR ranges of the proxies (Fastify's `trustProxy`, so
   * `request.ip`, the address rate limits, logs and allow lists use, is the client before them).
   */
  trustProxy: boolean | string[];
  bodyLimitBytes: number;
  /** Connection deadlines of the listeners (docs/operations.md, "Connections"). */
  connections: {
    /** Request headers must all arrive within this (HEADERS_TIMEOUT_MS): 408 otherwise. */
    headersTimeoutMs: number;
    /** A request body stalled this long, or a parsed body not all arrived after it, is cut with 408 (BODY_TIMEOUT_MS). */
    bodyTimeoutMs: number;
    /**
     * A request body averaging less than this over the last `bodyMinRateWindowMs`, once a whole
     * window has passed, is cut with 408 (BODY_MIN_BYTES_PER_SECOND; 0: no minimum).
     */
    bodyMinBytesPerSecond: number;
    /** The window of that average, and the grace before it is first taken (BODY_MIN_RATE_WINDOW_MS). */
    bodyMinRateWindowMs: number;
    /** Idle keep-alive connections are closed after this (KEEP_ALIVE_TIMEOUT_MS). */
    keepAliveTimeoutMs: number;
    /** On shutdown, requests in flight get this long before their connections are cut (SHUTDOWN_GRACE_MS). */
    shutdownGraceMs: number;
  };
  /** Largest comment text, in UTF-8 bytes (COMMENT_MAX_BYTES); longer comments get 413. */
  commentMaxBytes: number;
  /** Deepest nesting of arrays and objects a JSON request body may have (JSON_MAX_DEPTH); deeper is 400 ERR_INVALID_JSON. */
  jsonMaxDepth: number;
  /**
   * Hold every answer, and every request answered 2xx, against the OpenAPI document
   * (CONTRACT_CHECK, src/http/contract-check.ts): for tests, which turn it on; off in production.
   */
  contractCheck: boolean;
  rateLimit: {
    userPerMin: number;
    anonPerMin: number;
    burst: number;
    /**
     * Client addresses (IPs and CIDR ranges) whose unauthenticated calls each get the larger budget
     * `clientPerMin` instead of `anonPerMin` (RATE_LIMIT_CLIENTS): a web UI's server, which makes
     * every signed-out visitor's calls from its own address.
     */
    clients: string[];
    /** Capacity and refill per minute of each of those addresses' buckets (RATE_LIMIT_CLIENT_PER_MIN). */
    clientPerMin: number;
  };
}

/** WORKERS: `auto` is one process per core the machine offers (os.availableParallelism). */
function workerCount(env: Env): number {
  const raw = text(env, 'WORKERS');
  if (raw === undefined) return 1;
  if (raw.toLowerCase() === 'auto') return Math.max(1, availableParallelism());
  const count = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(count >= 1 && count <= 256))
    throw new ConfigError('WORKERS', `must be auto or an integer from 1 to 256, got "${raw}"`);
  return count;
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevelSetting(env: Env): string {
  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!logLevels.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${logLevels.join(', ')}, got "${logLevel}"`);
  }
  return logLevel;
}

/** TRUST_PROXY: true/false as `boolean` reads them, or a list of addresses as `addressRanges`. */
function trustedProxies(env: Env, name: string): boolean | string[] {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined || ['false', '0', 'no'].includes(raw)) return false;
  if (['true', '1', 'yes'].includes(raw)) return true;
  try {
    return addressRanges(env, name, []);
  } catch {
    throw new ConfigError(
      name,
      `must be true, false, or the proxies' IP addresses and CIDR ranges (10.0.0.5,10.1.0.0/16), got "${raw}"`,
    );
  }
}

/**
 * Where the web UI is (UI_BASE_URL, default `http://localhost:<PORT>/`): the embedded identity
 * provider's web client redirects under it, and the OAuth callback sends the browser back to it.
 */
export function uiBaseUrl(env: Env, port: number): string {
  return url(env, 'UI_BASE_URL', ['http:', 'https:'])?.toString() ?? `http://localhost:${port}/`;
}

export function serverSettings(env: Env): ServerSettings {
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: text(env, 'HOST') ?? '127.0.0.1',
    workers: workerCount(env),
    readinessTimeoutMs: integer(env, 'READINESS_TIMEOUT_MS', 2_000, 10, 60_000),
    logLevel: logLevelSetting(env),
    trustProxy: trustedProxies(env, 'TRUST_PROXY'),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 10 * 1024 * 1024, 1024, 2 ** 40),
    connections: {
      headersTimeoutMs: integer(env, 'HEADERS_TIMEOUT_MS', 30_000, 10, 600_000),
      bodyTimeoutMs: integer(env, 'BODY_TIMEOUT_MS', 30_000, 10, 3_600_000),
      bodyMinBytesPerSecond: integer(env, 'BODY_MIN_BYTES_PER_SECOND', 500, 0, 2 ** 30),
      bodyMinRateWindowMs: integer(env, 'BODY_MIN_RATE_WINDOW_MS', 30_000, 10, 3_600_000),
      keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 10, 3_600_000),
      shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 2_000, 0, 600_000),
    },
    commentMaxBytes: integer(env, 'COMMENT_MAX_BYTES', 64 * 1024, 1, 16 * 1024 ** 2),
    jsonMaxDepth: integer(env, 'JSON_MAX_DEPTH', defaultJsonMaxDepth, 1, jsonDepthCeiling),
    contractCheck: boolean(env, 'CONTRACT_CHECK', false),
    rateLimit: {
      userPerMin: integer(env, 'RATE_LIMIT_USER_PER_MIN', 100, 1, 1_000_000),
      anonPerMin: integer(env, 'RATE_LIMIT_ANON_PER_MIN', 10, 1, 1_000_000),
      burst: integer(env, 'RATE_LIMIT_BURST', 150, 1, 1_000_000),
      clients: addressRanges(env, 'RATE_LIMIT_CLIENTS', []),
      clientPerMin: integer(env, 'RATE_LIMIT_CLIENT_PER_MIN', 600, 1, 1_000_000),
    },
  };
}

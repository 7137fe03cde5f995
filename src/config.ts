import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import {
  backendEnvPrefix,
  backendNames,
  embeddedBackendNames,
  type BackendName,
} from './common/backend-names.ts';
import { defaultJsonMaxDepth, jsonDepthCeiling } from './common/json-depth.ts';

/** The service-account route families of routes.md §25, each allowed to the holders of one configured role. */
export type ServiceRole = 'ldap-reader' | 'emailer' | 'subscription-updater';

export interface BackendSetting {
  /** Remote base URL; undefined means "use the embedded service". */
  url?: URL;
  timeoutMs: number;
  /** Sent as `X-Backend-Secret` to that URL: set it when the URL is one of our embedded backends run standalone. */
  secret?: string;
}

export interface ExecutorSettings {
  /** Steps' working directories and unpacked images (EXECUTOR_WORK_DIR, default `<GATEWAY_DATA_DIR>/executor`). */
  workDir: string;
  /**
   * Executables and root filesystem image tars any tool may run (TOOL_EXECUTABLES_ALLOW): absolute
   * paths, an entry ending in `/` allowing everything below it. Administrators approve others tool
   * by tool through the admin tool routes.
   */
  allow: string[];
  /** The most a step may use; a tool asks for less (TOOL_WALL_CLOCK_SECONDS, TOOL_CPU_SECONDS, TOOL_MEMORY_MB, TOOL_OUTPUT_MB). */
  limits: {
    wallClockSeconds: number;
    cpuSeconds: number;
    memoryBytes: number;
    outputBytes: number;
  };
  /** Image tools run on this container runtime instead of the sandbox (CONTAINER_RUNTIME: docker or podman). */
  containerRuntime?: 'docker' | 'podman';
}

/** One client of the embedded identity provider (IDP_CLIENTS). */
export interface IdentityClientSettings {
  id: string;
  /** Confidential clients authenticate with it (IDP_CLIENT_<ID>_SECRET); public ones have none. */
  secret?: string;
  /** Allowed redirect URIs; one ending in `*` allows every URI it prefixes (IDP_CLIENT_<ID>_REDIRECT_URIS). */
  redirectUris: string[];
}

/** The embedded identity provider: users in the database, OpenID Connect under `/realms/<realm>`. */
export interface IdentitySettings {
  /** On when AUTH_TOKEN_URL, AUTH_JWKS_URL and AUTH_PUBLIC_KEYS are all unset. */
  enabled: boolean;
  /** The realm of its paths, `/realms/<realm>/...` (IDP_REALM, default `platform`). */
  realm: string;
  /** Its public base URL, the issuer's prefix (IDP_PUBLIC_URL); unset: from each request's host. */
  publicUrl?: string;
  clients: IdentityClientSettings[];
  /** Access and ID token lifetime (IDP_ACCESS_TOKEN_SECONDS, default 900). */
  accessTokenSeconds: number;
  /** Refresh token lifetime, renewed at each use (IDP_REFRESH_TOKEN_SECONDS, default 1800). */
  refreshTokenSeconds: number;
  /** Longest sign-in session, after which refresh stops and sign-in is asked again (IDP_SESSION_SECONDS, default 36000). */
  sessionSeconds: number;
  /** Its RS256 key as PEM (IDP_SIGNING_KEY or _FILE), so several gateways sign alike; unset: a data-dir file. */
  signingKey?: Buffer;
}

/** Where the embedded email service's messages go (docs/configuration.md, "Email"). */
export interface EmailSettings {
  /** Sent over SMTP here when set (SMTP_URL, `smtp:` or `smtps:`, credentials in the URL). */
  smtpUrl?: string;
  /** Otherwise written as `.eml` files here: `<GATEWAY_DATA_DIR>/outbox`. */
  outboxDir: string;
  /** Where `/support-email` messages go (SUPPORT_EMAIL_TO). */
  supportTo: string;
  /** The sender of messages that name none of their own (SUPPORT_EMAIL_FROM). */
  defaultFrom: string;
}

/**
 * An S3-compatible bucket for the data store's file bytes (BLOB_STORE_URL, docs/configuration.md,
 * "Shared file bytes"): `s3://[KEY_ID:SECRET@]bucket[/prefix]?endpoint=…&region=…&forcePathStyle=true`.
 */
export interface S3BlobStoreSettings {
  bucket: string;
  /** Every key starts with this: empty, or ending in `/`. */
  prefix: string;
  /** A non-AWS service's URL (`endpoint`); AWS's own when absent. */
  endpoint?: string;
  /** `region`, else AWS_REGION, AWS_DEFAULT_REGION, else `us-east-1`. */
  region: string;
  /** Bucket in the path, not the host name (`forcePathStyle`, for most S3-compatible servers). */
  forcePathStyle: boolean;
  /** From the URL's user and password; absent: the AWS SDK's usual chain (AWS_ACCESS_KEY_ID, …, profiles, roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Bytes per part of a multipart upload (`partSizeMiB`, default 8, at least 5). */
  partSizeBytes: number;
  /** Parts of one upload sent at once (`queueSize`, default 2): at most partSize × queueSize buffered. */
  queueSize: number;
  /** Longest wait to connect, and for any answer byte (`timeoutMs`, default 30000). */
  timeoutMs: number;
}

/** The samplers OTEL_TRACES_SAMPLER may name (the OpenTelemetry specification's, less the remote ones). */
export const traceSamplers = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

export type TraceSampler = (typeof traceSamplers)[number];

export interface TracingSettings {
  /**
   * Where spans are sent, OTLP over HTTP (JSON): OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, or
   * OTEL_EXPORTER_OTLP_ENDPOINT with `/v1/traces` appended, as the specification says.
   */
  tracesUrl: string;
  /** The `service.name` of every span (OTEL_SERVICE_NAME, default `platform-gateway`). */
  serviceName: string;
  /** Which traces are kept (OTEL_TRACES_SAMPLER, default `parentbased_always_on`). */
  sampler: TraceSampler;
  /** The share of traces a `traceidratio` sampler keeps, 0 to 1 (OTEL_TRACES_SAMPLER_ARG, default 1). */
  samplerRatio: number;
  /** Longest wait before ended spans are sent, in a batch (OTEL_BSP_SCHEDULE_DELAY, ms, default 5000). */
  batchDelayMs: number;
}

export interface GatewayConfig {
  port: number;
  host: string;
  /** Processes serving the port (WORKERS: a number, or `auto` for one per core; default 1 = no cluster). */
  workers: number;
  dataDir: string;
  databaseUrl?: string;
  /**
   * PostgreSQL waits: for a connection, new or pooled (DATABASE_CONNECT_TIMEOUT_MS), and a query's
   * answer (DATABASE_QUERY_TIMEOUT_MS); and the planner's `random_page_cost` for the gateway's own
   * sessions (DATABASE_RANDOM_PAGE_COST; undefined: the server's); the statements each pooled
   * connection keeps prepared (DATABASE_PREPARED_STATEMENTS; 0: none).
   */
  database: {
    connectTimeoutMs: number;
    queryTimeoutMs: number;
    randomPageCost?: number;
    preparedStatements: number;
  };
  /** Longest wait for each `/readyz` check (READINESS_TIMEOUT_MS). */
  readinessTimeoutMs: number;
  redisUrl?: string;
  redisKeyPrefix: string;
  /** Longest wait for a Redis answer before a request is served with local counters (REDIS_COMMAND_TIMEOUT_MS). */
  redisCommandTimeoutMs: number;
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
    /** Idle keep-alive connections are closed after this (KEEP_ALIVE_TIMEOUT_MS). */
    keepAliveTimeoutMs: number;
    /** On shutdown, requests in flight get this long before their connections are cut (SHUTDOWN_GRACE_MS). */
    shutdownGraceMs: number;
  };
  /** Largest comment text, in UTF-8 bytes (COMMENT_MAX_BYTES); longer comments get 413. */
  commentMaxBytes: number;
  /** Deepest nesting of arrays and objects a JSON request body may have (JSON_MAX_DEPTH); deeper is 400 ERR_INVALID_JSON. */
  jsonMaxDepth: number;
  uidDomain: string;
  auth: {
    jwksUrl?: URL;
    publicKeyFiles: string[];
    issuer?: string;
    audience?: string;
    requireExp: boolean;
    clockSkewSeconds: number;
    /** Least time between two JWKS fetches caused by unknown `kid`s (AUTH_JWKS_COOLDOWN_SECONDS). */
    jwksCooldownSeconds: number;
    adminRoles: string[];
    /**
     * The group the platform's own tokens (embedded identity provider, `npm run token --admin`)
     * name in administrators' `entitlement` claim (ADMIN_GROUP, default `de_admins`): what a web
     * UI that checks that claim (the DE's `admin.groups`) is configured with.
     */
    adminGroup: string;
    dataStoreAdminRoles: string[];
    /**
     * The realm role each service-account route family requires (routes.md §25), by its descriptive
     * name: `ldap-reader` (SERVICE_ROLE_LDAP_READER), `emailer` (SERVICE_ROLE_EMAILER),
     * `subscription-updater` (SERVICE_ROLE_SUBSCRIPTION_UPDATER); each defaults to its own name.
     */
    serviceRoles: Record<ServiceRole, string>;
    /** True when neither a JWKS URL nor PEM files are set: the gateway signs and trusts its own key. */
    embeddedKeys: boolean;
    /**
     * The identity provider `/token` and `/oidc/*` talk to (routes.md §2). Its token endpoint
     * (AUTH_TOKEN_URL) and authorize endpoint (AUTH_AUTHORIZE_URL); both unset on the embedded
     * platform, where the embedded identity provider answers (`identity`).
     */
    tokenUrl?: URL;
    authorizeUrl?: URL;
    /** Where `/oidc/logout` sends the browser after expiring the cookies (AUTH_LOGOUT_URL, default the docs page). */
    logoutUrl?: URL;
    /** The gateway's client at the identity provider (AUTH_CLIENT_ID, default `platform-gateway`). */
    clientId: string;
    /** Its secret (AUTH_CLIENT_SECRET), sent in the token requests when set. */
    clientSecret?: string;
    /** The identity-provider name of `/token/{idp-name}` (AUTH_IDP_NAME, default `keycloak`). */
    idpName: string;
  };
  /** The embedded identity provider (docs/authentication.md), on when `enabled`. */
  identity: IdentitySettings;
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
  backends: Record<BackendName, BackendSetting>;
  /**
   * Backends to run embedded (EMBEDDED_BACKENDS or `--backends`). A backend with a URL is never
   * embedded, and one without an embedded implementation yet is skipped with a warning.
   */
  embeddedBackends: BackendName[];
  /** The secret a standalone backend process (`--backends-only`) requires of gateways (BACKEND_SECRET). */
  backendSecret?: string;
  dataStore: {
    /** The data store's zone: homes live under `/<zone>/home/<user>` (DATA_ZONE). */
    zone: string;
    /** Name of the system default output folder inside a user's home (DEFAULT_OUTPUT_FOLDER). */
    defaultOutputFolder: string;
    /** Where file bytes live (DATA_STORE_DIR, default `<GATEWAY_DATA_DIR>/data-store`). */
    dir: string;
    /** File bytes in an S3-compatible bucket instead of `dir` (BLOB_STORE_URL); `dir` then keeps nothing. */
    blobStore?: S3BlobStoreSettings;
    /** Largest upload (MAX_UPLOAD_BYTES); larger ones get 413. */
    maxUploadBytes: number;
    /** Largest content `save`/`saveas` accept (FILEIO_MAX_EDIT_BYTES). */
    maxEditBytes: number;
    /** Days an item stays in the trash before the sweep deletes it (TRASH_RETENTION_DAYS). */
    trashRetentionDays: number;
    /** Bytes and unfinished writes untouched this long may be swept as orphans (DATA_STORE_ORPHAN_GRACE_SECONDS). */
    orphanGraceMs: number;
    /** Let URL imports reach loopback, private and link-local addresses (URL_IMPORT_ALLOW_PRIVATE_NETWORKS). */
    urlImportAllowPrivateNetworks: boolean;
    /**
     * Public base URL of ticket downloads (TICKET_BASE_URL, default `http://localhost:<PORT>/tickets`):
     * a ticket's `download-url` is `<base>/d/<ticket-id>/<name>`, its page `<base>/<ticket-id>`.
     */
    ticketBaseUrl: string;
  };
  /**
   * Minting permanent identifiers (routes.md §14 `/pidprovider`). With PIDPROVIDER_URL set
   * (`backends.pidprovider.url`), a DataCite-style REST provider mints them with these credentials;
   * without it, the gateway mints test identifiers under `prefix` itself.
   */
  pid: {
    /** PIDPROVIDER_USER: basic-auth user (e.g. a DataCite repository id). */
    user?: string;
    /** PIDPROVIDER_PASSWORD. */
    password?: string;
    /** PID_PREFIX: the DOI prefix identifiers are minted under (default the DataCite test prefix 10.5072). */
    prefix: string;
    /** PID_PUBLISHER: the DataCite `publisher` when the folder's metadata names none. */
    publisher: string;
    /** PID_TARGET_BASE_URL: an identifier resolves to `<base><folder path>`. */
    targetBaseUrl: string;
  };
  genomes: {
    /**
     * GENOME_BASE_URL (default `http://localhost:<PORT>/genomesvc/genomes`): the embedded genome
     * service answers a loaded genome's URL as `<base>?search=<genome id>`, the gateway's search for it.
     */
    baseUrl: string;
  };
  email: EmailSettings;
  /** Subscriptions and usage, the QMS (docs/api/qms.md). */
  subscriptions: {
    /**
     * Refuse uploads and saves of a user whose data.size usage has reached their quota, and analysis
     * launches of one whose cpu.hours usage has, with ERR_QUOTA_EXCEEDED (SUBSCRIPTIONS_ENFORCE,
     * default false: usages are recorded either way).
     */
    enforce: boolean;
  };
  analyses: {
    /** Analyses a user may have submitted or running at once (MAX_CONCURRENT_JOBS); more are refused with ERR_LIMIT_REACHED. */
    maxConcurrentJobs: number;
    /** How user tools run (docs/executor.md). */
    executor: ExecutorSettings;
  };
  notifications: {
    /** Who may POST /send-notification (SEND_NOTIFICATION_ALLOW): IP addresses and CIDR ranges; default loopback. */
    sendAllow: string[];
    /** How often an open notification stream gets a heartbeat and a recount (NOTIFICATION_STREAM_HEARTBEAT_MS). */
    streamHeartbeatMs: number;
    /** How long an app description added to job notifications is reused (APP_DESCRIPTION_CACHE_MS). */
    appDescriptionCacheMs: number;
    /** Delivering notifications to users' webhooks (docs/api/webhooks.md). */
    webhooks: {
      /** Let webhook URLs name loopback, private and link-local addresses (WEBHOOKS_ALLOW_PRIVATE_NETWORKS). */
      allowPrivateNetworks: boolean;
      /** Longest wait for a webhook's answer, per attempt (WEBHOOK_TIMEOUT_MS). */
      timeoutMs: number;
      /** Attempts per delivery, the first included (WEBHOOK_ATTEMPTS). */
      attempts: number;
      /** Pause before the first retry, doubled before each further one (WEBHOOK_RETRY_DELAY_MS). */
      retryDelayMs: number;
    };
    /** Live notifications published to the UI's AMQP exchange (docs/api/notifications.md); off without AMQP_URI. */
    amqp?: {
      /** The broker, e.g. amqp://user:password@host:5672/vhost (AMQP_URI; its password is masked in /admin/config). */
      uri: string;
      /** The topic exchange, routing key `notification.<username>` (AMQP_EXCHANGE, default `de`). */
      exchange: string;
      /** Longest pause between reconnection attempts (AMQP_RECONNECT_MAX_MS). */
      reconnectMaxMs: number;
      /** Messages kept while the broker is away, the oldest dropped beyond it (AMQP_QUEUE_LIMIT). */
      queueLimit: number;
    };
  };
  /**
   * OpenTelemetry tracing (docs/operations.md, "Tracing"): on when an OTLP endpoint is set and
   * OTEL_SDK_DISABLED is not true; undefined means off, and nothing of the SDK is loaded.
   */
  tracing?: TracingSettings;
  /** OAuth access to the third-party job API (spec "OAuth authorization code callback"). */
  oauth: {
    /**
     * The third-party APIs of the access-code flow, by name (OAUTH_APIS, default `extapi`): each
     * configured by `<API>_OAUTH_AUTHORIZE_URL`, `_TOKEN_URL`, `_CLIENT_ID` (and, for `extapi`,
     * the older EXTAPI_AUTHORIZE_URL, EXTAPI_TOKEN_URL, EXTAPI_CLIENT_ID). Only configured ones are here.
     */
    apis: Record<string, OAuthClientSettings>;
    /** Where the gateway's OAuth callback sends the browser (UI_BASE_URL, default `http://localhost:<PORT>/`). */
    uiBaseUrl: string;
    /**
     * The AES-256 key that seals stored access and refresh tokens (TOKEN_ENCRYPTION_KEY); when
     * unset, the apps service makes one in `<GATEWAY_DATA_DIR>/auth/token-encryption.key`.
     */
    tokenEncryptionKey?: Buffer;
  };
  /**
   * Keys given in configuration so that several gateways agree (docs/deployment.md); each absent
   * one is made once in `<GATEWAY_DATA_DIR>/auth/`.
   */
  keys: {
    /** PEM P-256 private key user tokens are signed with and checked against when no other keys are configured (AUTH_SIGNING_KEY or AUTH_SIGNING_KEY_FILE). */
    authSigningKey?: Buffer;
    /** PEM P-256 private key of the service tokens sent to backends (SERVICE_TOKEN_KEY or SERVICE_TOKEN_KEY_FILE). */
    serviceTokenKey?: Buffer;
  };
}

/** One OAuth 2.0 client of a third-party API (authorization code grant). */
export interface OAuthClientSettings {
  authorizeUrl: string;
  tokenUrl: string;
  clientId: string;
  /** Sent with HTTP Basic authentication to the token endpoint when set. */
  clientSecret?: string;
  /** Where the provider sends the browser back: the gateway's `/oauth/callback/<api>`. */
  redirectUri: string;
}

export class ConfigError extends Error {
  readonly variable: string;

  constructor(variable: string, message: string) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.variable = variable;
  }
}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
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

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

/** Statements each pooled PostgreSQL connection keeps prepared unless DATABASE_PREPARED_STATEMENTS says (src/store/prepared-statements.ts). */
export const PREPARED_PER_CONNECTION = 100;

/**
 * DATABASE_RANDOM_PAGE_COST: PostgreSQL's default (4) prices a page read at random as a disk seek;
 * the gateway's rows are read through indexes from memory or SSD, where 1.1 is the usual setting,
 * and with 4 the planner prefers reading a whole small table to a hundred index probes (a 10,000-row
 * table: 4 ms instead of 0.2 per page of favourites, bench/README.md). `server` keeps the server's.
 */
function randomPageCost(env: Env): { randomPageCost?: number } {
  const raw = text(env, 'DATABASE_RANDOM_PAGE_COST') ?? '1.1';
  if (raw.toLowerCase() === 'server') return {};
  const cost = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN;
  if (!(cost > 0 && cost <= 1000))
    throw new ConfigError(
      'DATABASE_RANDOM_PAGE_COST',
      `must be a number above 0 and up to 1000, or server, got "${raw}"`,
    );
  return { randomPageCost: cost };
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function url(env: Env, name: string, protocols: string[]): URL | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${raw}"`);
  }
  return parsed;
}

function amqpSettings(env: Env): GatewayConfig['notifications']['amqp'] {
  const uri = url(env, 'AMQP_URI', ['amqp:', 'amqps:']);
  if (!uri) return undefined;
  return {
    uri: uri.toString(),
    exchange: text(env, 'AMQP_EXCHANGE') ?? 'de',
    reconnectMaxMs: integer(env, 'AMQP_RECONNECT_MAX_MS', 30_000, 100, 3_600_000),
    queueLimit: integer(env, 'AMQP_QUEUE_LIMIT', 10_000, 1, 1_000_000),
  };
}

function list(env: Env, name: string, fallback: string[]): string[] {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** `all` (every backend with an embedded implementation), `none`, or a comma list of backend names. */
function embeddedSelection(env: Env, name: string): BackendName[] {
  const raw = text(env, name)?.toLowerCase() ?? 'all';
  if (raw === 'all') return [...embeddedBackendNames];
  if (raw === 'none') return [];
  const chosen = list(env, name, []);
  for (const item of chosen) {
    if (!(backendNames as readonly string[]).includes(item)) {
      throw new ConfigError(
        name,
        `"${raw}" names ${item}, which is not a backend; use all, none or names from: ${backendNames.join(', ')}`,
      );
    }
  }
  return [...new Set(chosen)] as BackendName[];
}

function pathSegment(env: Env, name: string, fallback: string): string {
  const value = text(env, name) ?? fallback;
  if (!/^[\w.-]+$/.test(value) || value === '.' || value === '..') {
    throw new ConfigError(
      name,
      `must be one path segment of letters, digits, '.', '_' or '-', got "${value}"`,
    );
  }
  return value;
}

function secret(env: Env, name: string): string | undefined {
  const value = text(env, name);
  if (value !== undefined && value.length < 16)
    throw new ConfigError(name, 'must be at least 16 characters long');
  return value;
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * OpenTelemetry's own variables (the SDK configuration specification), read here so that a mistake
 * is refused at start like any other setting; the SDK is given the values, not the environment.
 */
function tracingSettings(env: Env): TracingSettings | undefined {
  if (boolean(env, 'OTEL_SDK_DISABLED', false)) return undefined;
  const protocols = ['http:', 'https:'];
  const traces = url(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', protocols);
  const base = url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', protocols);
  if (!traces && !base) return undefined;
  const sampler = (text(env, 'OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on').toLowerCase();
  if (!(traceSamplers as readonly string[]).includes(sampler))
    throw new ConfigError(
      'OTEL_TRACES_SAMPLER',
      `must be one of ${traceSamplers.join(', ')}, got "${sampler}"`,
    );
  const rawRatio = text(env, 'OTEL_TRACES_SAMPLER_ARG') ?? '1';
  const ratio = /^\d+(\.\d+)?$/.test(rawRatio) ? Number(rawRatio) : NaN;
  if (!(ratio >= 0 && ratio <= 1))
    throw new ConfigError(
      'OTEL_TRACES_SAMPLER_ARG',
      `must be a number from 0 to 1, got "${rawRatio}"`,
    );
  return {
    tracesUrl: traces ? traces.toString() : `${base!.toString().replace(/\/+$/, '')}/v1/traces`,
    serviceName: text(env, 'OTEL_SERVICE_NAME') ?? 'platform-gateway',
    sampler: sampler as TraceSampler,
    samplerRatio: ratio,
    batchDelayMs: integer(env, 'OTEL_BSP_SCHEDULE_DELAY', 5_000, 1, 600_000),
  };
}

export function loadConfig(env: Env = process.env): GatewayConfig {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const tracing = tracingSettings(env);
  const defaultTimeoutMs = integer(env, 'BACKEND_TIMEOUT_MS', 30_000, 100, 3_600_000);
  const backends = {} as Record<BackendName, BackendSetting>;
  for (const name of backendNames) {
    const prefix = backendEnvPrefix(name);
    backends[name] = {
      url: url(env, `${prefix}_URL`, ['http:', 'https:']),
      timeoutMs: integer(env, `${prefix}_TIMEOUT_MS`, defaultTimeoutMs, 100, 3_600_000),
      secret: secret(env, `${prefix}_SECRET`),
    };
  }

  const jwksUrl = url(env, 'AUTH_JWKS_URL', ['http:', 'https:']);
  const publicKeyFiles = list(env, 'AUTH_PUBLIC_KEYS', []);
  const tokenUrl = url(env, 'AUTH_TOKEN_URL', ['http:', 'https:']);
  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!logLevels.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${logLevels.join(', ')}, got "${logLevel}"`);
  }

  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const userPerMin = integer(env, 'RATE_LIMIT_USER_PER_MIN', 100, 1, 1_000_000);

  const dataDir = path.resolve(text(env, 'GATEWAY_DATA_DIR') ?? './data');

  return {
    port,
    host: text(env, 'HOST') ?? '127.0.0.1',
    workers: workerCount(env),
    dataDir,
    databaseUrl: databaseUrl?.toString(),
    database: {
      connectTimeoutMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5_000, 100, 600_000),
      queryTimeoutMs: integer(env, 'DATABASE_QUERY_TIMEOUT_MS', 15_000, 100, 3_600_000),
      ...randomPageCost(env),
      preparedStatements: integer(
        env,
        'DATABASE_PREPARED_STATEMENTS',
        PREPARED_PER_CONNECTION,
        0,
        10_000,
      ),
    },
    readinessTimeoutMs: integer(env, 'READINESS_TIMEOUT_MS', 2_000, 10, 60_000),
    redisUrl: redisUrl?.toString(),
    redisKeyPrefix: text(env, 'REDIS_KEY_PREFIX') ?? 'gateway:',
    redisCommandTimeoutMs: integer(env, 'REDIS_COMMAND_TIMEOUT_MS', 250, 10, 60_000),
    logLevel,
    trustProxy: trustedProxies(env, 'TRUST_PROXY'),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 10 * 1024 * 1024, 1024, 2 ** 40),
    connections: {
      headersTimeoutMs: integer(env, 'HEADERS_TIMEOUT_MS', 30_000, 10, 600_000),
      bodyTimeoutMs: integer(env, 'BODY_TIMEOUT_MS', 30_000, 10, 3_600_000),
      keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 10, 3_600_000),
      shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 2_000, 0, 600_000),
    },
    commentMaxBytes: integer(env, 'COMMENT_MAX_BYTES', 64 * 1024, 1, 16 * 1024 ** 2),
    jsonMaxDepth: integer(env, 'JSON_MAX_DEPTH', defaultJsonMaxDepth, 1, jsonDepthCeiling),
    uidDomain: text(env, 'UID_DOMAIN') ?? 'localhost',
    auth: {
      jwksUrl,
      publicKeyFiles,
      issuer: text(env, 'AUTH_ISSUER'),
      audience: text(env, 'AUTH_AUDIENCE'),
      requireExp: boolean(env, 'AUTH_REQUIRE_EXP', true),
      clockSkewSeconds: integer(env, 'AUTH_CLOCK_SKEW_SECONDS', 30, 0, 600),
      // At least 1 s: the cooldown is what stops forged kids from flooding the identity provider.
      jwksCooldownSeconds: integer(env, 'AUTH_JWKS_COOLDOWN_SECONDS', 30, 1, 3600),
      adminRoles: list(env, 'ADMIN_ROLES', ['de-admin', 'super-admin']),
      adminGroup: text(env, 'ADMIN_GROUP') ?? 'de_admins',
      dataStoreAdminRoles: list(env, 'DATA_STORE_ADMIN_ROLES', ['data-store-admin', 'super-admin']),
      serviceRoles: {
        'ldap-reader': text(env, 'SERVICE_ROLE_LDAP_READER') ?? 'ldap-reader',
        emailer: text(env, 'SERVICE_ROLE_EMAILER') ?? 'emailer',
        'subscription-updater':
          text(env, 'SERVICE_ROLE_SUBSCRIPTION_UPDATER') ?? 'subscription-updater',
      },
      embeddedKeys: jwksUrl === undefined && publicKeyFiles.length === 0,
      tokenUrl,
      authorizeUrl: url(env, 'AUTH_AUTHORIZE_URL', ['http:', 'https:']),
      logoutUrl: url(env, 'AUTH_LOGOUT_URL', ['http:', 'https:']),
      clientId: text(env, 'AUTH_CLIENT_ID') ?? 'platform-gateway',
      clientSecret: text(env, 'AUTH_CLIENT_SECRET'),
      idpName: pathSegment(env, 'AUTH_IDP_NAME', 'keycloak'),
    },
    identity: identitySettings(env, {
      enabled: tokenUrl === undefined && jwksUrl === undefined && publicKeyFiles.length === 0,
      uiBaseUrl:
        url(env, 'UI_BASE_URL', ['http:', 'https:'])?.toString() ?? `http://localhost:${port}/`,
    }),
    rateLimit: {
      userPerMin,
      anonPerMin: integer(env, 'RATE_LIMIT_ANON_PER_MIN', 10, 1, 1_000_000),
      burst: integer(env, 'RATE_LIMIT_BURST', 150, 1, 1_000_000),
      clients: addressRanges(env, 'RATE_LIMIT_CLIENTS', []),
      clientPerMin: integer(env, 'RATE_LIMIT_CLIENT_PER_MIN', 600, 1, 1_000_000),
    },
    backends,
    embeddedBackends: embeddedSelection(env, 'EMBEDDED_BACKENDS'),
    backendSecret: secret(env, 'BACKEND_SECRET'),
    dataStore: {
      zone: pathSegment(env, 'DATA_ZONE', 'platform'),
      defaultOutputFolder: pathSegment(env, 'DEFAULT_OUTPUT_FOLDER', 'analyses'),
      dir: path.resolve(text(env, 'DATA_STORE_DIR') ?? path.join(dataDir, 'data-store')),
      ...withBlobStore(s3BlobStore(env, 'BLOB_STORE_URL')),
      maxUploadBytes: integer(env, 'MAX_UPLOAD_BYTES', 10 * 1024 ** 3, 1, 2 ** 50),
      maxEditBytes: integer(env, 'FILEIO_MAX_EDIT_BYTES', 8 * 1024 ** 2, 1, 2 ** 40),
      trashRetentionDays: integer(env, 'TRASH_RETENTION_DAYS', 30, 1, 36_500),
      orphanGraceMs: integer(env, 'DATA_STORE_ORPHAN_GRACE_SECONDS', 3600, 0, 30 * 86_400) * 1000,
      urlImportAllowPrivateNetworks: boolean(env, 'URL_IMPORT_ALLOW_PRIVATE_NETWORKS', false),
      ticketBaseUrl: (
        url(env, 'TICKET_BASE_URL', ['http:', 'https:'])?.toString() ??
        `http://localhost:${port}/tickets`
      ).replace(/\/+$/, ''),
    },
    pid: pidSettings(env, port),
    genomes: {
      baseUrl: (
        url(env, 'GENOME_BASE_URL', ['http:', 'https:'])?.toString() ??
        `http://localhost:${port}/genomesvc/genomes`
      ).replace(/\/+$/, ''),
    },
    email: {
      smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:'])?.toString(),
      outboxDir: path.join(dataDir, 'outbox'),
      supportTo: text(env, 'SUPPORT_EMAIL_TO') ?? 'support@localhost',
      defaultFrom: text(env, 'SUPPORT_EMAIL_FROM') ?? 'noreply@localhost',
    },
    subscriptions: { enforce: boolean(env, 'SUBSCRIPTIONS_ENFORCE', false) },
    analyses: {
      maxConcurrentJobs: integer(env, 'MAX_CONCURRENT_JOBS', 8, 1, 10_000),
      executor: executorSettings(env, dataDir),
    },
    notifications: {
      sendAllow: addressRanges(env, 'SEND_NOTIFICATION_ALLOW', ['127.0.0.0/8', '::1/128']),
      streamHeartbeatMs: integer(env, 'NOTIFICATION_STREAM_HEARTBEAT_MS', 15_000, 100, 3_600_000),
      appDescriptionCacheMs: integer(env, 'APP_DESCRIPTION_CACHE_MS', 60_000, 0, 86_400_000),
      webhooks: {
        allowPrivateNetworks: boolean(env, 'WEBHOOKS_ALLOW_PRIVATE_NETWORKS', false),
        timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 300_000),
        attempts: integer(env, 'WEBHOOK_ATTEMPTS', 3, 1, 10),
        retryDelayMs: integer(env, 'WEBHOOK_RETRY_DELAY_MS', 2_000, 0, 3_600_000),
      },
      amqp: amqpSettings(env),
    },
    ...(tracing ? { tracing } : {}),
    oauth: {
      apis: oauthClients(env, port),
      uiBaseUrl:
        url(env, 'UI_BASE_URL', ['http:', 'https:'])?.toString() ?? `http://localhost:${port}/`,
      tokenEncryptionKey: encryptionKey(env, 'TOKEN_ENCRYPTION_KEY'),
    },
    keys: {
      authSigningKey: ecPrivateKey(env, 'AUTH_SIGNING_KEY'),
      serviceTokenKey: ecPrivateKey(env, 'SERVICE_TOKEN_KEY'),
    },
  };
}

/** A client id of IDP_CLIENTS: upper-cased, `-` as `_`, in its variables' names. */
const clientIdPattern = /^[A-Za-z0-9][\w.-]*$/;

/**
 * The embedded identity provider's settings. IDP_CLIENTS lists its clients (default `de-ui`, the
 * web UI, public, redirecting anywhere under UI_BASE_URL); each may have a secret (confidential)
 * and redirect URIs. The gateway's own client (AUTH_CLIENT_ID) is always known to it.
 */
function identitySettings(
  env: Env,
  { enabled, uiBaseUrl }: { enabled: boolean; uiBaseUrl: string },
): IdentitySettings {
  const clients = list(env, 'IDP_CLIENTS', ['de-ui']).map((id): IdentityClientSettings => {
    if (!clientIdPattern.test(id))
      throw new ConfigError('IDP_CLIENTS', `names "${id}", which is not a plain client id`);
    const prefix = `IDP_CLIENT_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
    const secretValue = text(env, `${prefix}_SECRET`);
    return {
      id,
      ...(secretValue ? { secret: secretValue } : {}),
      redirectUris: list(env, `${prefix}_REDIRECT_URIS`, [`${uiBaseUrl.replace(/\/*$/, '/')}*`]),
    };
  });
  const publicUrl = url(env, 'IDP_PUBLIC_URL', ['http:', 'https:']);
  return {
    enabled,
    realm: pathSegment(env, 'IDP_REALM', 'platform'),
    ...(publicUrl ? { publicUrl: publicUrl.toString().replace(/\/+$/, '') } : {}),
    clients,
    accessTokenSeconds: integer(env, 'IDP_ACCESS_TOKEN_SECONDS', 900, 10, 86_400),
    refreshTokenSeconds: integer(env, 'IDP_REFRESH_TOKEN_SECONDS', 1800, 10, 30 * 86_400),
    sessionSeconds: integer(env, 'IDP_SESSION_SECONDS', 36_000, 60, 365 * 86_400),
    ...rsaPrivateKey(env, 'IDP_SIGNING_KEY'),
  };
}

/** A PEM RSA private key (2048 bits or more) from keySetting, for RS256 signing. */
function rsaPrivateKey(env: Env, name: string): { signingKey?: Buffer } {
  const pem = keySetting(env, name);
  if (pem === undefined) return {};
  let details: { type: string; bits?: number | undefined };
  try {
    const key = createPrivateKey(pem);
    details = { type: key.asymmetricKeyType ?? '', bits: key.asymmetricKeyDetails?.modulusLength };
  } catch {
    throw new ConfigError(name, 'must be a PEM private key');
  }
  if (details.type !== 'rsa' || (details.bits ?? 0) < 2048)
    throw new ConfigError(
      name,
      'must be an RSA private key of 2048 bits or more (openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048)',
    );
  return { signingKey: pem };
}

/** An API name of OAUTH_APIS: it appears in paths and, upper-cased, in variable names. */
const apiNamePattern = /^[a-z][a-z0-9-]*$/;

/**
 * The OAuth clients of OAUTH_APIS (default `extapi`, which may also be left unconfigured). An API
 * named in OAUTH_APIS but not configured is a mistake worth stopping for.
 */
function oauthClients(env: Env, port: number): Record<string, OAuthClientSettings> {
  const listed = text(env, 'OAUTH_APIS') !== undefined;
  const names = list(env, 'OAUTH_APIS', ['extapi']).map((name) => name.toLowerCase());
  const clients: Record<string, OAuthClientSettings> = {};
  for (const name of new Set(names)) {
    if (!apiNamePattern.test(name))
      throw new ConfigError(
        'OAUTH_APIS',
        `API names are lower-case letters, digits and "-", got "${name}"`,
      );
    const client = oauthClient(env, name, port);
    if (client) clients[name] = client;
    else if (listed)
      throw new ConfigError(
        'OAUTH_APIS',
        `names ${name}, which has no ${oauthVariable(name, 'AUTHORIZE_URL')}, ${oauthVariable(name, 'TOKEN_URL')} and ${oauthVariable(name, 'CLIENT_ID')}`,
      );
  }
  return clients;
}

/** `tapis`, `TOKEN_URL` → `TAPIS_OAUTH_TOKEN_URL`. */
function oauthVariable(apiName: string, setting: string): string {
  return `${apiName.toUpperCase().replace(/-/g, '_')}_OAUTH_${setting}`;
}

/**
 * One API's OAuth client: configured when its authorize URL, token URL and client id are all set;
 * some but not all of them is a mistake worth stopping for. `extapi` also reads the variables it
 * had before there were several (EXTAPI_AUTHORIZE_URL and so on) when its own are unset.
 */
function oauthClient(env: Env, apiName: string, port: number): OAuthClientSettings | undefined {
  const required = ['AUTHORIZE_URL', 'TOKEN_URL', 'CLIENT_ID'];
  // extapi under its former names: when none of its own required variables is set.
  const former =
    apiName === 'extapi' &&
    required.every((setting) => text(env, oauthVariable(apiName, setting)) === undefined);
  const nameOf = (setting: string): string =>
    former ? `EXTAPI_${setting}` : oauthVariable(apiName, setting);
  const names = {
    authorize: nameOf('AUTHORIZE_URL'),
    token: nameOf('TOKEN_URL'),
    clientId: nameOf('CLIENT_ID'),
  };
  const authorizeUrl = url(env, names.authorize, ['http:', 'https:']);
  const tokenUrl = url(env, names.token, ['http:', 'https:']);
  const clientId = text(env, names.clientId);
  const values = {
    [names.authorize]: authorizeUrl,
    [names.token]: tokenUrl,
    [names.clientId]: clientId,
  };
  const missing = Object.entries(values)
    .filter(([, value]) => value === undefined)
    .map(([name]) => name);
  if (missing.length === 3) return undefined;
  if (missing.length > 0) {
    throw new ConfigError(
      missing[0]!,
      `must be set together with ${Object.keys(values)
        .filter((name) => name !== missing[0])
        .join(' and ')} to use the ${apiName} OAuth client`,
    );
  }
  const clientSecret = text(env, nameOf('CLIENT_SECRET'));
  return {
    authorizeUrl: authorizeUrl!.toString(),
    tokenUrl: tokenUrl!.toString(),
    clientId: clientId!,
    ...(clientSecret ? { clientSecret } : {}),
    redirectUri:
      url(env, nameOf('REDIRECT_URI'), ['http:', 'https:'])?.toString() ??
      `http://localhost:${port}/oauth/callback/${apiName}`,
  };
}

/** 32 bytes, written as 64 hexadecimal digits or in base64 (standard or URL-safe). */
/**
 * Key material given as `NAME` (the value itself; a PEM may have its newlines written as `\n`) or
 * as `NAME_FILE` (a file holding it, as container secrets are mounted); not both. Generic: any key
 * setting reads through this, and its caller checks what the bytes must be.
 */
export function keySetting(env: Env, name: string): Buffer | undefined {
  const inline = text(env, name);
  const file = text(env, `${name}_FILE`);
  if (inline !== undefined && file !== undefined)
    throw new ConfigError(name, `and ${name}_FILE are both set; set one`);
  if (inline !== undefined) return Buffer.from(inline.replace(/\\n/g, '\n'));
  if (file === undefined) return undefined;
  try {
    return readFileSync(file);
  } catch (error) {
    throw new ConfigError(
      `${name}_FILE`,
      `names ${file}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

/** A PEM (PKCS#8 or SEC1) P-256 private key from keySetting, for ES256 signing. */
function ecPrivateKey(env: Env, name: string): Buffer | undefined {
  const pem = keySetting(env, name);
  if (pem === undefined) return undefined;
  let curve: string | undefined;
  try {
    curve = createPrivateKey(pem).asymmetricKeyDetails?.namedCurve;
  } catch {
    throw new ConfigError(name, 'must be a PEM private key');
  }
  if (curve !== 'prime256v1')
    throw new ConfigError(
      name,
      'must be a P-256 EC private key (openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256)',
    );
  return pem;
}

/** `{ blobStore }` when BLOB_STORE_URL is set, nothing otherwise (the local folder). */
function withBlobStore(settings: S3BlobStoreSettings | undefined) {
  return settings ? { blobStore: settings } : {};
}

/** BLOB_STORE_URL (S3BlobStoreSettings); the URL is never repeated in an error, it may hold a secret. */
function s3BlobStore(env: Env, name: string): S3BlobStoreSettings | undefined {
  try {
    return s3BlobStoreOf(env, name);
  } catch (error) {
    // A query parameter's own check names the parameter: say which variable it is in.
    if (error instanceof ConfigError && error.variable !== name)
      throw new ConfigError(
        name,
        `parameter ${error.message.replace(/^Invalid configuration: /, '')}`,
      );
    throw error;
  }
}

function s3BlobStoreOf(env: Env, name: string): S3BlobStoreSettings | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a URL like s3://bucket/prefix?endpoint=…&region=…');
  }
  if (parsed.protocol !== 's3:') throw new ConfigError(name, 'must use s3:');
  const bucket = decodeURIComponent(parsed.hostname);
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw new ConfigError(name, `names the bucket "${bucket}", which is not a valid bucket name`);
  const segments = parsed.pathname.split('/').filter((segment) => segment !== '');
  const prefix = segments.map((segment) => `${decodeURIComponent(segment)}/`).join('');
  const query = Object.fromEntries(parsed.searchParams);
  const known = ['endpoint', 'region', 'forcePathStyle', 'partSizeMiB', 'queueSize', 'timeoutMs'];
  const unknown = Object.keys(query).find((key) => !known.includes(key));
  if (unknown !== undefined)
    throw new ConfigError(
      name,
      `has the unknown parameter "${unknown}" (known: ${known.join(', ')})`,
    );
  const option = (key: string) => text(query, key);
  const number = (key: string, fallback: number, min: number, max: number) =>
    integer(query, key, fallback, min, max);
  let endpoint: string | undefined;
  if (option('endpoint') !== undefined) {
    const given = url(query, 'endpoint', ['http:', 'https:']);
    endpoint = given!.toString().replace(/\/+$/, '');
  }
  if ((parsed.username === '') !== (parsed.password === ''))
    throw new ConfigError(name, 'must give both an access key id and a secret, or neither');
  const forcePathStyle = option('forcePathStyle');
  return {
    bucket,
    prefix,
    endpoint,
    region:
      option('region') ?? text(env, 'AWS_REGION') ?? text(env, 'AWS_DEFAULT_REGION') ?? 'us-east-1',
    forcePathStyle: forcePathStyle === undefined ? false : boolean(query, 'forcePathStyle', false),
    credentials:
      parsed.username === ''
        ? undefined
        : {
            accessKeyId: decodeURIComponent(parsed.username),
            secretAccessKey: decodeURIComponent(parsed.password),
          },
    partSizeBytes: number('partSizeMiB', 8, 5, 5 * 1024) * 1024 ** 2,
    queueSize: number('queueSize', 2, 1, 64),
    timeoutMs: number('timeoutMs', 30_000, 100, 3_600_000),
  };
}

function encryptionKey(env: Env, name: string): Buffer | undefined {
  const raw = keySetting(env, name)?.toString().trim();
  if (raw === undefined) return undefined;
  const key = /^[0-9a-f]{64}$/i.test(raw)
    ? Buffer.from(raw, 'hex')
    : /^[\w+/-]+={0,2}$/.test(raw)
      ? Buffer.from(raw, 'base64')
      : undefined;
  if (key?.length !== 32)
    throw new ConfigError(
      name,
      'must be 32 bytes written as 64 hexadecimal digits or in base64 (openssl rand -base64 32)',
    );
  return key;
}

/** A comma list of IP addresses and CIDR ranges (`10.0.0.0/8`, `fd00::/8`, `192.0.2.7`). */
function executorSettings(env: Env, dataDir: string): ExecutorSettings {
  const allow = list(env, 'TOOL_EXECUTABLES_ALLOW', []);
  const relative = allow.find((entry) => !path.isAbsolute(entry));
  if (relative !== undefined)
    throw new ConfigError(
      'TOOL_EXECUTABLES_ALLOW',
      `entries must be absolute paths, got "${relative}"`,
    );
  const runtime = text(env, 'CONTAINER_RUNTIME');
  if (runtime !== undefined && runtime !== 'docker' && runtime !== 'podman')
    throw new ConfigError('CONTAINER_RUNTIME', `must be docker or podman, got "${runtime}"`);
  const mebibytes = 1024 * 1024;
  return {
    workDir: path.resolve(text(env, 'EXECUTOR_WORK_DIR') ?? path.join(dataDir, 'executor')),
    allow: allow.map((entry) =>
      entry.endsWith('/') ? `${path.resolve(entry)}/` : path.resolve(entry),
    ),
    limits: {
      wallClockSeconds: integer(env, 'TOOL_WALL_CLOCK_SECONDS', 86_400, 1, 31 * 86_400),
      cpuSeconds: integer(env, 'TOOL_CPU_SECONDS', 86_400, 1, 31 * 86_400),
      memoryBytes: integer(env, 'TOOL_MEMORY_MB', 4096, 16, 4 * 1024 * 1024) * mebibytes,
      outputBytes: integer(env, 'TOOL_OUTPUT_MB', 10_240, 1, 1024 * 1024 * 1024) * mebibytes,
    },
    ...(runtime ? { containerRuntime: runtime } : {}),
  };
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

function addressRanges(env: Env, name: string, fallback: string[]): string[] {
  const ranges = list(env, name, fallback);
  for (const range of ranges) {
    const [address = '', bits, extra] = range.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (family === 0 || !bitsOk || extra !== undefined) {
      throw new ConfigError(
        name,
        `must list IP addresses or CIDR ranges such as 127.0.0.0/8 or ::1/128, got "${range}"`,
      );
    }
  }
  return ranges;
}

/** PIDPROVIDER_USER / PIDPROVIDER_PASSWORD come as a pair; PID_PREFIX is a DOI prefix (`10.<digits>`). */
function pidSettings(env: Env, port: number): GatewayConfig['pid'] {
  const user = text(env, 'PIDPROVIDER_USER');
  const password = text(env, 'PIDPROVIDER_PASSWORD');
  if ((user === undefined) !== (password === undefined)) {
    throw new ConfigError(
      user === undefined ? 'PIDPROVIDER_USER' : 'PIDPROVIDER_PASSWORD',
      'must be set together with the other PID provider credential',
    );
  }
  const prefix = text(env, 'PID_PREFIX') ?? '10.5072';
  if (!/^10\.\d{4,9}(\.\d+)*$/.test(prefix))
    throw new ConfigError('PID_PREFIX', `must be a DOI prefix such as 10.5072, got "${prefix}"`);
  return {
    user,
    password,
    prefix,
    publisher: text(env, 'PID_PUBLISHER') ?? 'Platform Gateway',
    targetBaseUrl: (
      url(env, 'PID_TARGET_BASE_URL', ['http:', 'https:'])?.toString() ??
      `http://localhost:${port}/published`
    ).replace(/\/+$/, ''),
  };
}

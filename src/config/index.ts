// The settings: environment variables, each area's read and checked by its own file (docs/
// configuration.md lists them all), composed here into one GatewayConfig. A wrong value stops the
// process at start with a ConfigError naming the variable.
//
//   server.ts             the listener and its limits (port, processes, logs, proxies, sizes,
//                         connection deadlines, rate limits)
//   auth.ts               authentication: token checks, roles, the identity provider `/token`
//                         talks to, shared keys
//   identity-provider.ts  the embedded identity provider
//   store.ts              the data folder, the database, Redis
//   data-store.ts         the data store and where its file bytes live (a folder, or S3)
//   backends.ts           the backend services (URLs, embedded ones, secrets) and the settings
//                         of the services that have their own
//   notifications.ts      mail and notifications (email, webhooks, AMQP)
//   executor.ts           analyses and how their steps run
//   oauth.ts              OAuth access to third-party APIs
//   tracing.ts            OpenTelemetry
//   variables.ts          the readers every area uses, and ConfigError
import { authSettings, type AuthSettings } from './auth.ts';
import {
  backendsSettings,
  serviceSettings,
  type BackendsSettings,
  type ServiceSettings,
} from './backends.ts';
import { dataStoreSettings, type DataStoreSettings } from './data-store.ts';
import { analysesSettings, type AnalysesSettings } from './executor.ts';
import { identitySettings, type IdentitySettings } from './identity-provider.ts';
import {
  emailSettings,
  notificationSettings,
  type EmailSettings,
  type NotificationSettings,
} from './notifications.ts';
import { oauthSettings, type OAuthSettings } from './oauth.ts';
import { serverSettings, uiBaseUrl, type ServerSettings } from './server.ts';
import { storeSettings, type StoreSettings } from './store.ts';
import { tracingSettings, type TracingSettings } from './tracing.ts';
import type { Env } from './variables.ts';

export type { ServiceRole } from './auth.ts';
export type { BackendSetting } from './backends.ts';
export type { DataStoreSettings, S3BlobStoreSettings } from './data-store.ts';
export type { ExecutorSettings, JobExecutor, SlurmSettings } from './executor.ts';
export type {
  IdentityClientSettings,
  IdentitySettings,
  SignInLimitSettings,
  SignInLockPolicy,
} from './identity-provider.ts';
export type { EmailSettings } from './notifications.ts';
export type { OAuthClientSettings } from './oauth.ts';
export { PREPARED_PER_CONNECTION } from './store.ts';
export { traceSamplers, type TraceSampler, type TracingSettings } from './tracing.ts';
export { ConfigError, keySetting } from './variables.ts';

export interface GatewayConfig
  extends ServerSettings, StoreSettings, AuthSettings, BackendsSettings, ServiceSettings {
  /** The embedded identity provider (docs/authentication.md), on when `enabled`. */
  identity: IdentitySettings;
  dataStore: DataStoreSettings;
  email: EmailSettings;
  analyses: AnalysesSettings;
  notifications: NotificationSettings;
  /**
   * OpenTelemetry tracing (docs/operations.md, "Tracing"): on when an OTLP endpoint is set and
   * OTEL_SDK_DISABLED is not true; undefined means off, and nothing of the SDK is loaded.
   */
  tracing?: TracingSettings;
  /** OAuth access to the third-party job API (spec "OAuth authorization code callback"). */
  oauth: OAuthSettings;
}

export function loadConfig(env: Env = process.env): GatewayConfig {
  const server = serverSettings(env);
  const tracing = tracingSettings(env);
  const backends = backendsSettings(env);
  const auth = authSettings(env);
  const store = storeSettings(env);
  const ui = uiBaseUrl(env, server.port);
  const { jwksUrl, publicKeyFiles, tokenUrl } = auth.auth;
  const identity = identitySettings(env, {
    enabled: tokenUrl === undefined && jwksUrl === undefined && publicKeyFiles.length === 0,
    uiBaseUrl: ui,
  });
  const dataStore = dataStoreSettings(env, store.dataDir, server.port);
  const services = serviceSettings(env, server.port);
  const email = emailSettings(env, store.dataDir);
  const analyses = analysesSettings(env, store.dataDir);
  const notifications = notificationSettings(env);
  const oauth = oauthSettings(env, server.port, ui);

  // In the order /admin/config has always shown them.
  return {
    port: server.port,
    host: server.host,
    workers: server.workers,
    dataDir: store.dataDir,
    databaseUrl: store.databaseUrl,
    database: store.database,
    readinessTimeoutMs: server.readinessTimeoutMs,
    redisUrl: store.redisUrl,
    redisKeyPrefix: store.redisKeyPrefix,
    redisCommandTimeoutMs: store.redisCommandTimeoutMs,
    logLevel: server.logLevel,
    trustProxy: server.trustProxy,
    bodyLimitBytes: server.bodyLimitBytes,
    connections: server.connections,
    commentMaxBytes: server.commentMaxBytes,
    jsonMaxDepth: server.jsonMaxDepth,
    contractCheck: server.contractCheck,
    uidDomain: auth.uidDomain,
    auth: auth.auth,
    identity,
    rateLimit: server.rateLimit,
    backends: backends.backends,
    embeddedBackends: backends.embeddedBackends,
    backendSecret: backends.backendSecret,
    dataStore,
    pid: services.pid,
    genomes: services.genomes,
    email,
    subscriptions: services.subscriptions,
    analyses,
    notifications,
    ...(tracing ? { tracing } : {}),
    oauth,
    keys: auth.keys,
  };
}

import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import {
  backendNames,
  embeddedStandIns,
  isEmbeddedBackend,
  type BackendName,
  type EmbeddedBackendName,
} from './common/backend-names.ts';
import {
  buildBackendHost,
  embeddedTargets,
  listenPrivately,
  processSecret,
} from './embedded/host.ts';
import { blobStoreProbe } from './backends/data-info/index.ts';
import type { BackendContext } from './backends/service.ts';
import { createIdentityProvider } from './backends/identity/index.ts';
import type { EmbeddedIdentity } from './common/identity-provider.ts';
import type { GatewayConfig } from './config/index.ts';
import { TokenVerifier } from './http/auth.ts';
import { BackendSchemas } from './http/backend-schemas.ts';
import {
  connectionServerOptions,
  registerBodyDeadlines,
  registerConnectionHandling,
} from './http/connection-limits.ts';
import {
  answerFrameworkError,
  MAX_PATH_PARAMETER_LENGTH,
  registerErrorHandling,
} from './common/error-replies.ts';
import { registerGuard } from './http/guard.ts';
import { registerMatchedRoute, routeLabel } from './http/matched-route.ts';
import { registerJsonBodyParser } from './http/json-body.ts';
import { LazySchemas } from './http/lazy-schemas.ts';
import { gatewayLoggerOptions, logRequest, registerRequestLog } from './http/request-log.ts';
import { loadTrustedKeys } from './http/keys.ts';
import { createMetrics, type Metrics } from './http/metrics.ts';
import { sendNotification } from './http/notifications.ts';
import { sendUsage } from './clients/qms.ts';
import { registerQuotaChecks } from './routes/quota-checks.ts';
import { registerOpenApi } from './http/openapi.ts';
import { registerContractCheck } from './http/contract-check.ts';
import { registerAreas } from './routes/shared/area.ts';
import { areas } from './routes/index.ts';
import { allTags } from './routes/shared/tags.ts';
import { SeenUsers } from './http/seen-users.ts';
import { Forwarder, remoteTarget, type BackendTarget } from './http/proxy.ts';
import {
  FallbackBuckets,
  MemoryBuckets,
  PrimaryBuckets,
  type BucketStore,
} from './http/rate-limit.ts';
import { RedisBuckets } from './http/rate-limit-redis.ts';
import { openStore, type Store } from './store/database.ts';
import { clusterWorkerId, inClusterWorker } from './common/cluster-ipc.ts';
import { activeTracing } from './common/tracing.ts';

export interface Gateway {
  app: FastifyInstance;
  config: GatewayConfig;
  store: Store;
  forwarder: Forwarder;
  verifier: TokenVerifier;
  buckets: BucketStore;
  metrics: Metrics;
  /** The embedded identity provider, when it is on. */
  identity?: EmbeddedIdentity;
  /** The embedded services' route schemas, which document the passthroughs they answer. */
  backendSchemas: BackendSchemas;
  /** The routes' validators and serializers, gateway and embedded backends, compiled on first use. */
  schemas: LazySchemas;
  close(): Promise<void>;
}

export interface GatewayOptions {
  /** Where JSON log lines go (default: stdout). */
  logStream?: { write(line: string): void };
  /** Milliseconds since the epoch by which token expiry is judged (default Date.now); tests move it. */
  authClock?: () => number;
  /** The rate limiter's clock, epoch ms (tests move it instead of sleeping); default: Date.now, and Redis's TIME with REDIS_URL. */
  rateLimitClock?: () => number;
  /** The embedded identity provider's clock, epoch ms: its sessions, codes, tokens and sign-in locks (default Date.now). */
  identityClock?: () => number;
}

const requestIdPattern = /^[\w.:-]{1,128}$/;

/** Accepts a caller's `X-Request-Id` when it is short and plain (it ends up in logs), else makes one. */
function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
}

function remoteTargets(config: GatewayConfig): Partial<Record<BackendName, BackendTarget>> {
  const targets: Partial<Record<BackendName, BackendTarget>> = {};
  for (const name of backendNames) {
    const target = remoteTarget(config.backends[name]);
    if (target) targets[name] = target;
  }
  return targets;
}

/** Backends without a URL that an embedded service stands in for (embeddedStandIns) reach it. */
function standInTargets(
  embedded: Partial<Record<BackendName, BackendTarget>>,
  remote: Partial<Record<BackendName, BackendTarget>>,
): Partial<Record<BackendName, BackendTarget>> {
  const targets: Partial<Record<BackendName, BackendTarget>> = {};
  for (const [backend, standIn] of Object.entries(embeddedStandIns) as [
    BackendName,
    EmbeddedBackendName,
  ][]) {
    // Only an embedded stand-in: a remote service of that name is the reference one, which does not.
    const target = embedded[standIn];
    if (!remote[backend] && target) targets[backend] = target;
  }
  return targets;
}

/** Runs the embedded backends this process is asked for (those without a URL) behind a private listener. */
async function startEmbeddedBackends(
  config: GatewayConfig,
  store: Store,
  log: FastifyBaseLogger,
  events: Pick<BackendContext, 'notify' | 'recordUsage'>,
  schemas: BackendSchemas,
  lazySchemas: LazySchemas,
) {
  const wanted = config.embeddedBackends.filter((name) => !config.backends[name].url);
  const names = wanted.filter(isEmbeddedBackend);
  const missing = wanted.filter((name) => !isEmbeddedBackend(name));
  if (missing.length > 0)
    log.warn(
      { backends: missing },
      'no embedded implementation yet: these answer 501 until their <SERVICE>_URL is set',
    );
  if (names.length === 0) return { targets: {}, host: undefined };
  const secret = processSecret();
  const host = await buildBackendHost({
    names,
    context: { store, config, ...events },
    secret,
    logger: log.child({ component: 'embedded-backends' }),
    bodyLimitBytes: config.bodyLimitBytes,
    logRequests: false,
    connections: config.connections,
    schemas,
    lazySchemas,
  });
  const address = await listenPrivately(host, config.dataDir);
  return { targets: embeddedTargets(names, address, secret, config), host };
}

async function createBuckets(
  config: GatewayConfig,
  app: FastifyInstance,
  metrics: Metrics,
  clock?: () => number,
): Promise<BucketStore> {
  const local = new MemoryBuckets(clock);
  if (!config.redisUrl) {
    // Workers of one gateway share the primary's buckets (Redis, when set, is shared already).
    if (config.workers > 1 && inClusterWorker())
      return new FallbackBuckets(
        new PrimaryBuckets(),
        local,
        app.log,
        () => metrics.rateLimitFallbacks.inc(),
        undefined,
        clock,
      );
    return local;
  }
  const shared = await RedisBuckets.connect(
    config.redisUrl,
    config.redisKeyPrefix,
    config.redisCommandTimeoutMs,
    clock,
  );
  return new FallbackBuckets(
    shared,
    local,
    app.log,
    () => metrics.rateLimitFallbacks.inc(),
    undefined,
    clock,
  );
}

/** Builds a gateway instance (not yet listening): the unit that main.ts runs and tests start. */
export async function buildGateway(
  config: GatewayConfig,
  options: GatewayOptions = {},
): Promise<Gateway> {
  const worker = config.workers > 1 ? clusterWorkerId() : undefined;
  const schemas = new LazySchemas();
  const app = Fastify({
    ...gatewayLoggerOptions(config.logLevel, options.logStream, worker),
    // Refused before routing, so no hook runs: answered, headed and logged here.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      reply.raw.once('finish', () => logRequest(request, reply));
      answerFrameworkError(error, request, reply);
    },
    genReqId: requestId,
    requestIdHeader: false,
    // The web UI approves a publication at `/admin/apps/de/{id}//publish` (clients.md): a doubled
    // slash means the same path.
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH, ignoreDuplicateSlashes: true },
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    // Validators and serializers compile on a route's first request (src/http/lazy-schemas.ts).
    ...schemas.serverOptions({ coerceTypes: 'array', allErrors: false }),
    ...connectionServerOptions(config.connections),
  });

  // Before anything loads pg or ioredis, whose instrumentations must be in place first; the SDK
  // is imported only now, and only when tracing is configured.
  const stopTracing = config.tracing
    ? await (
        await import('./tracing.ts')
      ).startTracing(config.tracing, {
        warn: (details, message) => app.log.warn(details, message),
        preload: [...(config.databaseUrl ? ['pg'] : []), ...(config.redisUrl ? ['ioredis'] : [])],
      })
    : undefined;
  const tracing = activeTracing();
  // First: its onRoute hook must see every route, its onRequest hook start before the guard's.
  if (tracing) await app.register(tracing.fastifyPlugin);

  const metrics = createMetrics();
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    database: config.database,
    onConnectionLost: (error) =>
      app.log.warn({ err: error }, 'an idle database connection was lost; the pool replaces it'),
  });
  const verifier = new TokenVerifier(await loadTrustedKeys(config), config.auth, options.authClock);
  const buckets = await createBuckets(config, app, metrics, options.rateLimitClock);
  const remote = remoteTargets(config);
  // Backends notify through the forwarder, which needs their address: one sent while they start waits for it.
  let forwarderMade: (forwarder: Forwarder) => void = () => {};
  const forwarderReady = new Promise<Forwarder>((resolve) => (forwarderMade = resolve));
  const notify: BackendContext['notify'] = async (notification) =>
    sendNotification(await forwarderReady, notification, app.log);
  const recordUsage: BackendContext['recordUsage'] = async (usage) =>
    sendUsage({ forwarder: await forwarderReady }, usage, app.log);
  const backendSchemas = new BackendSchemas();
  const embedded = await startEmbeddedBackends(
    config,
    store,
    app.log,
    { notify, recordUsage },
    backendSchemas,
    schemas,
  );
  const standIns = standInTargets(embedded.targets, remote);
  for (const backend of Object.keys(standIns) as BackendName[])
    backendSchemas.alias(backend, embeddedStandIns[backend]!);
  const forwarder = new Forwarder(
    { ...standIns, ...embedded.targets, ...remote },
    config.uidDomain,
    metrics,
    [...config.auth.adminRoles, ...config.auth.dataStoreAdminRoles],
  );
  forwarderMade(forwarder);

  registerMatchedRoute(app);
  registerBodyDeadlines(app, config.connections.bodyTimeoutMs, {
    bytesPerSecond: config.connections.bodyMinBytesPerSecond,
    windowMs: config.connections.bodyMinRateWindowMs,
  });
  registerConnectionHandling(app, config.connections);
  // Which of the WORKERS processes answered: for operators and the cluster's tests.
  const workerHeader = worker === undefined ? undefined : String(worker);
  // Callback-style hooks on every request: an async hook costs a promise and a microtask each.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (workerHeader !== undefined) reply.header('x-gateway-worker', workerHeader);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = routeLabel(request);
    metrics.requests.series(route, request.method, reply.statusCode).inc();
    metrics.requestDuration.series(route, request.method).observe(reply.elapsedTime / 1000);
    done();
  });

  if (tracing) {
    // The request's span names its user once the guard has authenticated them.
    app.addHook('onSend', (request, _reply, payload, done) => {
      if (request.identity)
        tracing.setRequestAttributes(request, { 'enduser.id': request.identity.username });
      done(null, payload);
    });
  }

  registerErrorHandling(app);
  registerRequestLog(app);
  registerJsonBodyParser(app, config.jsonMaxDepth);
  await registerOpenApi(app, allTags);
  // Tests only: every answer held against the document just registered (src/http/contract-check.ts).
  if (config.contractCheck) registerContractCheck(app, forwarder);
  registerGuard(app, {
    config,
    verifier,
    buckets,
    metrics,
    seenUsers: new SeenUsers(store.db, config.uidDomain, app.log),
  });
  registerQuotaChecks(app, { forwarder, config });
  // The embedded identity provider answers browsers: its area mounts it on the public listener.
  const identity = config.identity.enabled
    ? await createIdentityProvider(config, store, options.identityClock, (lock) =>
        app.log.warn(
          {
            [lock.kind === 'user' ? 'username' : 'address']: lock.name,
            lockedUntil: new Date(lock.lockedUntil).toISOString(),
          },
          `failed passwords locked the ${lock.kind === 'user' ? 'username' : 'address'} ${lock.name}`,
        ),
      )
    : undefined;
  const blobProbe = blobStoreProbe(config.dataStore.blobStore);
  await registerAreas(app, areas, {
    ...(identity ? { identityProvider: identity } : {}),
    forwarder,
    config,
    store,
    metrics,
    remoteBackends: Object.keys(remote) as BackendName[],
    backendSchemas,
    ...(buckets.ping ? { pingRedis: buckets.ping.bind(buckets) } : {}),
    ...(blobProbe ? { pingBlobStore: blobProbe.ping } : {}),
  });

  app.addHook('onClose', async () => {
    // Backends finish their requests before the store they write to closes.
    await Promise.allSettled([
      forwarder.close(config.connections.shutdownGraceMs),
      buckets.close(),
      embedded.host?.close(),
    ]);
    blobProbe?.close();
    await store.close();
    // Last: the spans of closing are flushed with the rest.
    await stopTracing?.();
  });

  return {
    app,
    config,
    store,
    forwarder,
    verifier,
    buckets,
    metrics,
    ...(identity ? { identity } : {}),
    backendSchemas,
    schemas,
    close: () => app.close(),
  };
}

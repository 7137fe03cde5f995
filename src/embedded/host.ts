import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { GatewayConfig } from '../config/index.ts';
import {
  connectionServerOptions,
  registerConnectionHandling,
  type ConnectionLimits,
} from '../http/connection-limits.ts';
import {
  answerFrameworkError,
  MAX_PATH_PARAMETER_LENGTH,
  registerErrorHandling,
  sendError,
} from '../common/error-replies.ts';
import { registerJsonBodyParser } from '../http/json-body.ts';
import { LazySchemas } from '../http/lazy-schemas.ts';
import type { BackendTarget } from '../http/proxy.ts';
import type { BackendSchemas } from '../http/backend-schemas.ts';
import type { EmbeddedBackendName } from '../common/backend-names.ts';
import { notImplementedByEmbedded } from '../common/not-implemented.ts';
import { embeddedServices } from './registry.ts';
import type { BackendContext } from '../backends/service.ts';
import { gatewayError } from '../common/errors.ts';
import { activeTracing } from '../common/tracing.ts';

/** Paths a partial embedded service does not serve answer 501 naming the variable that points elsewhere. */
export function answerUnimplemented(app: FastifyInstance, name: EmbeddedBackendName): void {
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, notImplementedByEmbedded(name, request.method, request.url)),
  );
}

/** The header that proves a request comes from a gateway: backends trust identity parameters only then. */
export const backendSecretHeader = 'x-backend-secret';

export interface BackendHostOptions {
  names: readonly EmbeddedBackendName[];
  context: BackendContext;
  secret: string;
  logger: FastifyBaseLogger;
  bodyLimitBytes: number;
  /** Standalone hosts log each request; in-process ones leave that to the gateway. */
  logRequests: boolean;
  /** Header and keep-alive deadlines, and the shutdown grace (default: the configuration's defaults). */
  connections?: ConnectionLimits;
  /** Collects each service's route schemas (the gateway documents its passthroughs with them). */
  schemas?: BackendSchemas;
  /** Where the routes' lazily compiled validators and serializers are kept (default: a set of the host's own). */
  lazySchemas?: LazySchemas;
}

/** The configuration's defaults (HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, SHUTDOWN_GRACE_MS). */
const defaultLimits: ConnectionLimits = {
  headersTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  shutdownGraceMs: 2_000,
};

function sameSecret(given: string | string[] | undefined, expected: Buffer): boolean {
  if (typeof given !== 'string') return false;
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * One listener for a set of embedded backends, each mounted under `/<name>` (its base URL's path).
 * Every request must carry the shared secret; `/livez` alone answers without it.
 */
export async function buildBackendHost(options: BackendHostOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger,
    logController: new LogController({ disableRequestLogging: !options.logRequests }),
    bodyLimit: options.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    // A standalone host (`--backends-only`) may be called by other gateways: same JSON errors.
    frameworkErrors: answerFrameworkError,
    ...connectionServerOptions(options.connections ?? defaultLimits),
    // Validators and serializers compile on a route's first request (src/http/lazy-schemas.ts).
    ...(options.lazySchemas ?? new LazySchemas()).serverOptions(),
  });
  // A span per request, continuing the trace of the gateway's call (its traceparent header).
  const tracing = activeTracing();
  if (tracing) await app.register(tracing.fastifyPlugin);
  const expected = Buffer.from(options.secret);
  // No body deadlines here: the gateway in front keeps them and cancels its call when it cuts a client.
  registerConnectionHandling(app, options.connections ?? defaultLimits);
  registerErrorHandling(app);
  registerJsonBodyParser(app, options.context.config.jsonMaxDepth);

  app.get('/livez', async () => ({ status: 'ok', backends: options.names }));
  app.addHook('onRequest', async (request) => {
    if (request.url === '/livez') return;
    if (!sameSecret(request.headers[backendSecretHeader], expected)) {
      throw gatewayError(
        'ERR_FORBIDDEN',
        `Embedded backends answer only a gateway holding the backend secret (${backendSecretHeader}).`,
      );
    }
  });

  for (const name of options.names) {
    await app.register(
      async (scope) => {
        answerUnimplemented(scope, name);
        const prefix = `/${name}`;
        if (options.schemas) {
          const schemas = options.schemas;
          scope.addHook('onRoute', (route) =>
            schemas.record(
              name,
              { ...route, url: route.url.slice(prefix.length) || '/' },
              embeddedServices[name].documented,
            ),
          );
        }
        await scope.register(embeddedServices[name].plugin, {
          ...options.context,
          hosted: options.names,
        });
      },
      { prefix: `/${name}` },
    );
  }
  return app;
}

export interface PrivateAddress {
  origin: string;
  socketPath?: string;
}

/**
 * Listens where the public listener's clients cannot connect: a Unix socket in a 0700 folder of
 * the data directory, or, when that path is too long for a socket, a loopback port (the secret guards it).
 */
export async function listenPrivately(
  host: FastifyInstance,
  dataDir: string,
): Promise<PrivateAddress> {
  const folder = path.join(dataDir, 'run');
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o700);
  const socketPath = path.join(
    folder,
    `backends-${process.pid}-${randomBytes(4).toString('hex')}.sock`,
  );
  if (Buffer.byteLength(socketPath) < 100) {
    host.addHook('onClose', async () => rmSync(socketPath, { force: true }));
    // exclusive: in a cluster worker (WORKERS>1) the socket is the worker's own, not shared through the primary.
    await host.listen({ path: socketPath, exclusive: true });
    chmodSync(socketPath, 0o600);
    return { origin: 'http://embedded-backends', socketPath };
  }
  await host.listen({ host: '127.0.0.1', port: 0, exclusive: true });
  const address = host.server.address();
  if (!address || typeof address === 'string')
    throw new Error('embedded backends did not bind a port');
  return { origin: `http://127.0.0.1:${address.port}` };
}

/** Forwarder targets for backends served by a host at `address`: the same shape as a remote base URL. */
export function embeddedTargets(
  names: readonly EmbeddedBackendName[],
  address: PrivateAddress,
  secret: string,
  config: Pick<GatewayConfig, 'backends'>,
): Partial<Record<EmbeddedBackendName, BackendTarget>> {
  return Object.fromEntries(
    names.map((name) => [
      name,
      {
        ...address,
        basePath: `/${name}`,
        timeoutMs: config.backends[name].timeoutMs,
        secret,
        embedded: true,
      },
    ]),
  );
}

/** A fresh secret for backends that live and die with this process. */
export function processSecret(): string {
  return randomBytes(32).toString('base64url');
}

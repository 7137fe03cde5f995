import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { ConfigError, type GatewayConfig } from '../config/index.ts';
import { openStore } from '../store/database.ts';
import { createMetrics } from '../http/metrics.ts';
import { sendNotification } from '../http/notifications.ts';
import { sendUsage } from '../clients/qms.ts';
import { loggerSettings } from '../http/request-log.ts';
import { Forwarder, remoteTarget, type BackendTarget } from '../http/proxy.ts';
import {
  embeddedBackendNames,
  isEmbeddedBackend,
  type BackendName,
  type EmbeddedBackendName,
} from '../common/backend-names.ts';
import { buildBackendHost } from './host.ts';

/**
 * Where these backends send notifications and usages: NOTIFICATION_AGENT_URL and QMS_URL, else this
 * process when it serves the agent or the QMS.
 */
function eventTargets(
  config: GatewayConfig,
  names: readonly EmbeddedBackendName[],
): Partial<Record<BackendName, BackendTarget>> {
  const targets: Partial<Record<BackendName, BackendTarget>> = {};
  for (const backend of ['notification-agent', 'qms'] as const) {
    const setting = config.backends[backend];
    const remote = remoteTarget(setting);
    if (remote) targets[backend] = remote;
    else if (names.includes(backend))
      targets[backend] = {
        origin: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`,
        basePath: `/${backend}`,
        timeoutMs: setting.timeoutMs,
        secret: config.backendSecret,
      };
  }
  return targets;
}

/**
 * Serves the selected embedded backends as their own process, for gateways that reach them
 * through `<SERVICE>_URL=http://<host>:<port>/<name>`. The network can reach this listener, so
 * the shared BACKEND_SECRET is mandatory.
 */
export async function serveBackendsStandalone(config: GatewayConfig): Promise<FastifyInstance> {
  if (!config.backendSecret)
    throw new ConfigError(
      'BACKEND_SECRET',
      'must be set to serve backends on their own (--backends-only)',
    );
  const names = config.embeddedBackends.filter(isEmbeddedBackend);
  if (names.length === 0)
    throw new ConfigError(
      'EMBEDDED_BACKENDS',
      `names no backend with an embedded implementation (${embeddedBackendNames.join(', ')}) to serve with --backends-only`,
    );
  const logger = pino(loggerSettings(config.logLevel));
  // As a gateway does (src/app.ts): before pg loads, and only when configured.
  const stopTracing = config.tracing
    ? await (
        await import('../tracing.ts')
      ).startTracing(config.tracing, {
        warn: (details, message) => logger.warn(details, message),
        preload: config.databaseUrl ? ['pg'] : [],
      })
    : undefined;
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    database: config.database,
    onConnectionLost: (error) =>
      logger.warn({ err: error }, 'an idle database connection was lost; the pool replaces it'),
  });
  const notifier = new Forwarder(eventTargets(config, names), config.uidDomain, createMetrics());
  const host = await buildBackendHost({
    names,
    context: {
      store,
      config,
      notify: (notification) => sendNotification(notifier, notification, logger),
      recordUsage: (usage) => sendUsage({ forwarder: notifier }, usage, logger),
    },
    secret: config.backendSecret,
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    logRequests: true,
    connections: config.connections,
  });
  host.addHook('onClose', async () => {
    await notifier.close(config.connections.shutdownGraceMs);
    await store.close();
    await stopTracing?.();
  });
  await host.listen({ port: config.port, host: config.host });
  return host;
}

import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { ConfigError, type GatewayConfig } from '../config.js';
import { openStore } from '../store/database.js';
import { embeddedBackendNames, isEmbeddedBackend } from './catalog.js';
import { buildBackendHost } from './host.js';

/**
 * Serves the selected embedded backends as their own process, for gateways that reach them
 * through `<SERVICE>_URL=http://<host>:<port>/<name>`. The network can reach this listener, so
 * the shared BACKEND_SECRET is mandatory.
 */
export async function serveBackendsStandalone(config: GatewayConfig): Promise<FastifyInstance> {
  if (!config.backendSecret) throw new ConfigError('BACKEND_SECRET', 'must be set to serve backends on their own (--backends-only)');
  const names = config.embeddedBackends.filter(isEmbeddedBackend);
  if (names.length === 0) throw new ConfigError('EMBEDDED_BACKENDS', `names no backend with an embedded implementation (${embeddedBackendNames.join(', ')}) to serve with --backends-only`);
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const host = await buildBackendHost({
    names,
    context: { store, config },
    secret: config.backendSecret,
    logger: pino({ level: config.logLevel }),
    bodyLimitBytes: config.bodyLimitBytes,
    logRequests: true,
  });
  host.addHook('onClose', async () => store.close());
  await host.listen({ port: config.port, host: config.host });
  return host;
}

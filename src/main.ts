// First: it holds the young generation small while everything below is loaded and built.
import { youngGenerationMayGrow } from './start-heap.ts';
import cluster from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildGateway } from './app.ts';
import { runPrimary } from './cluster.ts';
import { serveBackendsStandalone } from './embedded/standalone.ts';
import { ConfigError, loadConfig } from './config/index.ts';
import { keepTickShape } from './tick-shape.ts';

const usage = `Usage: npm start -- [--backends <names|all|none>] [--backends-only]
  --backends       embedded backends to run (default: EMBEDDED_BACKENDS, else all)
  --backends-only  serve only those backends on HOST:PORT (each under /<name>), for gateways elsewhere;
                   requires BACKEND_SECRET (one process, whatever WORKERS says)`;

interface Stoppable {
  log: {
    info(details: object, message: string): void;
    error(details: object, message: string): void;
  };
  close(): Promise<void>;
}

/** Beyond the grace for connections, what closing the stores and pools may take before the process just exits. */
const CLOSE_BACKSTOP_MS = 5_000;

/**
 * SIGINT and SIGTERM close the listener: idle connections at once, requests in flight after
 * SHUTDOWN_GRACE_MS (close() destroys their connections then). Should closing still hang (a
 * database that does not answer), the process exits anyway.
 */
function stopOnSignals(server: Stoppable, graceMs: number): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    // A cluster worker may hear both the terminal's SIGINT and its primary's SIGTERM: one shutdown.
    if (stopping) return;
    stopping = true;
    server.log.info({ signal }, 'shutting down');
    setTimeout(() => {
      server.log.error({ signal }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, graceMs + CLOSE_BACKSTOP_MS).unref();
    try {
      await server.close();
    } catch (error) {
      server.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

async function main(): Promise<void> {
  // Whatever this process serves, it may sit idle and must not come back slower (tick-shape.ts).
  keepTickShape();
  const { values } = parseArgs({
    options: {
      backends: { type: 'string' },
      'backends-only': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const config = loadConfig(
    values.backends === undefined
      ? process.env
      : { ...process.env, EMBEDDED_BACKENDS: values.backends },
  );

  if (values['backends-only']) {
    const host = await serveBackendsStandalone(config);
    stopOnSignals(host, config.connections.shutdownGraceMs);
    return;
  }

  // WORKERS>1: this process is the primary (src/cluster.ts); its workers run this file again.
  if (config.workers > 1 && cluster.isPrimary) {
    await runPrimary(config, fileURLToPath(import.meta.url));
    return;
  }

  const gateway = await buildGateway(config);
  stopOnSignals(
    { log: gateway.app.log, close: () => gateway.close() },
    config.connections.shutdownGraceMs,
  );
  await gateway.app.listen({ port: config.port, host: config.host });
  if (config.auth.embeddedKeys) {
    gateway.app.log.info(
      'embedded signing key in use: `npm run token -- <username> [--admin]` prints a token',
    );
  }
}

main().then(youngGenerationMayGrow, (error: unknown) => {
  // A configuration mistake is the operator's to fix: one line naming the variable, no stack.
  const message =
    error instanceof ConfigError ? error.message : `Failed to start: ${(error as Error).message}`;
  console.error(
    message.includes('Unknown option') || message.includes('Unexpected argument')
      ? `${message}\n${usage}`
      : message,
  );
  process.exit(1);
});

import { parseArgs } from 'node:util';
import { buildGateway } from './app.js';
import { serveBackendsStandalone } from './backends/standalone.js';
import { ConfigError, loadConfig } from './config.js';

const usage = `Usage: npm start -- [--backends <names|all|none>] [--backends-only]
  --backends       embedded backends to run (default: EMBEDDED_BACKENDS, else all)
  --backends-only  serve only those backends on HOST:PORT (each under /<name>), for gateways elsewhere;
                   requires BACKEND_SECRET`;

interface Stoppable {
  log: { info(details: object, message: string): void };
  close(): Promise<void>;
}

function stopOnSignals(server: Stoppable): void {
  const shutdown = async (signal: string) => {
    server.log.info({ signal }, 'shutting down');
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { backends: { type: 'string' }, 'backends-only': { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const config = loadConfig(values.backends === undefined ? process.env : { ...process.env, EMBEDDED_BACKENDS: values.backends });

  if (values['backends-only']) {
    const host = await serveBackendsStandalone(config);
    stopOnSignals(host);
    return;
  }

  const gateway = await buildGateway(config);
  stopOnSignals({ log: gateway.app.log, close: () => gateway.close() });
  await gateway.app.listen({ port: config.port, host: config.host });
  if (config.auth.embeddedKeys) {
    gateway.app.log.info('embedded signing key in use: `npm run token -- <username> [--admin]` prints a token');
  }
}

main().catch((error: unknown) => {
  // A configuration mistake is the operator's to fix: one line naming the variable, no stack.
  const message = error instanceof ConfigError ? error.message : `Failed to start: ${(error as Error).message}`;
  console.error(message.includes('Unknown option') || message.includes('Unexpected argument') ? `${message}\n${usage}` : message);
  process.exit(1);
});

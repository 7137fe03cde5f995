import { buildGateway } from './app.js';
import { ConfigError, loadConfig } from './config.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const gateway = await buildGateway(config);
  const shutdown = async (signal: string) => {
    gateway.app.log.info({ signal }, 'shutting down');
    await gateway.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  await gateway.app.listen({ port: config.port, host: config.host });
  if (config.auth.embeddedKeys) {
    gateway.app.log.info('embedded signing key in use: `npm run token -- <username> [--admin]` prints a token');
  }
}

main().catch((error: unknown) => {
  // A configuration mistake is the operator's to fix: one line naming the variable, no stack.
  console.error(error instanceof ConfigError ? error.message : `Failed to start: ${(error as Error).message}`);
  process.exit(1);
});

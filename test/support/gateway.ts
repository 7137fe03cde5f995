// A real gateway on an ephemeral loopback port for tests, with a quiet default environment, and
// `requiredInCi`, which turns a missing DATABASE_URL or REDIS_URL into a failure in CI.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildGateway, type Gateway, type GatewayOptions } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import { copySqliteTemplate } from './sqlite-template.ts';

/** Rate limits high enough that tests of other behaviour never meet them. */
export const noRateLimits = {
  RATE_LIMIT_USER_PER_MIN: '100000',
  RATE_LIMIT_BURST: '100000',
  RATE_LIMIT_ANON_PER_MIN: '100000',
};

export interface RunningGateway {
  url: string;
  gateway: Gateway;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * Starts a real gateway on an ephemeral loopback port. `env` is layered over a quiet default
 * environment (the process's own DATABASE_URL and REDIS_URL are NOT inherited unless passed).
 * On SQLite in a data folder of its own, its database is a copy of the migrated template.
 */
export async function startGateway(
  env: Record<string, string | undefined> = {},
  options: GatewayOptions = {},
): Promise<RunningGateway> {
  const dataDir = env.GATEWAY_DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'gateway-test-'));
  if (!env.GATEWAY_DATA_DIR && !env.DATABASE_URL) await copySqliteTemplate(dataDir);
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    PORT: '0',
    GATEWAY_DATA_DIR: dataDir,
    ...contractCheckEnv(),
    ...env,
  });
  const gateway = await buildGateway(config, options);
  await gateway.app.listen({ port: 0, host: '127.0.0.1' });
  const address = gateway.app.server.address();
  if (!address || typeof address === 'string') throw new Error('gateway did not bind a TCP port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    gateway,
    dataDir,
    close: async () => {
      await gateway.close();
      if (!env.GATEWAY_DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * CONTRACT_CHECK as the test process has it (scripts/test.mjs sets it): a gateway a test builds
 * holds its answers against its OpenAPI document (src/http/contract-check.ts).
 */
export function contractCheckEnv(): { CONTRACT_CHECK?: string } {
  const value = process.env.CONTRACT_CHECK;
  return value === undefined ? {} : { CONTRACT_CHECK: value };
}

/** The value of an environment variable CI sets; a test that needs it fails loudly without it in CI. */
export function requiredInCi(name: 'DATABASE_URL' | 'REDIS_URL'): string | undefined {
  const value = process.env[name];
  if (!value && process.env.CI)
    throw new Error(`${name} must be set in CI: its tests may not be skipped`);
  return value;
}

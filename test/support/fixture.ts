// The usual secured integration setup: a JWKS server, a recording stand-in backend, and a gateway
// that trusts the one and forwards to the other.
import type { GatewayOptions } from '../../src/app.ts';
import { startBackend, type TestBackend } from './backend.ts';
import { noRateLimits, startGateway, type RunningGateway } from './gateway.ts';
import {
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
  type JwksServer,
  type SigningKey,
} from './tokens.ts';

export interface SecuredFixture {
  key: SigningKey;
  jwks: JwksServer;
  backend: TestBackend;
  running: RunningGateway;
  /** A valid token for `username`, signed by the trusted key. */
  tokenFor(username: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The usual integration setup: a JWKS server with one key, a recording test backend, and a
 * gateway trusting the one and forwarding to the other (`env` maps the backend URL to settings).
 * Rate limits are out of the way unless `env` sets them.
 */
export async function startSecuredFixture(
  env: (backendUrl: string) => Record<string, string>,
  options: { alg?: 'RS256' | 'ES256'; recordBody?: boolean; gateway?: GatewayOptions } = {},
): Promise<SecuredFixture> {
  const key = await createSigningKey(options.alg ?? 'ES256', 'fixture-key');
  const jwks = await startJwksServer([key]);
  const backend = await startBackend(undefined, { recordBody: options.recordBody });
  const running = await startGateway(
    { ...noRateLimits, AUTH_JWKS_URL: jwks.url, ...env(backend.url) },
    options.gateway,
  );
  return {
    key,
    jwks,
    backend,
    running,
    tokenFor: (username) => signToken(key, userClaims(username)),
    close: async () => {
      await running.close();
      await backend.close();
      await jwks.close();
    },
  };
}

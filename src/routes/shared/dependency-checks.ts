// The health checks of the gateway's dependencies, shared by `/readyz` (operations) and the
// administrators' `/admin/status`.
import type { BackendName } from '../../common/backend-names.ts';
import type { GatewayConfig } from '../../config/index.ts';
import type { Forwarder } from '../../http/proxy.ts';
import type { Store } from '../../store/database.ts';

export interface DependencyCheckDeps {
  store: Store;
  forwarder: Forwarder;
  /** Backends with a configured URL: each is probed. */
  remoteBackends: BackendName[];
  /** Answers when Redis (REDIS_URL) does. */
  pingRedis?: () => Promise<void>;
  /** Answers when the S3 bucket of file bytes (BLOB_STORE_URL) does: readiness requires it. */
  pingBlobStore?: () => Promise<void>;
  /** readinessTimeoutMs: longest wait for each check (READINESS_TIMEOUT_MS). */
  config: Pick<GatewayConfig, 'readinessTimeoutMs'>;
}

/** 'ok', or why the dependency is not ready: its error, or no answer within `timeoutMs`. */
async function check(probe: () => Promise<void>, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  // A probe left behind by the deadline runs out on its own bounds; its late failure is no one's to hear.
  const probing = probe();
  probing.catch(() => {});
  try {
    await Promise.race([probing, deadline]);
    return 'ok';
  } catch (error) {
    return `unavailable: ${(error as Error).message}`;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What readiness checks, by name: `database`, `redis` and `blob-store` (when configured) and every backend with a
 * URL, each 'ok' or why not. `/admin/status` shows the same checks to administrators.
 */
export async function dependencyChecks(deps: DependencyCheckDeps): Promise<Record<string, string>> {
  const probes: Record<string, () => Promise<void>> = { database: deps.store.ping };
  if (deps.pingRedis) probes.redis = deps.pingRedis;
  if (deps.pingBlobStore) probes['blob-store'] = deps.pingBlobStore;
  for (const backend of deps.remoteBackends) {
    probes[backend] = async () => {
      // Any HTTP answer proves the backend is reachable; only transport failures count.
      const response = await deps.forwarder.request(
        backend,
        'GET',
        '/',
        {},
        undefined,
        AbortSignal.timeout(deps.config.readinessTimeoutMs),
      );
      await response.body.dump();
    };
  }
  const names = Object.keys(probes);
  const results = await Promise.all(
    names.map((name) => check(probes[name]!, deps.config.readinessTimeoutMs)),
  );
  return Object.fromEntries(names.map((name, index) => [name, results[index]!]));
}

// What an area of the gateway's routes is (one tag family: its tags, passthrough rows and the plugin
// of its aggregated routes), and the one function that registers a list of them (src/app.ts).
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { BackendName } from '../../common/backend-names.ts';
import type { GatewayConfig } from '../../config/index.ts';
import type { EmbeddedIdentity } from '../../common/identity-provider.ts';
import type { Metrics } from '../../http/metrics.ts';
import { registerPassthroughs, type PassthroughRoute } from '../../http/passthrough.ts';
import type { Forwarder } from '../../http/proxy.ts';
import type { BackendSchemas } from '../../http/backend-schemas.ts';
import type { Store } from '../../store/database.ts';
import { LRUCache } from 'lru-cache';
import type { Tag } from './tags.ts';

/** What the gateway hands its areas. */
export interface GatewayParts {
  forwarder: Forwarder;
  config: GatewayConfig;
  store: Store;
  metrics: Metrics;
  /** Backends with a configured URL: readiness requires each to answer. */
  remoteBackends: BackendName[];
  /** The embedded identity provider, when it is on (else `/token` and `/oidc/*` use AUTH_TOKEN_URL). */
  identityProvider?: EmbeddedIdentity;
  /** The embedded services' route schemas, which document the passthroughs they answer. */
  backendSchemas?: BackendSchemas;
  /** Answers when the shared rate-limit store (Redis, with REDIS_URL set) does: readiness requires it. */
  pingRedis?: () => Promise<void>;
  /** Answers when the S3 bucket of file bytes (BLOB_STORE_URL) does: readiness requires it. */
  pingBlobStore?: () => Promise<void>;
}

/** What an area's plugin receives: the gateway's parts and the state the areas share. */
export interface AreaDeps extends GatewayParts {
  /** Output folders known to exist (`user\0path`), so the data store is asked once per user and process. */
  ensuredOutputFolders: LRUCache<string, true>;
}

export interface Area {
  /** The tag family: the area's file (routes/<name>.ts) or folder (routes/<name>/index.ts). */
  name: string;
  /** The OpenAPI tags it owns: every route it registers carries one of them, and no other area does. */
  tags: readonly Tag[];
  /** Routes served by forwarding to one backend. */
  passthroughs: readonly PassthroughRoute<Tag>[];
  /** The routes that aggregate backend calls (or answer at the gateway). */
  plugin?: (app: FastifyInstance, deps: AreaDeps) => Promise<void>;
}

/** A route carrying no tag of the area registering it is a mistake: the gateway refuses to start. */
function refuseForeignTags(area: Area, route: RouteOptions): void {
  const tags = (route.schema as { tags?: string[] } | undefined)?.tags ?? [];
  const foreign = tags.length === 0 || tags.some((tag) => !area.tags.includes(tag as Tag));
  if (foreign)
    throw new Error(
      `${route.method} ${route.url} of area ${area.name} carries tags ${JSON.stringify(tags)}, not among ${area.tags.join(', ')}`,
    );
}

/** Registers every area, each in a context of its own that checks the tags of the routes it adds. */
export async function registerAreas(
  app: FastifyInstance,
  areas: readonly Area[],
  parts: GatewayParts,
): Promise<void> {
  const deps: AreaDeps = { ...parts, ensuredOutputFolders: new LRUCache({ max: 10_000 }) };
  const passthroughDeps = {
    forwarder: parts.forwarder,
    config: parts.config,
    uidDomain: parts.config.uidDomain,
    bodyLimitBytes: parts.config.bodyLimitBytes,
    ...(parts.backendSchemas ? { backendSchemas: parts.backendSchemas } : {}),
  };
  for (const area of areas)
    await app.register(async (scope) => {
      scope.addHook('onRoute', (route) => refuseForeignTags(area, route));
      if (area.plugin) await scope.register(area.plugin, deps);
      await registerPassthroughs(scope, area.passthroughs, passthroughDeps);
    });
}

import type { FastifyPluginAsync } from 'fastify';
import type { GatewayConfig } from '../config/index.ts';
import type { UserNotification } from '../common/notifications.ts';
import type { UsageRecord } from '../common/usages.ts';
import type { Store } from '../store/database.ts';
import type { EmbeddedBackendName } from '../common/backend-names.ts';
import type { DocumentedSchemas } from '../common/documented-schemas.ts';

/** What every embedded backend service is given: the store, the platform settings, a way to notify users. */
export interface BackendContext {
  store: Store;
  config: Pick<
    GatewayConfig,
    | 'uidDomain'
    | 'jsonMaxDepth'
    | 'dataStore'
    | 'notifications'
    | 'oauth'
    | 'dataDir'
    | 'keys'
    | 'genomes'
    | 'analyses'
    | 'email'
  >;
  /**
   * Sends a user a notification through the notification agent, wherever it runs (the one event
   * path, src/http/notifications.ts); answers whether it was accepted and never throws.
   */
  notify: (notification: UserNotification) => Promise<boolean>;
  /**
   * Records a usage with the QMS (`POST /v1/usages`), wherever it runs; answers whether it was
   * recorded and never throws. Absent where no QMS is reachable (some tests).
   */
  recordUsage?: (usage: UsageRecord) => Promise<boolean>;
  /** Milliseconds since the epoch (default Date.now); tests move it. */
  now?: () => number;
  /**
   * The services the host serves together, all on `store` (the host sets it). data-info lists a
   * user's favourites itself (`/favorite-lister`) only when metadata is among them.
   */
  hosted?: readonly EmbeddedBackendName[];
}

/**
 * An embedded backend: a Fastify plugin serving that backend's own paths and shapes
 * (backends.md). The host mounts it under `/<name>`; it never sees the public listener.
 */
export interface EmbeddedService {
  name: EmbeddedBackendName;
  plugin: FastifyPluginAsync<BackendContext>;
  /**
   * What its routes take and answer, for the OpenAPI document (`METHOD /path` → schemas, the path
   * as the service serves it): documentation only, the answers are serialised as they are. A
   * route's own schemas and `config.openapi` win over its entry.
   */
  documented?: Readonly<Record<string, DocumentedSchemas>>;
}

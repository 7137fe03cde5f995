import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { GatewayConfig } from '../config.js';
import { sendError } from '../http/errors.js';
import type { UserNotification } from '../http/notifications.js';
import type { Store } from '../store/database.js';
import { backendEnvPrefix, type EmbeddedBackendName } from './catalog.js';
import { gatewayError } from '../common/errors.js';

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
    | 'genomes'
    | 'analyses'
  >;
  /**
   * Sends a user a notification through the notification agent, wherever it runs (the one event
   * path, src/http/notifications.ts); answers whether it was accepted and never throws.
   */
  notify: (notification: UserNotification) => Promise<boolean>;
  /** Milliseconds since the epoch (default Date.now); tests move it. */
  now?: () => number;
}

/**
 * An embedded backend: a Fastify plugin serving that backend's own paths and shapes
 * (backends.md). The host mounts it under `/<name>`; it never sees the public listener.
 */
export interface EmbeddedService {
  name: EmbeddedBackendName;
  plugin: FastifyPluginAsync<BackendContext>;
}

/** Paths a partial embedded service does not serve answer 501 naming the variable that points elsewhere. */
export function answerUnimplemented(app: FastifyInstance, name: EmbeddedBackendName): void {
  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      gatewayError(
        'ERR_NOT_IMPLEMENTED',
        `The embedded ${name} service does not implement ${request.method} ${request.url.split('?')[0]}; set ${backendEnvPrefix(name)}_URL to reach a full one.`,
        { backend: name },
      ),
    ),
  );
}

/** The `user` query parameter every identity-taking backend route requires. */
export function requireUserParam(query: unknown): string {
  const user = (query as { user?: unknown } | undefined)?.user;
  if (typeof user !== 'string' || user === '') {
    throw gatewayError('ERR_MISSING_QUERY_PARAMETER', 'missing query parameter "user"', {
      field: 'user',
    });
  }
  return user;
}

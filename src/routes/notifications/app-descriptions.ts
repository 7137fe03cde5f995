// Spec "Events" 5: job-status notifications get their app's description when they are retrieved.
// A page of notifications costs at most one apps call (the analyses not cached yet, by id), and a
// notification whose analysis or app is unknown, or an apps service that fails, leaves it as it was.
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Identity } from '../../common/identity.ts';
import type { Forwarder } from '../../http/proxy.ts';
import { analysesByIds } from '../../clients/apps.ts';

interface Notification {
  payload?: { action?: unknown; analysis_id?: unknown; [key: string]: unknown };
  [key: string]: unknown;
}

const isJobStatusChange = (notification: Notification): boolean =>
  notification.payload?.action === 'job_status_change' &&
  typeof notification.payload.analysis_id === 'string' &&
  notification.payload.analysis_id !== '';

/** App descriptions by user and analysis, kept briefly (APP_DESCRIPTION_CACHE_MS); `null` = known to have none. */
export class AppDescriptions {
  private readonly cache: LRUCache<string, { description: string | null }> | undefined;

  private readonly forwarder: Forwarder;

  constructor(forwarder: Forwarder, ttlMs: number) {
    this.forwarder = forwarder;
    this.cache = ttlMs > 0 ? new LRUCache({ max: 10_000, ttl: ttlMs }) : undefined;
  }

  /** The notifications with `payload.app_description` added where it is known. */
  async addTo<T extends Notification>(
    notifications: T[],
    identity: Identity,
    log: Pick<FastifyBaseLogger, 'warn'>,
    requestId?: string,
  ): Promise<T[]> {
    const ids = [
      ...new Set(
        notifications
          .filter(isJobStatusChange)
          .map((notification) => notification.payload!.analysis_id as string),
      ),
    ];
    if (ids.length === 0) return notifications;
    const key = (id: string) => `${identity.username}\n${id}`;
    const known = new Map<string, string | null>();
    const missing: string[] = [];
    for (const id of ids) {
      const cached = this.cache?.get(key(id));
      if (cached) known.set(id, cached.description);
      else missing.push(id);
    }
    if (missing.length > 0) {
      try {
        const listing = await analysesByIds(
          { forwarder: this.forwarder, identity, requestId },
          missing,
        );
        const found = new Map(
          (listing.analyses ?? []).map((analysis) => [
            String(analysis.id),
            typeof analysis.app_description === 'string' ? analysis.app_description : null,
          ]),
        );
        for (const id of missing) {
          const description = found.get(id) ?? null;
          known.set(id, description);
          this.cache?.set(key(id), { description });
        }
      } catch (error) {
        log.warn(
          { err: error, analyses: missing.length },
          'app descriptions for job notifications are unavailable',
        );
      }
    }
    return notifications.map((notification) => {
      const description = isJobStatusChange(notification)
        ? known.get(notification.payload!.analysis_id as string)
        : undefined;
      return typeof description === 'string'
        ? { ...notification, payload: { ...notification.payload, app_description: description } }
        : notification;
    });
  }
}

import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Database } from '../store/schema.js';
import type { Identity } from '../common/identity.js';
import { recordUser } from '../store/users.js';
import { qualifiedUsername } from '../common/users.js';

/**
 * Records every identity that gets through authentication, so the platform can describe its
 * users (`/secured/user-info`) and backends can refer to them. A user whose token attributes
 * are unchanged is written at most once per `refreshMs` per process: concurrent requests of one
 * user (a client's first page load) share one write rather than each upserting the same row.
 */
export class SeenUsers {
  /** The write made (or being made) for an identity; a failed one is forgotten so the next request retries. */
  private readonly recent: LRUCache<string, Promise<void>>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly uidDomain: string,
    private readonly log: FastifyBaseLogger,
    refreshMs = 5 * 60_000,
  ) {
    // At most 50,000 entries, counted through maxSize: `max` would allocate all 50,000 slots (and
    // their TTL arrays) up front, ≈ 1.5 MiB held by an idle gateway.
    this.recent = new LRUCache({ maxSize: 50_000, sizeCalculation: () => 1, ttl: refreshMs });
  }

  async record(identity: Identity): Promise<void> {
    const key = JSON.stringify([
      identity.username,
      identity.email,
      identity.firstName,
      identity.lastName,
    ]);
    let write = this.recent.get(key);
    if (!write) {
      write = this.write(identity, key);
      this.recent.set(key, write);
    }
    await write;
  }

  private async write(identity: Identity, key: string): Promise<void> {
    try {
      await recordUser(this.db, qualifiedUsername(identity.username, this.uidDomain), {
        email: identity.email,
        firstName: identity.firstName,
        lastName: identity.lastName,
      });
    } catch (error) {
      // Serving the request matters more than the directory entry; the next request retries.
      this.recent.delete(key);
      this.log.warn({ err: error, user: identity.username }, 'could not record user');
    }
  }
}

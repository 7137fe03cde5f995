import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Database } from '../store/schema.ts';
import type { Identity } from '../common/identity.ts';
import { recordUser } from '../store/users.ts';
import { qualifiedUsername } from '../common/users.ts';

/**
 * Records every identity that gets through authentication, so the platform can describe its
 * users (`/secured/user-info`) and backends can refer to them. A user whose token attributes
 * are unchanged is written at most once per `refreshMs` per process: concurrent requests of one
 * user (a client's first page load) share one write rather than each upserting the same row.
 */
export class SeenUsers {
  /**
   * The write being made for an identity, or `true` once it is made; a failed one is forgotten
   * so the next request retries.
   */
  private readonly recent: LRUCache<string, Promise<void> | true>;

  private readonly db: Kysely<Database>;
  private readonly uidDomain: string;
  private readonly log: FastifyBaseLogger;

  constructor(
    db: Kysely<Database>,
    uidDomain: string,
    log: FastifyBaseLogger,
    refreshMs = 5 * 60_000,
  ) {
    this.db = db;
    this.uidDomain = uidDomain;
    this.log = log;
    // At most 50,000 entries, counted through maxSize: `max` would allocate all 50,000 slots (and
    // their TTL arrays) up front, ≈ 1.5 MiB held by an idle gateway.
    this.recent = new LRUCache({ maxSize: 50_000, sizeCalculation: () => 1, ttl: refreshMs });
  }

  /**
   * Records `identity` unless it was recently; answers a promise only while a write is to be
   * waited for (the request path then waits), undefined when the user is on record already.
   */
  record(identity: Identity): Promise<void> | undefined {
    const key = JSON.stringify([
      identity.username,
      identity.email,
      identity.firstName,
      identity.lastName,
    ]);
    const recent = this.recent.get(key);
    if (recent === true) return undefined;
    if (recent) return recent;
    const write = this.write(identity, key);
    this.recent.set(key, write);
    return write;
  }

  private async write(identity: Identity, key: string): Promise<void> {
    try {
      await recordUser(this.db, qualifiedUsername(identity.username, this.uidDomain), {
        email: identity.email,
        firstName: identity.firstName,
        lastName: identity.lastName,
      });
      // Only while it is still the entry (the LRU may have dropped or replaced it meanwhile).
      if (this.recent.peek(key) !== undefined) this.recent.set(key, true, { noUpdateTTL: true });
    } catch (error) {
      // Serving the request matters more than the directory entry; the next request retries.
      this.recent.delete(key);
      this.log.warn({ err: error, user: identity.username }, 'could not record user');
    }
  }
}

import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Database } from '../store/schema.js';
import type { Identity } from './auth.js';
import { qualifiedUsername, recordUser } from '../store/users.js';

/**
 * Records every identity that gets through authentication, so the platform can describe its
 * users (`/secured/user-info`) and backends can refer to them. A user whose token attributes
 * are unchanged is written at most once per `refreshMs` per process.
 */
export class SeenUsers {
  private readonly recent: LRUCache<string, true>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly uidDomain: string,
    private readonly log: FastifyBaseLogger,
    refreshMs = 5 * 60_000,
  ) {
    this.recent = new LRUCache({ max: 50_000, ttl: refreshMs });
  }

  async record(identity: Identity): Promise<void> {
    const key = JSON.stringify([identity.username, identity.email, identity.firstName, identity.lastName]);
    if (this.recent.has(key)) return;
    try {
      await recordUser(this.db, qualifiedUsername(identity.username, this.uidDomain), {
        email: identity.email,
        firstName: identity.firstName,
        lastName: identity.lastName,
      });
      this.recent.set(key, true);
    } catch (error) {
      // Serving the request matters more than the directory entry; the next request retries.
      this.log.warn({ err: error, user: identity.username }, 'could not record user');
    }
  }
}

// PostgreSQL statements prepared once per connection.
//
// Kysely's PostgreSQL driver sends every query unnamed, so the server parses and plans it at every
// run. On the 100k-item catalog of `npm run bench:scale` that was more than half of the server's
// time for a paged-directory page (parse and plan 2.5 ms against 2.1 to run) and for a favourites
// listing (4.7 against 2.8; planning the favourites' total alone 2.7): bench/README.md, "Data at
// scale". A named statement is parsed once per connection, and from its sixth run PostgreSQL keeps
// a generic plan when that is no dearer than the custom ones (plan_cache_mode `auto`).
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { PREPARED_PER_CONNECTION } from '../config/index.ts';

/** Texts remembered as seen once: a text is prepared from its second run on. */
const REMEMBERED_TEXTS = 2_000;

/** Queries, which are worth planning once; not transaction control, DDL or migrations' other statements. */
const QUERY = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * Which statements run prepared. A text is named from its second run on, so that one-off texts (an
 * `in` list of an unusual length) do not take a connection's places; each connection prepares at
 * most `perConnection` (0: none, for a pooler that does not keep named statements) and runs the
 * others unnamed, as before. The name is a digest of the text: every connection prepares a text
 * under the same name, and pg refuses a name reused for another text.
 */
export class PreparedStatements {
  private readonly seen = new LRUCache<string, true>({ max: REMEMBERED_TEXTS });
  private readonly prepared = new WeakMap<object, Set<string>>();

  private readonly perConnection;

  constructor(perConnection = PREPARED_PER_CONNECTION) {
    this.perConnection = perConnection;
  }

  /** The name `text` runs under on `connection`, or undefined to run it unnamed. */
  nameFor(connection: object, text: string): string | undefined {
    if (this.perConnection === 0 || !QUERY.test(text)) return undefined;
    const name = `g_${createHash('sha1').update(text).digest('base64url')}`;
    let names = this.prepared.get(connection);
    if (names?.has(name)) return name;
    if (!this.seen.has(name)) {
      this.seen.set(name, true);
      return undefined;
    }
    if (!names) this.prepared.set(connection, (names = new Set()));
    if (names.size >= this.perConnection) return undefined;
    names.add(name);
    return name;
  }
}

/**
 * PostgreSQL refuses to run a prepared statement whose result columns changed since it was
 * prepared (a `select *` after another gateway's migration added a column): 0A000, "cached plan
 * must not change result type". Run unnamed, the same text answers.
 */
export function isStalePlan(error: unknown): boolean {
  return (
    (error as { code?: unknown }).code === '0A000' &&
    /cached plan must not change result type/.test((error as Error).message)
  );
}

/** Whether a statement Kysely sends opens (true) or ends (false) a transaction, or neither (undefined). */
export function transactionBoundary(text: string): boolean | undefined {
  if (/^\s*(begin|start\s+transaction)\b/i.test(text)) return true;
  if (/^\s*(commit|end|rollback(?!\s+to\b))\b/i.test(text)) return false;
  return undefined;
}

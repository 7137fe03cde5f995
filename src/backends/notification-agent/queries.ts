import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import { normalizeQuery, optionalBooleanParam } from '../../common/query-params.ts';
import type { Database } from '../../store/schema.ts';
import { storedType } from './model.ts';
import { gatewayError } from '../../common/errors.ts';

/** The caller's query, names lower-cased (see normalizeQuery); `user` is required by every user route. */
export function agentQuery(raw: unknown): { user: string; query: Record<string, string> } {
  const query = normalizeQuery(raw) as Record<string, string>;
  const user = query.user;
  if (!user)
    throw gatewayError('ERR_MISSING_QUERY_PARAMETER', 'missing query parameter "user"', {
      field: 'user',
    });
  return { user: user.split('@')[0]!, query };
}

/** The mark-all routes name their user in the body (backends.md §4.1, §4.5), or in the query as the others do. */
export function markAllUser(request: { query: unknown; body?: unknown }): string {
  const bodyUser = (request.body as { user?: unknown } | null | undefined)?.user;
  const queryUser = (request.query as { user?: unknown } | undefined)?.user;
  if (queryUser === undefined && typeof bodyUser === 'string' && bodyUser !== '')
    return bodyUser.split('@')[0]!;
  return agentQuery(request.query).user;
}

/** Keeps one statement's bound parameters well inside both engines' limits. */
export const maxIds = 1000;

/** `{uuids: [...]}` of the mark and delete routes; ids are kept in lower case. */
export function uuidListOf(body: unknown): string[] {
  const uuids = (body as { uuids?: unknown } | null)?.uuids;
  if (!Array.isArray(uuids) || uuids.some((id) => typeof id !== 'string')) {
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'the body must be {"uuids": [<id>, ...]}', {
      field: 'uuids',
    });
  }
  if (uuids.length > maxIds)
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `at most ${maxIds} uuids per request`, {
      field: 'uuids',
    });
  return [...new Set((uuids as string[]).map((id) => id.toLowerCase()))];
}

/** The first of several accepted spellings (`sort_field`, `sort-field`, `sortfield`). */
export function spelled(query: Record<string, string>, ...names: string[]): string | undefined {
  for (const name of names) if (query[name] !== undefined && query[name] !== '') return query[name];
  return undefined;
}

/** Which of a user's notifications a listing, count or delete-all means (backends.md §4.3). */
export interface Selection {
  user: string;
  seen?: boolean;
  type?: string;
}

/** `filter`: a type name in any case, spaces for `_`; `new` means unseen of every type. */
export function selectionOf(user: string, query: Record<string, string>): Selection {
  let seen = optionalBooleanParam(query, 'seen');
  const filter =
    query.filter === undefined || query.filter.trim() === '' ? undefined : storedType(query.filter);
  if (filter === 'new') seen = false;
  return { user, seen, type: filter === 'new' ? undefined : filter };
}

/** A user's live (not deleted) notifications as the selection says. */
export function selected(
  db: Kysely<Database>,
  { user, seen, type }: Selection,
): SelectQueryBuilder<Database, 'notifications', {}> {
  let query = db
    .selectFrom('notifications')
    .where('username', '=', user)
    .where('deleted', '=', false);
  if (seen !== undefined) query = query.where('seen', '=', seen);
  if (type !== undefined) query = query.where('type', '=', type);
  return query;
}

/**
 * How many notifications a selection holds, read from the counters migration 033's triggers keep
 * per user, type and seen (at most a few rows, whatever the number of notifications).
 */
export async function countSelected(
  db: Kysely<Database>,
  { user, seen, type }: Selection,
): Promise<number> {
  let query = db.selectFrom('notification_counts').where('username', '=', user);
  if (seen !== undefined) query = query.where('seen', '=', seen);
  if (type !== undefined) query = query.where('type', '=', type);
  const row = await query
    .select((eb) => eb.fn.sum<number | string | null>('count').as('count'))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** Live notifications of a user not yet seen, of every type: the `count` the marks answer (spec). */
export const unseenCount = (db: Kysely<Database>, user: string): Promise<number> =>
  countSelected(db, { user, seen: false });

/** System messages active at `now`, against one user's acknowledgment state (null: unreceived). */
export function activeSystemMessages(db: Kysely<Database>, user: string, now: number) {
  return db
    .selectFrom('system_notifications as s')
    .leftJoin('system_notification_acknowledgments as a', (join) =>
      join.onRef('a.system_notification_id', '=', 's.id').on('a.username', '=', user),
    )
    .where('s.activation_date', '<=', now)
    .where('s.deactivation_date', '>', now);
}

export interface SystemCounts {
  'system-total': number;
  'system-total-new': number;
  'system-total-unseen': number;
}

/** The system counts of the spec's count response, in one query. */
export async function systemCounts(
  db: Kysely<Database>,
  user: string,
  now: number,
): Promise<SystemCounts> {
  const row = await activeSystemMessages(db, user, now)
    .select([
      sql<number>`sum(case when a.state is null or a.state < 3 then 1 else 0 end)`.as('total'),
      sql<number>`sum(case when a.state is null then 1 else 0 end)`.as('unreceived'),
      sql<number>`sum(case when a.state is null or a.state < 2 then 1 else 0 end)`.as('unseen'),
    ])
    .executeTakeFirst();
  return {
    'system-total': Number(row?.total ?? 0),
    'system-total-new': Number(row?.unreceived ?? 0),
    'system-total-unseen': Number(row?.unseen ?? 0),
  };
}

/** A page of a listing query: `limit` 0 means all. SQLite takes an OFFSET only after a LIMIT. */
export function paged<Q extends { limit(count: number): Q; offset(count: number): Q }>(
  query: Q,
  limit: number,
  offset: number,
): Q {
  if (limit === 0 && offset === 0) return query;
  return query.limit(limit > 0 ? limit : Number.MAX_SAFE_INTEGER).offset(offset);
}

import {
  PostgresAdapter,
  sql,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type SqlBool,
  type Transaction,
} from 'kysely';
import type { Database } from '../../store/schema.ts';
import { blobOf, type DataObject } from './object-index.ts';
import { baseName, parentOf } from '../../common/data-path.ts';
import { gatewayError } from '../../common/errors.ts';

/**
 * Whole-subtree catalog work for moves, trash and deletion. A folder's descendants are the rows
 * whose path starts with `<folder>/`; that is tested with substr, never LIKE, because names may
 * contain `%` and `_`, and SQLite's LIKE ignores ASCII case. substr counts characters (code
 * points) on both engines, so the prefix length is counted in code points too, not UTF-16 units.
 */
export type Db = Kysely<Database> | Transaction<Database>;
type ObjectsExpression = ExpressionBuilder<Database, 'data_objects'>;

/** Number of Unicode code points: what SQL substr() and length() count on both engines. */
export const codePoints = (text: string): number => Array.from(text).length;

/** `column` starts with `prefix` (compared as text). */
function startsWith(column: 'path' | 'parent_path', prefix: string): Expression<SqlBool> {
  return sql<SqlBool>`substr(${sql.ref(column)}, 1, ${codePoints(prefix)}) = ${prefix}`;
}

/** The object at `path` and everything below it. */
export function inSubtree(path: string) {
  return (eb: ObjectsExpression) => eb.or([eb('path', '=', path), startsWith('path', `${path}/`)]);
}

/** Everything strictly below `path`. */
export function below(path: string) {
  return (_eb: ObjectsExpression) => startsWith('path', `${path}/`);
}

export async function subtree(db: Db, path: string): Promise<DataObject[]> {
  return db.selectFrom('data_objects').selectAll().where(inSubtree(path)).execute() as Promise<
    DataObject[]
  >;
}

/** Number of objects strictly below `path`. */
export async function countBelow(db: Db, path: string): Promise<number> {
  const row = await db
    .selectFrom('data_objects')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where(below(path))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Moves the object at `from` (and its whole subtree) to `to`, whose parent must exist and which
 * must be free. Only catalog rows change: bytes are keyed by id. `trash` sets (or, with null,
 * clears) the trash columns of the moved object itself.
 */
export async function relocate(
  db: Db,
  from: string,
  to: string,
  now: number,
  trash?: { origin: string | null; at: number | null },
): Promise<void> {
  const tail = codePoints(from) + 1; // first character after the old prefix
  const newPrefix = sql<string>`cast(${to} as varchar(4096))`;
  // The folders it leaves and enters first: see touch.
  await touch(db, [parentOf(from), parentOf(to)], now);
  // Then the object itself: if a concurrent request moved or deleted it meanwhile, nothing matches
  // and the whole transaction is abandoned rather than reporting a move that did not happen.
  const moved = await db
    .updateTable('data_objects')
    .set({
      path: to,
      parent_path: parentOf(to),
      name: baseName(to),
      ...(trash ? { trash_origin: trash.origin, trashed_at: trash.at } : {}),
    })
    .where('path', '=', from)
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) === 0)
    throw gatewayError(
      'ERR_DOES_NOT_EXIST',
      `${from} was changed by a concurrent request; nothing was changed`,
      { path: from },
    );
  // Then its descendants: all below `from/`, where nothing else can be.
  await lockBelow(db, from);
  await db
    .updateTable('data_objects')
    .set({
      path: sql<string>`${newPrefix} || substr(path, ${tail})`,
      parent_path: sql<string>`${newPrefix} || substr(parent_path, ${tail})`,
    })
    .where(below(from))
    .execute();
}

/**
 * On PostgreSQL, takes the rows below `path` for update shallowest first (see touch), before one
 * statement changes them all in whatever order it finds them. SQLite has a single writer.
 */
async function lockBelow(db: Db, path: string): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await db
    .selectFrom('data_objects')
    .select('id')
    .where(below(path))
    .orderBy(sql`length(path)`)
    .orderBy(sql`path collate "C"`)
    .forUpdate()
    .execute();
}

/**
 * Marks folders as modified (a child came or went). Moves and deletions call it before they take
 * the item itself, and each folder is updated on its own, shallowest first: on PostgreSQL that
 * takes the row locks of a change in one order, folders above before folders below, so a change
 * inside a folder and a move or deletion of the folder wait for each other instead of deadlocking
 * (each holding what the other needs, one aborted after a second as a 500).
 */
export async function touch(db: Db, folders: string[], now: number): Promise<void> {
  const ordered = [...new Set(folders)].sort(
    (a, b) => codePoints(a) - codePoints(b) || (a < b ? -1 : a > b ? 1 : 0),
  );
  for (const folder of ordered)
    await db
      .updateTable('data_objects')
      .set({ modified_at: now })
      .where('path', '=', folder)
      .execute();
}

/**
 * Deletes the object at `path` and everything below it from the catalog (grants and tickets go
 * with them by foreign-key cascade) and answers the blobs of the files (blobOf), whose bytes the
 * caller removes once the transaction has committed; undefined when nothing is at `path` any more.
 *
 * After its folder (see touch), the object's own row goes first, in one statement that checks and acts: on PostgreSQL it
 * waits for a concurrent request holding the row and then finds it gone, so two deletions (or a
 * deletion and a restore) of one item never both succeed, and the files below are read only once
 * the row is ours, never from before a concurrent move took them away (their bytes would go too).
 */
export async function removeSubtree(
  db: Db,
  path: string,
  now: number,
): Promise<string[] | undefined> {
  await touch(db, [parentOf(path)], now);
  const removed = await db
    .deleteFrom('data_objects')
    .where('path', '=', path)
    .returning(['id', 'type', 'blob_id'])
    .execute();
  const top = removed[0];
  if (!top) return undefined;
  await lockBelow(db, path);
  const files = await db
    .selectFrom('data_objects')
    .select(['id', 'blob_id'])
    .where(below(path))
    .where('type', '=', 'file')
    .execute();
  await db.deleteFrom('data_objects').where(below(path)).execute();
  return [...(top.type === 'file' ? [top] : []), ...files].map(blobOf);
}

/** Drops duplicates and paths that lie below another path of the list (they travel with it). */
export function outermost(paths: string[]): string[] {
  const unique = [...new Set(paths)].sort();
  return unique.filter(
    (path) => !unique.some((other) => other !== path && path.startsWith(`${other}/`)),
  );
}

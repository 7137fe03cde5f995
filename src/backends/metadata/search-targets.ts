import {
  PostgresAdapter,
  sql,
  type Expression,
  type Kysely,
  type RawBuilder,
  type SqlBool,
} from 'kysely';
import { anyCaseLike } from '../../store/any-case.ts';
import type { Database } from '../../store/schema.ts';

/**
 * What the data search asks of the metadata service's tables: which files and folders carry an
 * AVU, which carry a tag. Each answer is an SQL condition on a data object's id column, so that
 * the search stays one query over the data store's catalog.
 */

/** A match on one AVU field: `pattern` is a LIKE pattern (`%`, `_`, `\` escapes) compared in any letter case (anyCaseLike). */
export interface AvuFieldMatch {
  field: 'attribute' | 'value' | 'unit';
  pattern: string;
}

/** SQL: the data object `idColumn` carries an AVU (top-level, on the file or folder) matching every given field. */
export function objectHasAvu(
  db: Kysely<Database>,
  idColumn: Expression<unknown>,
  matches: AvuFieldMatch[],
): RawBuilder<SqlBool> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const conditions = matches.map((match) =>
    anyCaseLike(postgres, `a.${match.field}`, match.pattern),
  );
  return sql<SqlBool>`exists (select 1 from avus a where a.target_id = ${idColumn}
    and a.target_type in ('file', 'folder') and ${sql.join(conditions, sql` and `)})`;
}

/** The ids among `tagIds` of tags that `owner` owns. */
export async function ownedTagIds(
  db: Kysely<Database>,
  owner: string,
  tagIds: string[],
): Promise<Set<string>> {
  if (tagIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('tags')
    .select('id')
    .where('owner_id', '=', owner)
    .where('id', 'in', tagIds)
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** SQL: one of `tagIds` is attached (and not detached) to the data object `idColumn`. */
export function objectHasTag(idColumn: Expression<unknown>, tagIds: string[]): RawBuilder<SqlBool> {
  return sql<SqlBool>`exists (select 1 from attached_tags t where t.target_id = ${idColumn}
    and t.target_type in ('file', 'folder') and t.detached_on is null
    and t.tag_id in (${sql.join(tagIds)}))`;
}

/** The top-level AVUs of many files and folders, for search hits: id → AVUs in creation order. */
export async function avusOfObjects(
  db: Kysely<Database>,
  ids: string[],
): Promise<Map<string, { attribute: string; value: string; unit: string }[]>> {
  const found = new Map<string, { attribute: string; value: string; unit: string }[]>();
  if (ids.length === 0) return found;
  const rows = await db
    .selectFrom('avus')
    .select(['target_id', 'attribute', 'value', 'unit'])
    .where('target_id', 'in', ids)
    .where('target_type', 'in', ['file', 'folder'])
    .orderBy('created_on')
    .orderBy('id')
    .execute();
  for (const row of rows) {
    const list = found.get(row.target_id) ?? [];
    list.push({ attribute: row.attribute, value: row.value, unit: row.unit });
    found.set(row.target_id, list);
  }
  return found;
}

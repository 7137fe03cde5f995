import { sql, type RawBuilder, type SqlBool } from 'kysely';

/**
 * Text compared with a LIKE pattern (`%`, `_`, `\` escapes) in any letter case, letters beyond
 * ASCII included, on either engine: the data search's names and the metadata's AVU fields.
 */

/**
 * The SQL function every SQLite connection of the store has (src/store/database.ts) to lower-case
 * text beyond ASCII, where SQLite's own lower() and LIKE fold ASCII letters alone: `fold_case(x)`
 * is JavaScript's `toLowerCase()` of a text, and any other value as it is.
 */
export const FOLD_CASE = 'fold_case';

/** Text with a character beyond ASCII, for SQLite's GLOB. */
const BEYOND_ASCII = '*[^\u0001-\u007f]*';

/**
 * Text compared in any letter case against a LIKE pattern, letters beyond ASCII included.
 *
 * A pattern of ASCII characters alone is compared with the text's ASCII letters folded, on both
 * engines: its letters can match no other character (whose lower case is not ASCII, but for the
 * Kelvin sign), and its `_` matches any one. SQLite's LIKE does just that. On PostgreSQL, whose
 * ILIKE (in a UTF-8 database) lower-cases both sides in the database's collation for every row,
 * ≈ 0.5 µs a name, it is `lower(text collate "C") like` the pattern lower-cased here: over the
 * 7,000 names a common word's bounded count reads at 100,000 items, the test alone took 3.5 ms
 * with ILIKE and ≈ 1.5 ms this way (bench/README.md, "Data at scale").
 *
 * A pattern with a character beyond ASCII is compared by ILIKE on PostgreSQL. SQLite compares it
 * too, lower-cased, with the texts that have such characters, lower-cased by the store's
 * `fold_case`: only those texts pay for the call.
 */
export function anyCaseLike(
  postgres: boolean,
  column: string,
  pattern: string,
): RawBuilder<SqlBool> {
  const text = sql.ref(column);
  const ascii = !/[^\u0000-\u007f]/.test(pattern);
  // PostgreSQL's escape character is the backslash unless another is named; naming it costs a
  // call per row (like_escape) when the pattern is a parameter of a generic plan.
  if (postgres)
    return ascii
      ? sql<SqlBool>`lower(${text} collate "C") like ${pattern.toLowerCase()}`
      : sql<SqlBool>`${text} ilike ${pattern}`;
  const asIs = sql<SqlBool>`${text} like ${pattern} escape '\\'`;
  if (ascii) return asIs;
  return sql<SqlBool>`(${asIs} or (${text} glob ${BEYOND_ASCII}
    and ${sql.raw(FOLD_CASE)}(${text}) like ${pattern.toLowerCase()} escape '\\'))`;
}

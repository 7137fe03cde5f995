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
 * PostgreSQL's ILIKE, in a UTF-8 database, lower-cases both sides in the database's collation for
 * every row; a text of ASCII characters alone (as many bytes as characters) is lower-cased byte by
 * byte in the "C" collation instead, and compared with the pattern lower-cased as ILIKE does it:
 * the same answer wherever the collation lower-cases A–Z as ASCII does (all but Turkish and Azeri
 * ones), in less time: over the 7,000 names a common word's bounded count reads at 100,000 items,
 * the test alone took 3.5 ms with ILIKE and 2.0 this way, the whole count 4.65 and 3.9 ms
 * (bench/README.md, "Data at scale").
 *
 * SQLite's LIKE folds ASCII letters alone. A pattern with a character beyond ASCII is also
 * compared, lower-cased, with the texts that have such characters, lower-cased by the store's
 * `fold_case`: only those texts pay for the call; an ASCII pattern is LIKE alone.
 */
export function anyCaseLike(
  postgres: boolean,
  column: string,
  pattern: string,
): RawBuilder<SqlBool> {
  const text = sql.ref(column);
  // PostgreSQL's escape character is the backslash unless another is named; naming it costs a
  // call per row (like_escape) when the pattern is a parameter. The lower-cased pattern is a
  // subquery so that a prepared statement's generic plan computes it once, not for every row.
  if (postgres)
    return sql<SqlBool>`case when octet_length(${text}) = char_length(${text})
        then lower(${text} collate "C") like (select lower(${pattern}))
        else ${text} ilike ${pattern} end`;
  const ascii = sql<SqlBool>`${text} like ${pattern} escape '\\'`;
  if (!/[^\u0000-\u007f]/.test(pattern)) return ascii;
  return sql<SqlBool>`(${ascii} or (${text} glob ${BEYOND_ASCII}
    and ${sql.raw(FOLD_CASE)}(${text}) like ${pattern.toLowerCase()} escape '\\'))`;
}

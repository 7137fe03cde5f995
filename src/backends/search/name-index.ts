import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { literalRuns } from './patterns.ts';

/**
 * The name index of migration 026 as a narrowing condition: the data objects whose names may match
 * any of the given globs, found through the database's full-text search; undefined when the globs
 * hold too little literal text for the index to help (the exact name check then scans). The caller
 * always checks names exactly as well: the index only finds candidates.
 */
export function nameCandidates(
  postgres: boolean,
  idColumn: Expression<unknown>,
  globs: string[],
): RawBuilder<SqlBool> | undefined {
  return postgres ? tsvectorCandidates(idColumn, globs) : trigramCandidates(idColumn, globs);
}

/** SQLite, FTS5 trigram: every literal run of three characters or more, as a phrase. */
function trigramCandidates(
  idColumn: Expression<unknown>,
  globs: string[],
): RawBuilder<SqlBool> | undefined {
  const alternatives: string[] = [];
  for (const glob of globs) {
    const runs = literalRuns(glob).filter((run) => [...run].length >= 3);
    if (runs.length === 0) return undefined;
    alternatives.push(`(${runs.map((run) => `"${run.replace(/"/g, '""')}"`).join(' AND ')})`);
  }
  if (alternatives.length === 0) return undefined;
  return sql<SqlBool>`${idColumn} in (select k.object_id from data_search_keys k where k.key in
    (select rowid from data_search_names where data_search_names match ${alternatives.join(' OR ')}))`;
}

/**
 * PostgreSQL, tsvector: the index holds every suffix of every word (a–z, 0–9 runs of the lower-cased
 * name), so each word of a literal run is a prefix query (`'ead':*` finds `reads`). A word that
 * something other than a letter or digit follows within its run ends a word of every matching name,
 * so one of that word's suffixes is exactly it: it is asked for as a whole lexeme (`'sample'` for
 * `sample-05`), which GIN finds without reading every entry it prefixes. For a rare term whose
 * first word is in every name, that was 1.1 of 1.2 ms of the lookup at 100k items (bench/README.md,
 * "Data at scale").
 */
function tsvectorCandidates(
  idColumn: Expression<unknown>,
  globs: string[],
): RawBuilder<SqlBool> | undefined {
  const alternatives: string[] = [];
  for (const glob of globs) {
    const words = literalRuns(glob).flatMap((run) => {
      const lower = run.toLowerCase();
      return [...lower.matchAll(/[a-z0-9]+/g)].map(
        (word) => `'${word[0]}'${word.index + word[0].length < lower.length ? '' : ':*'}`,
      );
    });
    if (words.length === 0) return undefined;
    alternatives.push(`(${words.join(' & ')})`);
  }
  if (alternatives.length === 0) return undefined;
  return sql<SqlBool>`${idColumn} in (select object_id from data_search_names
    where terms @@ ${alternatives.join(' | ')}::tsquery)`;
}

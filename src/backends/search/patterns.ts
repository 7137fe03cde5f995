/**
 * Text matching as the DE's search language reads it (the `label` and `metadata` clauses): `*` and
 * `?` are wildcards; without them and without `exact`, each whitespace-separated term may appear
 * anywhere (implicit wildcards around each term, any term matching); with `exact` the whole text
 * must match. Matches are compared in any letter case.
 */

/** The globs any of which must match the whole text. */
export function globAlternatives(text: string, exact: boolean): string[] {
  if (exact || /[*?]/.test(text)) return [text];
  return text
    .split(/\s+/)
    .filter((term) => term !== '')
    .map((term) => `*${term}*`);
}

/** A glob as a LIKE pattern, `\` escaping LIKE's own `%`, `_` and `\`. */
export function likePattern(glob: string): string {
  let pattern = '';
  for (const char of glob) {
    if (char === '*') pattern += '%';
    else if (char === '?') pattern += '_';
    else if (char === '%' || char === '_' || char === '\\') pattern += `\\${char}`;
    else pattern += char;
  }
  return pattern;
}

/** The runs of literal text of a glob: each must appear in a matching text as it stands. */
export function literalRuns(glob: string): string[] {
  return glob.split(/[*?]+/).filter((run) => run !== '');
}

/**
 * The SQL function every SQLite connection of the store has (src/store/database.ts) to lower-case
 * text beyond ASCII, where SQLite's own lower() and LIKE fold ASCII letters alone: `fold_case(x)`
 * is JavaScript's `toLowerCase()` of a text, and any other value as it is.
 */
export const FOLD_CASE = 'fold_case';

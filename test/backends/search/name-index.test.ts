// The name index's candidates as PostgreSQL asks for them (migration 026's suffix tsvector): each
// word of a glob's literal runs, a word that something else follows within its run as a whole
// lexeme (GIN then skips through a common word's entries instead of reading them all), the run's
// last word as a prefix; globs with no word leave the index out. Matches themselves are checked
// over HTTP on both engines in search.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from 'kysely';
import { nameCandidates } from '../../../src/backends/search/name-index.ts';

/** Compiles without a database. */
const db = new Kysely<unknown>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (kysely) => new PostgresIntrospector(kysely),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

const tsquery = (globs: string[]) => {
  const candidates = nameCandidates(true, sql.ref('o.id'), globs);
  return candidates && candidates.compile(db).parameters[0];
};

test('words followed by a separator are whole lexemes, the last of a run a prefix', () => {
  assert.equal(tsquery(['*sample-050000*']), "('sample' & '050000':*)");
  assert.equal(tsquery(['*E_Reads.fa*']), "('e' & 'reads' & 'fa':*)");
  assert.equal(tsquery(['*reads.*']), "('reads')");
  assert.equal(tsquery(['s?mple_n*.txt']), "('s':* & 'mple' & 'n':* & 'txt':*)");
  assert.equal(tsquery(['*notes*', '*summary*']), "('notes':*) | ('summary':*)");
});

test('a glob without a letter or digit leaves the index out', () => {
  assert.equal(tsquery(['*.-*']), undefined);
  assert.equal(tsquery(['*notes*', '*__*']), undefined);
});

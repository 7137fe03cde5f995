// SQLite's statement cache (src/store/statement-cache.ts): a SQL text prepared again answers the
// statement kept for it, which still answers rows written since and sees a column added since;
// a statement an `iterate` holds is not handed out again (a new one is prepared, and both run);
// past the limit the text used least recently is prepared anew; and a store opened in a data
// directory compiles a query it runs three times once.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openStore } from '../../src/store/database.ts';
import { withStatementCache } from '../../src/store/statement-cache.ts';

test('a text prepared again answers the kept statement, current data and schema', () => {
  const raw = new SQLite(':memory:');
  const cached = withStatementCache(raw);
  raw.exec('create table t (a integer); insert into t values (1)');
  const first = cached.prepare('select * from t order by a');
  assert.deepEqual(first.all([]), [{ a: 1 }]);
  raw.exec('insert into t values (2); alter table t add column b integer default 7');
  const again = cached.prepare('select * from t order by a');
  assert.equal(again, first);
  assert.deepEqual(again.all([]), [
    { a: 1, b: 7 },
    { a: 2, b: 7 },
  ]);
  cached.close();
  assert.equal(raw.open, false);
});

test('a statement held by an iterate is not handed out again', () => {
  const raw = new SQLite(':memory:');
  const cached = withStatementCache(raw);
  const text = 'select value from json_each(?)';
  const held = cached.prepare(text);
  const rows = held.iterate(['[1,2,3]']);
  assert.deepEqual(rows.next().value, { value: 1 });
  const other = cached.prepare(text);
  assert.notEqual(other, held);
  assert.deepEqual(other.all(['[4]']), [{ value: 4 }]);
  assert.deepEqual([...rows], [{ value: 2 }, { value: 3 }]);
  raw.close();
});

test('past the limit, the text used least recently is prepared anew', () => {
  const raw = new SQLite(':memory:');
  const cached = withStatementCache(raw, 3);
  const [one, two, three, four] = [1, 2, 3, 4].map((n) => `select ${n} as n`);
  const first = cached.prepare(one!);
  const second = cached.prepare(two!);
  cached.prepare(three!);
  assert.equal(cached.prepare(one!), first); // one is now the most recent
  cached.prepare(four!); // drops two
  assert.equal(cached.prepare(one!), first);
  assert.notEqual(cached.prepare(two!), second);
  raw.close();
});

test('a store in a data directory compiles a repeated query once', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'statement-cache-'));
  const store = await openStore({ dataDir });
  const prepare = SQLite.prototype.prepare;
  const compiled: string[] = [];
  SQLite.prototype.prepare = function (this: SQLite.Database, text: string) {
    compiled.push(text);
    return prepare.call(this, text);
  } as typeof prepare;
  try {
    for (let n = 0; n < 3; n++) {
      const { rows } = await sql<{
        n: number;
      }>`select ${n} as n, 'statement-cache' as probe`.execute(store.db);
      assert.deepEqual(rows, [{ n, probe: 'statement-cache' }]);
    }
    assert.equal(compiled.filter((text) => text.includes("'statement-cache'")).length, 1);
  } finally {
    SQLite.prototype.prepare = prepare;
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

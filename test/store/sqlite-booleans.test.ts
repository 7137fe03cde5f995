// Booleans on SQLite (src/store/sqlite-booleans.ts): a store opened in a data directory binds
// `true`/`false` as 1/0 wherever a query passes them (an insert's values, a where, an `in` list, a
// streamed select, raw SQL), so the same Kysely queries run on both engines; parameters without a
// boolean are bound as they are, the same array.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Kysely, sql } from 'kysely';
import { openStore } from '../../src/store/database.ts';
import { bindable } from '../../src/store/sqlite-booleans.ts';

interface Flags {
  flags: { name: string; on: boolean | number };
}

test('a store on SQLite binds booleans as 1 and 0 in every kind of query', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sqlite-booleans-'));
  const store = await openStore({ dataDir });
  const db = store.db as unknown as Kysely<Flags>;
  try {
    await sql`create table flags (name text primary key, "on" integer not null)`.execute(db);
    await db
      .insertInto('flags')
      .values([
        { name: 'a', on: true },
        { name: 'b', on: false },
        { name: 'c', on: true },
      ])
      .execute();
    const all = await db.selectFrom('flags').selectAll().orderBy('name').execute();
    assert.deepEqual(all, [
      { name: 'a', on: 1 },
      { name: 'b', on: 0 },
      { name: 'c', on: 1 },
    ]);
    const on = await db.selectFrom('flags').select('name').where('on', '=', true).execute();
    assert.deepEqual(
      on.map((row) => row.name),
      ['a', 'c'],
    );
    const either = await db
      .selectFrom('flags')
      .select('name')
      .where('on', 'in', [false, true])
      .orderBy('name')
      .execute();
    assert.equal(either.length, 3);
    await db.updateTable('flags').set({ on: false }).where('name', '=', 'a').execute();
    const streamed: string[] = [];
    for await (const row of db.selectFrom('flags').select('name').where('on', '=', false).stream())
      streamed.push(row.name);
    assert.deepEqual(streamed.sort(), ['a', 'b']);
    const { rows } = await sql<{
      n: number;
    }>`select count(*) as n from flags where "on" = ${true}`.execute(db);
    assert.deepEqual(rows, [{ n: 1 }]);
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('parameters without a boolean are bound as they are', () => {
  const plain = ['x', 1, null, 2n];
  assert.equal(bindable(plain), plain);
  assert.deepEqual(bindable(['x', true, false, 0]), ['x', 1, 0, 0]);
});

// PostgreSQL statements prepared once per connection (src/store/prepared-statements.ts, used by
// src/store/postgres.ts): a query run a second time on a connection runs as a named statement, so
// the server parses it once and may keep its plan (pg_prepared_statements counts its plans), while
// a text run once is not prepared; each connection prepares at most DATABASE_PREPARED_STATEMENTS
// texts (100 unless set), none with 0; transaction control, DDL and texts without parameters
// (several statements in one text) are never prepared; and a prepared `select *`
// whose table gained a column meanwhile (another gateway's migration) still answers outside a
// transaction, fails its transaction inside one, and the store answers again after it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { loadConfig } from '../../src/config/index.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { defaultPostgresBounds } from '../../src/store/postgres.ts';
import {
  isStalePlan,
  PreparedStatements,
  transactionBoundary,
} from '../../src/store/prepared-statements.ts';
import { pgDatabaseUrl, skipWithout } from '../support/postgres.ts';
import { requiredInCi } from '../support/gateway.ts';

interface Prepared {
  statement: string;
  generic_plans: number;
  custom_plans: number;
}

/**
 * The statements prepared on the connection `db` runs on (a pinned connection) that name table t
 * (the store's migrations, run when it opened, prepared their own repeated queries too).
 */
async function preparedOn(db: Kysely<any>): Promise<Prepared[]> {
  const { rows } = await sql<Prepared>`
    select statement, generic_plans::int, custom_plans::int from pg_prepared_statements
    where name like 'g\\_%' and statement ~ '\\m(t|scratch)\\M' order by statement`.execute(db);
  return rows;
}

describe('prepared statements on PostgreSQL', { skip: skipWithout('postgres') }, () => {
  const opened: Array<{ store: Store; drop(): Promise<void>; dataDir: string }> = [];

  async function open(preparedStatements?: number): Promise<Kysely<any>> {
    const pgDatabase = await pgDatabaseUrl(requiredInCi('DATABASE_URL')!);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'prepared-'));
    const store = await openStore({
      dataDir,
      databaseUrl: pgDatabase.url,
      database: { ...defaultPostgresBounds, preparedStatements },
    });
    opened.push({ store, drop: pgDatabase.drop, dataDir });
    await sql`create table t (a integer)`.execute(store.db);
    await sql`insert into t values (1), (2)`.execute(store.db);
    return store.db as Kysely<any>;
  }

  after(async () => {
    for (const { store, drop, dataDir } of opened) {
      await store.close();
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a query run again on a connection is prepared; one run once is not', async () => {
    const db = await open();
    await db.connection().execute(async (connection) => {
      const twice = sql`select a from t where a = ${1}`;
      for (let run = 0; run < 8; run++)
        assert.equal((await twice.execute(connection)).rows.length, 1);
      await sql`select a from t where a = ${2} and a > 0`.execute(connection);
      const prepared = await preparedOn(connection);
      assert.equal(prepared.length, 1);
      assert.equal(prepared[0]!.statement, 'select a from t where a = $1');
      // Parsed once, planned for each run since: seven runs as a named statement.
      assert.equal(prepared[0]!.generic_plans + prepared[0]!.custom_plans, 7);
    });
  });

  test('a connection prepares at most the configured number; 0 prepares none', async () => {
    for (const limit of [2, 0]) {
      const db = await open(limit);
      await db.connection().execute(async (connection) => {
        for (const n of [1, 2, 3])
          for (let run = 0; run < 2; run++)
            await sql`select a from t where a < ${n} + ${sql.lit(n)}`.execute(connection);
        // The store's migrations repeat queries too: with them, 11 texts would be prepared here.
        const { rows } = await sql<{ count: number }>`
          select count(*)::int as count from pg_prepared_statements where name like 'g\\_%'`.execute(
          connection,
        );
        assert.equal(rows[0]!.count, limit);
      });
    }
  });

  test('transaction control, DDL and texts without parameters run unnamed', async () => {
    const db = await open();
    await db.connection().execute(async (connection) => {
      for (let run = 0; run < 2; run++) {
        await connection.transaction().execute(async (trx) => {
          await sql`create temporary table scratch (b integer) on commit drop`.execute(trx);
        });
        await sql`select 1 from t; select 2 from t`.execute(connection);
      }
      assert.deepEqual(await preparedOn(connection), []);
    });
  });

  test('a prepared select * answers after its table gains a column', async () => {
    const db = await open();
    const everything = () =>
      db.selectFrom('t').selectAll().where('a', '>', 0).orderBy('a').execute();
    assert.deepEqual(await everything(), [{ a: 1 }, { a: 2 }]);
    assert.deepEqual(await everything(), [{ a: 1 }, { a: 2 }]); // now prepared
    await sql`alter table t add column b integer default 7`.execute(db);
    // Sequential queries share the pool's one connection: the statement prepared above is stale.
    assert.deepEqual(await everything(), [
      { a: 1, b: 7 },
      { a: 2, b: 7 },
    ]);
    await everything(); // prepared again, on a fresh connection
    await sql`alter table t add column c integer default 8`.execute(db);
    await assert.rejects(
      db
        .transaction()
        .execute(async (trx) =>
          trx.selectFrom('t').selectAll().where('a', '>', 0).orderBy('a').execute(),
        ),
      (error) => isStalePlan(error),
    );
    assert.deepEqual(await everything(), [
      { a: 1, b: 7, c: 8 },
      { a: 2, b: 7, c: 8 },
    ]);
  });
});

test('transaction boundaries and the names of texts', () => {
  assert.equal(transactionBoundary('begin'), true);
  assert.equal(transactionBoundary('start transaction isolation level serializable'), true);
  assert.equal(transactionBoundary('commit'), false);
  assert.equal(transactionBoundary('rollback'), false);
  assert.equal(transactionBoundary('rollback to savepoint sp1'), undefined);
  assert.equal(transactionBoundary('select 1'), undefined);
  const names = new PreparedStatements(5);
  const connection = {};
  assert.equal(names.nameFor(connection, 'select 1'), undefined); // seen once
  const name = names.nameFor(connection, 'select 1');
  assert.match(name!, /^g_[\w-]{27}$/);
  assert.equal(names.nameFor({}, 'select 1'), name); // the same name on every connection
  names.nameFor(connection, 'create table x (a int)');
  assert.equal(names.nameFor(connection, 'create table x (a int)'), undefined);
});

test('DATABASE_PREPARED_STATEMENTS: 100 unless set, 0 to 10,000', () => {
  assert.equal(loadConfig({}).database.preparedStatements, 100);
  assert.equal(loadConfig({ DATABASE_PREPARED_STATEMENTS: '0' }).database.preparedStatements, 0);
  assert.equal(loadConfig({ DATABASE_PREPARED_STATEMENTS: '25' }).database.preparedStatements, 25);
  for (const bad of ['-1', '10001', 'all', '2.5'])
    assert.throws(
      () => loadConfig({ DATABASE_PREPARED_STATEMENTS: bad }),
      /DATABASE_PREPARED_STATEMENTS/,
    );
});

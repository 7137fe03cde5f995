// data-info's transactions on PostgreSQL: one that PostgreSQL rolls back as a deadlock's victim
// is run again from the start and succeeds once the other transaction has gone ahead, instead of
// failing its request with a 500 (moves.ts inTransaction).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { inTransaction } from '../../../src/backends/data-info/moves.ts';
import { engines, home, type DataInfoHost } from '../../support/data-info-host.ts';

const postgres = engines.find((engine) => engine.name !== 'SQLite')!;

describe('a deadlock victim is run again (PostgreSQL)', () => {
  let host: DataInfoHost | undefined;
  before(async () => {
    host = await postgres.open();
  });
  after(async () => host?.close());

  test('the transaction PostgreSQL aborts as a deadlock runs again and commits', async (t) => {
    if (!host) return t.skip('DATABASE_URL is not set');
    const first = `${home('alice')}/first`;
    const second = `${home('alice')}/second`;
    await host.folder('alice', first);
    await host.folder('alice', second);
    const db = host.data.db;
    const touch = (path: string, now: number) =>
      sql`update data_objects set modified_at = ${now} where path = ${path}`;

    // The other transaction, on a connection of its own to the store's database (its settings),
    // slow to detect deadlocks: ours is the victim.
    const other = new pg.Client(host.store.clientConfig);
    await other.connect();
    t.after(() => other.end());
    await other.query('begin');
    await other.query(`set local deadlock_timeout = '10s'`);
    await other.query('update data_objects set modified_at = 1 where path = $1', [second]);

    const otherPid = (await other.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!
      .pid;
    /** Sessions waiting for a lock the other transaction holds: ours, once it waits for `second`. */
    const waitingSessions = async () =>
      Number(
        (
          await sql<{
            count: number;
          }>`select count(*) as count from pg_stat_activity where ${otherPid} = any(pg_blocking_pids(pid))`.execute(
            db,
          )
        ).rows[0]?.count,
      );
    let attempts = 0;
    const ours = inTransaction(host.data, async (trx) => {
      attempts += 1;
      await sql`set local deadlock_timeout = '100ms'`.execute(trx);
      await touch(first, 2).execute(trx);
      await touch(second, 2).execute(trx); // waits for the other transaction
      return attempts;
    });
    // Once ours waits for `second`, the other one asks for `first`: a deadlock, and ours is aborted.
    const started = Date.now();
    while ((await waitingSessions()) === 0) {
      if (Date.now() - started > 10_000) throw new Error('our transaction never waited');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const otherTakesFirst = other.query('update data_objects set modified_at = 1 where path = $1', [
      first,
    ]);
    await otherTakesFirst;
    await other.query('commit');

    // Aborted, then committed. On a busy machine a second attempt can take `first` again before
    // the other transaction's waiting update gets it, and be the victim once more (seen: 3).
    const attemptsMade = await ours;
    assert.ok(
      attemptsMade >= 2,
      `aborted at least once, then committed (${attemptsMade} attempts)`,
    );
    const after = await host.data.db
      .selectFrom('data_objects')
      .select(['path', 'modified_at'])
      .where('path', 'in', [first, second])
      .execute();
    assert.deepEqual(
      after.map((row) => Number(row.modified_at)),
      [2, 2],
    );
  });
});

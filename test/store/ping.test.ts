// The store's ping (what `/readyz` and `/admin/status` ask the database): a pooled connection cut
// while idle does not make it fail while the database answers (it asks again on a live
// connection), and a database that cannot be reached still fails it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { openStore } from '../../src/store/database.ts';
import { requiredInCi } from '../support/gateway.ts';
import { pgDatabaseUrl } from '../support/postgres.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

const databaseUrl = requiredInCi('DATABASE_URL');

test(
  'PostgreSQL: ping answers after the idle pooled connections were cut, and fails while refused',
  {
    skip: databaseUrl ? false : 'DATABASE_URL is not set',
  },
  async (t) => {
    const database = await pgDatabaseUrl(databaseUrl!);
    t.after(() => database.drop());
    const upstream = new URL(database.url);
    const proxy = await startTcpProxy({
      host: upstream.hostname,
      port: Number(upstream.port || 5432),
    });
    t.after(() => proxy.close());
    const through = new URL(database.url);
    through.host = `${proxy.host}:${proxy.port}`;
    const dataDir = mkdtempSync(path.join(tmpdir(), 'store-ping-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    const store = await openStore({ databaseUrl: through.href, dataDir });
    t.after(() => store.close());

    await store.ping(); // the pool now holds an idle connection through the proxy
    assert.ok(proxy.connections() > 0);
    // Cut, and asked in the same turn: the pool has not yet heard that its connection ended, so
    // the first query goes to the dead one, as after a network blip or a failover.
    proxy.cut();
    await store.ping();

    await proxy.refuse();
    await assert.rejects(store.ping(), 'a database that cannot be reached fails the ping');
    await proxy.restore();
    await store.ping();
  },
);

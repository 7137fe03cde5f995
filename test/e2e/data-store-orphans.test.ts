// A crash leaves no orphan bytes, on SQLite and PostgreSQL: a real gateway process killed with
// SIGKILL during a burst of saves and started again ends with no object file that no catalog row
// names and no row without its file; the sweep that does it removes only orphans (and unfinished
// writes) older than the grace period, so another gateway's upload in progress is never taken.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { sweepOrphans } from '../../src/backends/data-info/orphans.ts';
import { engines, home, type DataInfoHost } from '../support/data-info-host.ts';
import { noRateLimits, requiredInCi } from '../support/gateway.ts';
import { startMainProcess, type MainProcess } from '../support/main-process.ts';
import { pgDatabaseUrl } from '../support/postgres.ts';
import {
  bearer,
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
  type JwksServer,
  type SigningKey,
} from '../support/tokens.ts';

const HOUR = 60 * 60 * 1000;

/** Every object file under `<blobDir>/objects` by id, and every file under `<blobDir>/tmp`. */
function onDisk(blobDir: string): { objects: Set<string>; tmp: string[] } {
  const list = (folder: string) => {
    try {
      return readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) =>
        entry.isFile(),
      );
    } catch {
      return [];
    }
  };
  return {
    objects: new Set(list(path.join(blobDir, 'objects')).map((entry) => entry.name)),
    tmp: list(path.join(blobDir, 'tmp')).map((entry) => entry.name),
  };
}

describe('the orphan sweep', () => {
  for (const engine of engines) {
    describe(engine.name, () => {
      let host: DataInfoHost | undefined;
      before(async () => {
        host = await engine.open();
      });
      after(async () => host?.close());

      test('removes old bytes no row names and old unfinished writes; keeps fresh ones and every named file', async (t) => {
        if (!host) return t.skip('DATABASE_URL is not set');
        const named = await host.file('alice', `${home('alice')}/kept.txt`, 'a file with its row');
        const old = Date.now() - 2 * HOUR;
        const age = (file: string) => utimesSync(file, old / 1000, old / 1000);
        const objectFile = (id: string) => path.join(host!.blobDir, 'objects', id.slice(0, 2), id);
        age(objectFile(named.id)); // old, but named: kept

        const freshOrphan = randomUUID();
        const oldOrphan = randomUUID();
        await host.data.blobs.write(
          freshOrphan,
          'an upload whose row another gateway is about to commit',
        );
        await host.data.blobs.write(oldOrphan, 'left by a crash an hour ago');
        age(objectFile(oldOrphan));
        const freshTemp = path.join(host.blobDir, 'tmp', `${randomUUID()}.${randomUUID()}.tmp`);
        const oldTemp = path.join(host.blobDir, 'tmp', `${randomUUID()}.${randomUUID()}.tmp`);
        writeFileSync(freshTemp, 'an upload in progress');
        writeFileSync(oldTemp, 'an upload cut off by a crash');
        age(oldTemp);
        // Not an object file (a name that is no UUID): never the sweep's to remove.
        const stranger = path.join(host.blobDir, 'objects', 'README');
        writeFileSync(stranger, 'someone else’s');
        age(stranger);

        const result = await sweepOrphans(host.data, HOUR);
        assert.equal(result.removed, 1);
        assert.equal(result.temps, 1);
        assert.equal(result.checked, 2, 'only files older than the grace period are looked at');
        const left = onDisk(host.blobDir);
        assert.ok(left.objects.has(named.id));
        assert.ok(
          left.objects.has(freshOrphan),
          'within the grace period: perhaps another process’s upload',
        );
        assert.ok(!left.objects.has(oldOrphan));
        assert.ok(left.objects.has('README'));
        assert.deepEqual(left.tmp, [path.basename(freshTemp)]);

        const again = await sweepOrphans(host.data, 0);
        assert.equal(again.removed, 1, 'with no grace, the fresh orphan goes too');
        assert.equal(again.temps, 1);
        assert.deepEqual([...onDisk(host.blobDir).objects].sort(), [named.id, 'README'].sort());
      });
    });
  }
});

const BURST_IN_FLIGHT = 16;
const KILL_AFTER_SAVES = 40;
const MAX_ROUNDS = 3;

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`SIGKILL during a burst of saves (${engine})`, () => {
    let dataDir: string;
    let key: SigningKey;
    let jwks: JwksServer;
    let pgDatabase: Awaited<ReturnType<typeof pgDatabaseUrl>> | undefined;
    let running: MainProcess | undefined;
    const databaseUrl = engine === 'postgres' ? requiredInCi('DATABASE_URL') : undefined;

    before(async () => {
      dataDir = mkdtempSync(path.join(tmpdir(), 'orphans-'));
      key = await createSigningKey('ES256', 'orphans-key');
      jwks = await startJwksServer([key]);
      if (databaseUrl) pgDatabase = await pgDatabaseUrl(databaseUrl);
    });
    after(async () => {
      await running?.stop('SIGKILL');
      await jwks?.close();
      await pgDatabase?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    /** The ids of the files in the catalog, read straight from the database the gateway used. */
    async function catalogFileIds(): Promise<Set<string>> {
      if (pgDatabase) {
        const client = new pg.Client({ connectionString: pgDatabase.url });
        await client.connect();
        try {
          return new Set(
            (
              await client.query<{ id: string }>(`select id from data_objects where type = 'file'`)
            ).rows.map((row) => row.id),
          );
        } finally {
          await client.end();
        }
      }
      const database = new SQLite(path.join(dataDir, 'gateway.sqlite'));
      try {
        return new Set(
          (
            database.prepare(`select id from data_objects where type = 'file'`).all() as {
              id: string;
            }[]
          ).map((row) => row.id),
        );
      } finally {
        database.close();
      }
    }

    async function consistency() {
      const disk = onDisk(path.join(dataDir, 'data-store'));
      const rows = await catalogFileIds();
      return {
        orphans: [...disk.objects].filter((id) => !rows.has(id)),
        missing: [...rows].filter((id) => !disk.objects.has(id)),
        tmp: disk.tmp,
        files: rows.size,
      };
    }

    test('restarting removes every object file without a row; every row keeps its file', async (t) => {
      if (engine === 'postgres' && !databaseUrl) return t.skip('DATABASE_URL is not set');
      const env = {
        GATEWAY_DATA_DIR: dataDir,
        AUTH_JWKS_URL: jwks.url,
        // The default grace period (an hour): alone on its DATA_STORE_DIR (the killed process's lease
        // is dead), the restarted gateway clears what the crash left at once all the same.
        ...(pgDatabase ? { DATABASE_URL: pgDatabase.url } : {}),
      };
      const headers = {
        ...bearer(await signToken(key, userClaims('alice'))),
        'content-type': 'application/json',
      };
      const folder = `/platform/home/alice`;
      const content = 'x'.repeat(64 * 1024);

      /** Saves as fast as they go, BURST_IN_FLIGHT at a time, until KILL_AFTER_SAVES have been answered; then SIGKILL. */
      const burstAndKill = async (round: number) => {
        const target = await startMainProcess({ ...noRateLimits, ...env });
        running = target;
        assert.equal(
          (await fetch(`${target.url}/secured/filesystem/root`, { headers })).status,
          200,
        );
        let answered = 0;
        let next = 0;
        let killed: Promise<unknown> | undefined;
        const saver = async () => {
          while (!killed) {
            const dest = `${folder}/burst-${round}-${next++}.txt`;
            try {
              const response = await fetch(`${target.url}/secured/fileio/saveas`, {
                method: 'POST',
                headers,
                body: JSON.stringify({ dest, content }),
              });
              await response.arrayBuffer();
              assert.equal(response.status, 200);
            } catch (error) {
              if (killed) return; // cut off by the kill
              throw error;
            }
            answered += 1;
            if (answered >= KILL_AFTER_SAVES && !killed) killed = target.stop('SIGKILL');
          }
        };
        await Promise.all(Array.from({ length: BURST_IN_FLIGHT }, saver));
        await killed;
        running = undefined;
      };

      // A kill does not always land between a file's bytes and its row: burst again until one did.
      let afterKill!: Awaited<ReturnType<typeof consistency>>;
      for (let round = 1; round <= MAX_ROUNDS; round += 1) {
        await burstAndKill(round);
        afterKill = await consistency();
        t.diagnostic(
          `${engine}, round ${round}: after SIGKILL: ${afterKill.files} files in the catalog, ${afterKill.orphans.length} orphan object files, ${afterKill.tmp.length} unfinished writes, ${afterKill.missing.length} rows without bytes`,
        );
        assert.deepEqual(
          afterKill.missing,
          [],
          'a row is committed only once its bytes are in place',
        );
        if (afterKill.orphans.length > 0) break;
      }

      running = await startMainProcess({ ...noRateLimits, ...env });
      const sweep = (await running.logLine((line) => line.msg === 'orphan sweep finished'))
        .orphanSweep as { removed: number; temps: number; ms: number };
      const afterRestart = await consistency();
      t.diagnostic(
        `${engine}: after restart: swept ${sweep.removed} orphans and ${sweep.temps} unfinished writes in ${sweep.ms} ms`,
      );
      assert.deepEqual(afterRestart.orphans, []);
      assert.deepEqual(afterRestart.missing, []);
      assert.deepEqual(afterRestart.tmp, []);
      assert.equal(sweep.removed, afterKill.orphans.length);
      assert.equal(afterRestart.files, afterKill.files);
      // The files the burst saved are still whole.
      const saved = await fetch(
        `${running.url}/secured/fileio/download?path=${encodeURIComponent(`${folder}/burst-1-0.txt`)}`,
        { headers },
      );
      assert.equal(saved.status, 200);
      assert.equal((await saved.text()).length, content.length);
      await running.stop('SIGKILL');
      running = undefined;
    });
  });
}

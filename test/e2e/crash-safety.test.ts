// A gateway killed with SIGKILL in the middle of data-store writes, on SQLite and on PostgreSQL,
// then started again: an upload and new content for a file (a PUT) each with half its body sent,
// an analysis's output upload, then a whole upload, a save, a move, a rename and an emptying of the
// trash. Where each kill lands is made certain from outside: the half-sent bodies' bytes are seen
// arriving in the folder's tmp/; once the output's upload has begun the test takes the catalog's
// write lock (SQLite's BEGIN IMMEDIATE; on PostgreSQL an EXCLUSIVE lock on data_objects, which
// readers pass), so the output's bytes are installed (seen leaving tmp/) and its row waits. On
// PostgreSQL the other five then run up to the lock (the upload's and the save's bytes installed,
// all six seen waiting in pg_stat_activity); on SQLite, where the gateway's wait for the lock holds
// its whole process (better-sqlite3 is synchronous), they are in flight, unread. Started again, the
// gateway lists no file that was not whole (no upload, the saved and overwritten files with their
// old bytes, the move, rename and emptying not done, no output, the analysis failed), and `npm run
// fsck` finds the catalog equal to the bytes, the start-up sweep having removed the bytes no row
// names. Before data_objects.blob_id a save's installed bytes were the file's own while its row
// kept the old size and MD5: the download gave the new bytes and fsck reported the difference.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, statSync, watch, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { nodeCacheEnv } from '../support/child-env.ts';
import { recordTried, testFile } from '../support/reliability.ts';
import {
  eventually,
  multipart,
  multipartHead,
  multipartType,
  rawRequest,
} from '../support/fileio.ts';
import { noRateLimits } from '../support/gateway.ts';
import { startMainProcess, type MainProcess } from '../support/main-process.ts';
import { engineDatabase, engines, skipWithout } from '../support/postgres.ts';
import { shellApp, type ProcessCallers } from '../support/process-callers.ts';
import { closeProcessFixture, openProcessFixture } from '../support/process-fixture.ts';

const home = '/platform/home/alice';
const projectDir = path.resolve(import.meta.dirname, '../..');
/** The analysis's output: large enough that the lock is taken long before its bytes are in. */
const OUTPUT_BYTES = 48 * 1024 * 1024;

/**
 * The temporary files of writes in `tmp` as they come and go (fs.watch): `installed` counts those
 * seen and gone (renamed into objects/), `pending` lists those there now with their sizes.
 */
function watchTemps(tmp: string) {
  const seen = new Set<string>();
  const waiting = new Set<() => void>();
  const watcher = watch(tmp, (_event, name) => {
    if (name) seen.add(name);
    for (const wake of waiting) wake();
  });
  const state = () => {
    const pending: { name: string; size: number }[] = [];
    let installed = 0;
    for (const name of seen) {
      const file = path.join(tmp, name);
      if (existsSync(file))
        pending.push({ name, size: statSync(file, { throwIfNoEntry: false })?.size ?? 0 });
      else installed += 1;
    }
    return { seen: seen.size, installed, pending };
  };
  return {
    /** Resolves once `done` holds of the state, checked at every change in tmp/. */
    until(done: (now: ReturnType<typeof state>) => boolean, what: string): Promise<void> {
      return new Promise((resolve, reject) => {
        // Only a guard against a change that never comes (the test fails then).
        const limit = setTimeout(
          () => settle(new Error(`never saw ${what}: ${JSON.stringify(state())}`)),
          30_000,
        );
        const settle = (error?: Error) => {
          clearTimeout(limit);
          waiting.delete(check);
          if (error) reject(error);
          else resolve();
        };
        const check = () => {
          if (done(state())) settle();
        };
        waiting.add(check);
        check();
      });
    },
    close: () => watcher.close(),
  };
}

/** Holds the catalog's write lock from outside the gateway until `release`. */
async function lockCatalog(
  dataDir: string,
  databaseUrl: string | undefined,
): Promise<{ waiting(): Promise<number>; release(): Promise<void> }> {
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query('begin');
    await client.query('lock table data_objects in exclusive mode');
    return {
      waiting: async () =>
        Number(
          (
            await client.query(
              `select count(*) as n from pg_stat_activity
                where datname = current_database() and wait_event_type = 'Lock'`,
            )
          ).rows[0].n,
        ),
      release: async () => {
        await client.query('rollback');
        await client.end();
      },
    };
  }
  const database = new SQLite(path.join(dataDir, 'gateway.sqlite'), { timeout: 10_000 });
  database.exec('begin immediate');
  return {
    waiting: async () => NaN, // SQLite tells no one who waits
    release: async () => {
      database.exec('rollback');
      database.close();
    },
  };
}

function fsck(
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      ['src/cli/fsck.ts', '--json'],
      { cwd: projectDir, env: { PATH: process.env.PATH ?? '', ...nodeCacheEnv(), ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

// Side by side: each waits on process starts and its analysis.
describe('SIGKILL in the middle of data-store writes', { concurrency: true }, () => {
  for (const engine of engines)
    describe(engine, { skip: skipWithout(engine) }, () => {
      let dataDir: string;
      let database: Awaited<ReturnType<typeof engineDatabase>>;
      let callers: ProcessCallers;
      let gateway: MainProcess | undefined;
      before(async () => {
        ({ dataDir, database, callers } = await openProcessFixture(
          'crash-safety-',
          engine,
          () => gateway!.url,
        ));
      });
      after(() => closeProcessFixture(gateway, { dataDir, database, callers }));

      const env = () => ({
        ...noRateLimits,
        ...database.env,
        GATEWAY_DATA_DIR: dataDir,
        AUTH_JWKS_URL: callers.jwksUrl,
        TOOL_EXECUTABLES_ALLOW: '/bin/sh',
        // On PostgreSQL the analysis is taken over once its lease lapses (on SQLite, at once):
        // short there; on SQLite no renewal may write while the test holds the lock.
        ...(engine === 'postgres' ? { JOB_LEASE_SECONDS: '1' } : {}),
      });
      const ok: ProcessCallers['ok'] = (...args) => callers.ok(...args);
      const saveAs = (name: string, content: string) =>
        ok('alice', 'POST', '/secured/fileio/saveas', { dest: `${home}/${name}`, content });
      /** The names in a folder, files and folders, sorted. */
      const names = async (folder: string): Promise<string[]> => {
        const page = await ok(
          'alice',
          'GET',
          `/secured/filesystem/paged-directory?path=${encodeURIComponent(folder)}&limit=100`,
        );
        return [...page.files, ...page.folders]
          .map((entry: { label: string }) => entry.label)
          .sort();
      };
      /** A trash entry's name is the item's with a 7-character suffix. */
      const unsuffixed = (names: string[]) =>
        names.map((name) => name.replace(/\.[0-9A-Za-z]{7}$/, ''));

      test('started again, no file is partial and the catalog equals the bytes', async () => {
        gateway = await startMainProcess(env());
        const { appId, script } = await shellApp(callers, {
          location: '/bin',
          container: { image: { name: 'host' } },
        });
        await saveAs('save.txt', 'before the save');
        await saveAs('overwrite-me.txt', 'before the overwrite');
        await saveAs('move-me.txt', 'moved, or not');
        await saveAs('rename-me.txt', 'renamed, or not');
        await ok('alice', 'POST', '/secured/filesystem/directory/create', { path: `${home}/into` });
        for (const name of ['t1.txt', 't2.txt', 't3.txt']) await saveAs(name, `trash ${name}`);
        await ok('alice', 'POST', '/secured/filesystem/delete', {
          paths: ['t1.txt', 't2.txt', 't3.txt'].map((name) => `${home}/${name}`),
        });
        const trash = (await ok('alice', 'GET', '/secured/filesystem/root')).roots.find(
          (root: { label: string }) => root.label === 'Trash',
        ).path as string;
        assert.deepEqual(unsuffixed(await names(trash)), ['t1.txt', 't2.txt', 't3.txt']);

        const launched = await ok('alice', 'POST', '/analyses', {
          system_id: 'de',
          app_id: appId,
          name: 'its output cut off',
          output_dir: home,
          config: {
            [script]: `while [ ! -e go ]; do sleep 0.02; done; rm go; head -c ${OUTPUT_BYTES} /dev/zero > out.bin`,
          },
        });
        const work = path.join(dataDir, 'executor', 'steps', `${launched.id}-1`, 'work');
        await eventually(() => existsSync(work), 20_000, 'the step to start');

        const headers = callers.headers('alice');
        const json = { ...headers, 'content-type': 'application/json' };
        const url = gateway.url;
        const halfSent = (route: string, name: string) =>
          rawRequest(
            `${url}${route}?dest=${encodeURIComponent(`${home}${name ? `/${name}` : ''}`)}`,
            { method: 'POST', headers: { ...headers, 'content-type': multipartType } },
            (request) => {
              request.write(multipartHead(name || 'half-sent.bin'));
              request.write(Buffer.alloc(64 * 1024, 1)); // and no more
            },
          );
        const temps = watchTemps(path.join(dataDir, 'data-store', 'tmp'));
        // Requests cut off by the kill: their answers (or failures) are not the test's to read.
        const cut: Promise<unknown>[] = [];
        const inFlight = (...requests: Promise<unknown>[]) =>
          cut.push(...requests.map((request) => request.catch(() => undefined)));
        let lock: Awaited<ReturnType<typeof lockCatalog>> | undefined;
        /** The writes the kill cut off: the requests in flight and the analysis's output upload. */
        let killedMidWay = 0;
        try {
          // An upload and new content for a file (PUT), each with half its body sent.
          inFlight(
            halfSent('/secured/fileio/upload', ''),
            halfSent('/secured/fileio/overwrite', 'overwrite-me.txt'),
          );
          await temps.until(
            (now) => now.pending.filter((temp) => temp.size > 0).length === 2,
            'two half-sent bodies arriving',
          );
          // The step ends; once its output's upload has begun, the catalog is locked, and the
          // output's bytes are installed: its row waits on the lock (SQLite's waiting holds the
          // whole process, so nothing else moves there from now on).
          writeFileSync(path.join(work, 'go'), '');
          await temps.until((now) => now.seen >= 3, "the analysis's output upload to begin");
          lock = await lockCatalog(dataDir, database.env.DATABASE_URL);
          await temps.until((now) => now.installed >= 1, "the output's bytes installed");
          // A whole upload, a save, a move, a rename, the trash emptied: on PostgreSQL each goes
          // as far as the lock (the upload's and the save's bytes installed), on SQLite they wait
          // unread for the process to move.
          inFlight(
            fetch(`${url}/secured/fileio/upload?dest=${encodeURIComponent(home)}`, {
              method: 'POST',
              headers: { ...headers, 'content-type': multipartType },
              body: multipart('uploaded.bin', Buffer.alloc(256 * 1024, 7)),
            }),
            fetch(`${url}/secured/fileio/save`, {
              method: 'POST',
              headers: json,
              body: JSON.stringify({ dest: `${home}/save.txt`, content: 'after the save, longer' }),
            }),
            fetch(`${url}/secured/filesystem/move`, {
              method: 'POST',
              headers: json,
              body: JSON.stringify({ sources: [`${home}/move-me.txt`], dest: `${home}/into` }),
            }),
            fetch(`${url}/secured/filesystem/rename`, {
              method: 'POST',
              headers: json,
              body: JSON.stringify({
                source: `${home}/rename-me.txt`,
                dest: `${home}/renamed.txt`,
              }),
            }),
            fetch(`${url}/secured/filesystem/trash`, { method: 'DELETE', headers }),
          );
          if (database.env.DATABASE_URL) {
            await temps.until((now) => now.installed >= 3, "the upload's and the save's bytes");
            // Seen waiting: the output's, the upload's and the save's rows, move, rename, emptying.
            await eventually(async () => (await lock!.waiting()) >= 6, 10_000, 'six waiting');
          }
          await gateway.stop('SIGKILL');
          gateway = undefined;
          killedMidWay = cut.length + 1;
        } finally {
          temps.close();
          await lock?.release();
          await Promise.all(cut);
        }

        gateway = await startMainProcess(env());
        const sweep = (await gateway.logLine((line) => line.msg === 'orphan sweep finished'))
          .orphanSweep as { removed: number };
        assert.equal(
          sweep.removed,
          database.env.DATABASE_URL ? 3 : 1,
          "the output's bytes, and on PostgreSQL the upload's and the save's",
        );
        const analysis = await eventually(
          async () => {
            const { analyses } = await ok(
              'alice',
              'GET',
              `/analyses?filter=${encodeURIComponent(JSON.stringify([{ field: 'id', value: launched.id }]))}`,
            );
            return analyses[0]?.status === 'Failed' ? analyses[0] : undefined;
          },
          20_000,
          'the analysis whose gateway died to be marked Failed',
        );
        const resultFolder = analysis.resultfolderid as string;
        assert.deepEqual(
          (await names(home)).filter((name) => `${home}/${name}` !== resultFolder),
          ['into', 'move-me.txt', 'overwrite-me.txt', 'rename-me.txt', 'save.txt'],
          'no upload, half-sent or whole; the move and the rename not done',
        );
        assert.deepEqual(await names(`${home}/into`), []);
        assert.deepEqual(unsuffixed(await names(trash)), ['t1.txt', 't2.txt', 't3.txt']);
        assert.ok(!(await names(resultFolder)).includes('out.bin'), 'no partial output');
        const saved = await callers.call(
          'alice',
          'GET',
          `/secured/fileio/download?path=${encodeURIComponent(`${home}/save.txt`)}`,
        );
        assert.equal(saved.text, 'before the save');
        const overwritten = await callers.call(
          'alice',
          'GET',
          `/secured/fileio/download?path=${encodeURIComponent(`${home}/overwrite-me.txt`)}`,
        );
        assert.equal(overwritten.text, 'before the overwrite');
        const stat = await ok('alice', 'POST', '/secured/filesystem/stat', {
          paths: [`${home}/save.txt`],
        });
        assert.equal(stat.paths[`${home}/save.txt`]['file-size'], 'before the save'.length);

        await gateway.stop('SIGKILL');
        gateway = undefined;
        const checked = await fsck({ ...database.env, GATEWAY_DATA_DIR: dataDir });
        assert.equal(checked.code, 0, `${checked.stdout}${checked.stderr}`);
        const report = JSON.parse(checked.stdout);
        assert.deepEqual(report.differences, []);
        assert.equal(report.files, 7, 'four files in the home folder, three in the trash');
        recordTried({
          area: 'crashes',
          what: 'SIGKILL mid-way through an upload (half-sent and whole), a PUT of new content, a save, a move, a rename, an emptying of the trash and an analysis output upload; started again, nothing partial listed, fsck finds catalog equal to bytes',
          tried: killedMidWay,
          held: killedMidWay,
          file: testFile(import.meta.url),
          note: engine,
        });
      });
    });
});

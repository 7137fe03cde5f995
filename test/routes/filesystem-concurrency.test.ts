// Concurrent changes to one item through the gateway are honest, on SQLite and PostgreSQL: of
// racing renames, moves, deletes and restores of the same item exactly one succeeds and the others
// answer ERR_DOES_NOT_EXIST (the item is no longer where they named it); what the winner reported
// is what the catalog holds. A file or folder added to a folder that a concurrent request moves or
// deletes meanwhile is refused, never left below a path that no longer exists.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import {
  startDataStoreGateway,
  type Answer,
  type DataStoreGateway,
} from '../support/data-store.ts';
import { requiredInCi } from '../support/gateway.ts';

const PARALLEL = 10;

/** The statuses of `answers`, counted: `{200: 1, 404: 9}`. */
function tally(answers: Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1;
  return counts;
}

/** Exactly one answer is 200 and every other one is ERR_DOES_NOT_EXIST; answers the winner's index. */
function oneWinner(answers: Answer[]): number {
  assert.deepEqual(
    tally(answers),
    { 200: 1, 404: answers.length - 1 },
    answers.map((answer) => `${answer.status} ${answer.text}`).join('\n'),
  );
  for (const answer of answers)
    if (answer.status !== 200)
      assert.equal(answer.body.error_code, 'ERR_DOES_NOT_EXIST', answer.text);
  return answers.findIndex((answer) => answer.status === 200);
}

/** Resolves once `condition` holds (checked every few milliseconds); gives up after `limitMs`. */
async function until(condition: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > limitMs) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * An upload through the gateway whose body is held back: `start` sends the multipart head and the
 * first bytes, `finish` the rest; `answer` resolves with the status and JSON body.
 */
function heldUpload(url: string, headers: Record<string, string>, name: string) {
  const boundary = `----held${Date.now()}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\nfirst half, `;
  const tail = `second half\r\n--${boundary}--\r\n`;
  const client = httpRequest(url, {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': Buffer.byteLength(head + tail),
    },
  });
  const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
    client.once('error', reject);
    client.once('response', (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk) => (text += chunk));
      response.once('end', () =>
        resolve({ status: response.statusCode!, body: text ? JSON.parse(text) : undefined }),
      );
    });
  });
  client.write(head);
  return { answer, finish: () => client.end(tail) };
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`concurrent changes to one item (${engine})`, () => {
    let gw: DataStoreGateway;
    let home: string;
    before(async () => {
      gw = (await startDataStoreGateway({ engine }))!;
      if (gw) home = gw.home('alice');
    });
    after(async () => gw?.close());
    const skip = () => !gw && engine === 'postgres' && !requiredInCi('DATABASE_URL');

    /** The paths among `paths` that exist for alice. */
    const existing = async (paths: string[]) => {
      const answer = await gw.ok('alice', 'POST', '/secured/filesystem/exists', {
        json: { paths },
      });
      return paths.filter((path) => answer.paths[path]);
    };

    test(`${PARALLEL} parallel renames of one file: one 200, the others ERR_DOES_NOT_EXIST, one name survives`, async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      await gw.folder('alice', `${home}/renames`);
      const file = await gw.upload('alice', `${home}/renames`, 'original.txt', 'renamed ten times');
      const source = `${home}/renames/original.txt`;
      const names = Array.from(
        { length: PARALLEL },
        (_, index) => `${home}/renames/name-${index}.txt`,
      );
      const answers = await Promise.all(
        names.map((dest) =>
          gw.call('alice', 'POST', '/secured/filesystem/rename', { json: { source, dest } }),
        ),
      );
      const winner = oneWinner(answers);
      assert.equal(answers[winner]!.body.dest, names[winner]);
      assert.deepEqual(await existing([source, ...names]), [names[winner]]);
      assert.equal((await gw.stat('alice', names[winner]!)).id, file.id);
    });

    test('parallel moves of one file to different folders: one wins, the file is where it said', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const folders = Array.from({ length: PARALLEL }, (_, index) => `${home}/moves/to-${index}`);
      await gw.ok('alice', 'POST', '/secured/filesystem/directories', { json: { paths: folders } });
      const file = await gw.upload('alice', `${home}/moves`, 'mover.txt', 'moved');
      const source = `${home}/moves/mover.txt`;
      const answers = await Promise.all(
        folders.map((dest) =>
          gw.call('alice', 'POST', '/secured/filesystem/move', {
            json: { sources: [source], dest },
          }),
        ),
      );
      const winner = oneWinner(answers);
      const targets = folders.map((folder) => `${folder}/mover.txt`);
      assert.deepEqual(await existing([source, ...targets]), [targets[winner]]);
      assert.equal((await gw.stat('alice', targets[winner]!)).id, file.id);
    });

    test('parallel deletes and renames of one file: exactly one of them happens', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      await gw.folder('alice', `${home}/delete-rename`);
      await gw.upload('alice', `${home}/delete-rename`, 'contested.txt', 'either way');
      const source = `${home}/delete-rename/contested.txt`;
      const renamed = `${home}/delete-rename/renamed.txt`;
      const requests = Array.from({ length: PARALLEL }, (_, index) =>
        index % 2 === 0
          ? gw.call('alice', 'POST', '/secured/filesystem/delete', { json: { paths: [source] } })
          : gw.call('alice', 'POST', '/secured/filesystem/rename', {
              json: { source, dest: renamed },
            }),
      );
      const answers = await Promise.all(requests);
      const winner = oneWinner(answers);
      const trashed = await gw.ok(
        'alice',
        'GET',
        `/filesystem/paged-directory?path=${encodeURIComponent(gw.trash('alice'))}&limit=100`,
      );
      const inTrash = trashed.files.filter((entry: any) =>
        entry.label.startsWith('contested.txt.'),
      ).length;
      if (winner % 2 === 0) {
        assert.equal(inTrash, 1, 'the delete won: the file is in the trash once');
        assert.deepEqual(await existing([source, renamed]), []);
      } else {
        assert.equal(inTrash, 0, 'the rename won: nothing went to the trash');
        assert.deepEqual(await existing([source, renamed]), [renamed]);
      }
    });

    test('parallel deletes of one file for good (from the trash): one 200, nothing deleted twice', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      await gw.folder('alice', `${home}/purge`);
      await gw.upload('alice', `${home}/purge`, 'purged.txt', 'gone for good');
      const trashed = (
        await gw.ok('alice', 'POST', '/secured/filesystem/delete', {
          json: { paths: [`${home}/purge/purged.txt`] },
        })
      )['trash-paths'][`${home}/purge/purged.txt`];
      const answers = await Promise.all(
        Array.from({ length: PARALLEL }, () =>
          gw.call('alice', 'POST', '/secured/filesystem/delete', { json: { paths: [trashed] } }),
        ),
      );
      oneWinner(answers);
      assert.deepEqual(await existing([trashed]), []);
    });

    test('parallel restores of one trashed file: one 200, restored once', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      await gw.folder('alice', `${home}/restores`);
      const file = await gw.upload('alice', `${home}/restores`, 'back.txt', 'restored once');
      const original = `${home}/restores/back.txt`;
      const trashed = (
        await gw.ok('alice', 'POST', '/secured/filesystem/delete', { json: { paths: [original] } })
      )['trash-paths'][original];
      const answers = await Promise.all(
        Array.from({ length: PARALLEL }, () =>
          gw.call('alice', 'POST', '/secured/filesystem/restore', { json: { paths: [trashed] } }),
        ),
      );
      const winner = oneWinner(answers);
      assert.deepEqual(answers[winner]!.body.restored[trashed], {
        'restored-path': original,
        'partial-restore': false,
      });
      const copies = Array.from({ length: PARALLEL }, (_, index) => `${original}.${index}`);
      assert.deepEqual(
        await existing([trashed, original, ...copies]),
        [original],
        'restored to one place, no `.0` copies',
      );
      assert.equal((await gw.stat('alice', original)).id, file.id);
    });

    test('a restore racing an empty-trash: the item is either restored or gone, and both answers say which', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      await gw.folder('alice', `${home}/race-empty`);
      const original = `${home}/race-empty/item.txt`;
      await gw.upload('alice', `${home}/race-empty`, 'item.txt', 'restored or emptied');
      const trashed = (
        await gw.ok('alice', 'POST', '/secured/filesystem/delete', { json: { paths: [original] } })
      )['trash-paths'][original];
      const [restore, empty] = await Promise.all([
        gw.call('alice', 'POST', '/secured/filesystem/restore', { json: { paths: [trashed] } }),
        gw.call('alice', 'DELETE', '/secured/filesystem/trash'),
      ]);
      assert.equal(empty.status, 200, empty.text);
      if (restore.status === 200) {
        assert.ok(!empty.body.paths.includes(trashed), 'emptied and restored at once');
        assert.deepEqual(await existing([original]), [original]);
      } else {
        assert.equal(restore.body.error_code, 'ERR_DOES_NOT_EXIST', restore.text);
        assert.ok(empty.body.paths.includes(trashed));
        assert.deepEqual(await existing([original, trashed]), []);
      }
    });

    test('an upload into a folder deleted while its bytes arrive is refused and leaves nothing, under the old path or in the trash', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const folder = `${home}/vanishing`;
      await gw.folder('alice', folder);
      const tmp = path.join(gw.running.dataDir, 'data-store', 'tmp');
      const upload = heldUpload(
        `${gw.url}/secured/fileio/upload?dest=${encodeURIComponent(folder)}`,
        await gw.authHeaders('alice'),
        'late.txt',
      );
      // The store has checked the folder and is writing the bytes: now the folder goes.
      await until(() => readdirSync(tmp).length > 0, 'the upload to reach the store');
      const trashed = (
        await gw.ok('alice', 'POST', '/secured/filesystem/delete', { json: { paths: [folder] } })
      )['trash-paths'][folder];
      upload.finish();
      const answer = await upload.answer;
      assert.equal(answer.body?.error_code, 'ERR_DOES_NOT_EXIST', JSON.stringify(answer));
      assert.deepEqual(await existing([`${folder}/late.txt`, `${trashed}/late.txt`]), []);
      assert.deepEqual(readdirSync(tmp), []);
    });

    test('a folder made below a folder moved meanwhile is refused, not left below the old path', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      await gw.ok('alice', 'POST', '/secured/filesystem/directories', {
        json: { paths: [`${home}/mkdir-race/a`, `${home}/mkdir-race/elsewhere`] },
      });
      const answers = await Promise.all([
        ...Array.from({ length: PARALLEL }, (_, index) =>
          gw.call('alice', 'POST', '/secured/filesystem/directories', {
            json: { paths: [`${home}/mkdir-race/a/sub-${index}`] },
          }),
        ),
        gw.call('alice', 'POST', '/secured/filesystem/move', {
          json: { sources: [`${home}/mkdir-race/a`], dest: `${home}/mkdir-race/elsewhere` },
        }),
      ]);
      const made = answers.slice(0, PARALLEL);
      assert.equal(answers[PARALLEL]!.status, 200, answers[PARALLEL]!.text);
      for (const answer of made)
        if (answer.status !== 200)
          assert.equal(answer.body.error_code, 'ERR_DOES_NOT_EXIST', answer.text);
      const names = Array.from({ length: PARALLEL }, (_, index) => `sub-${index}`);
      const stranded = await existing(names.map((name) => `${home}/mkdir-race/a/${name}`));
      assert.deepEqual(stranded, [], 'nothing below the old path');
      const moved = await existing(names.map((name) => `${home}/mkdir-race/elsewhere/a/${name}`));
      assert.equal(
        moved.length,
        made.filter((answer) => answer.status === 200).length,
        'every folder made went along with the move',
      );
    });

    test('an empty-trash that waits on a concurrent restore of an entry leaves the restored file whole (PostgreSQL row locks)', async (t) => {
      // SQLite runs one transaction at a time: an empty-trash can never overlap a restore there.
      if (engine !== 'postgres') return t.skip('PostgreSQL only');
      if (skip()) return t.skip('DATABASE_URL is not set');
      await gw.folder('alice', `${home}/kept-bytes`);
      const file = await gw.upload('alice', `${home}/kept-bytes`, 'precious.txt', 'still here');
      const original = `${home}/kept-bytes/precious.txt`;
      const trashed = (
        await gw.ok('alice', 'POST', '/secured/filesystem/delete', { json: { paths: [original] } })
      )['trash-paths'][original];
      const db = gw.running.gateway.store.db;
      let emptying: Promise<Answer> | undefined;
      // A restore as data-info makes it (the entry's row moved back), held open until the
      // empty-trash has listed the entry and is waiting for its row.
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('data_objects')
          .set({
            path: original,
            parent_path: `${home}/kept-bytes`,
            name: 'precious.txt',
            trash_origin: null,
            trashed_at: null,
          })
          .where('id', '=', file.id)
          .execute();
        const holder = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx))
          .rows[0]!.pid;
        emptying = gw.call('alice', 'DELETE', '/secured/filesystem/trash');
        /** Sessions waiting for a row this transaction holds: the empty-trash, once it reaches the entry. */
        const waiting = async () =>
          Number(
            (
              await sql<{
                count: number;
              }>`select count(*) as count from pg_stat_activity where ${holder} = any(pg_blocking_pids(pid))`.execute(
                db,
              )
            ).rows[0]?.count,
          );
        const started = Date.now();
        while ((await waiting()) === 0) {
          if (Date.now() - started > 10_000)
            throw new Error('the empty-trash never waited for the row');
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      });
      const emptied = await emptying!;
      assert.equal(emptied.status, 200, emptied.text);
      assert.ok(
        !emptied.body.paths.includes(trashed),
        'the restored entry is not reported as emptied',
      );
      const download = await gw.call(
        'alice',
        'GET',
        `/secured/fileio/download?path=${encodeURIComponent(original)}`,
      );
      assert.equal(download.status, 200, download.text);
      assert.equal(download.text, 'still here');
    });

    test('a folder moved while something inside it is renamed and something deeper deleted: no 500, no row left without its folder', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const counts: Record<string, number> = {};
      for (let round = 0; round < PARALLEL; round += 1) {
        const folder = `${home}/nested-${round}`;
        await gw.ok('alice', 'POST', '/secured/filesystem/directories', {
          json: { paths: [`${folder}/sub/deep`, `${home}/nested-dest-${round}`] },
        });
        const answers = await Promise.all([
          gw.call('alice', 'POST', '/secured/filesystem/move', {
            json: { sources: [folder], dest: `${home}/nested-dest-${round}` },
          }),
          gw.call('alice', 'POST', '/secured/filesystem/rename', {
            json: { source: `${folder}/sub`, dest: `${folder}/renamed` },
          }),
          gw.call('alice', 'POST', '/secured/filesystem/delete', {
            json: { paths: [`${folder}/sub/deep`] },
          }),
        ]);
        for (const answer of answers) {
          const outcome =
            answer.status === 200 ? '200' : `${answer.status} ${answer.body?.error_code}`;
          counts[outcome] = (counts[outcome] ?? 0) + 1;
        }
      }
      assert.deepEqual(
        Object.keys(counts).filter(
          (outcome) => outcome !== '200' && outcome !== '404 ERR_DOES_NOT_EXIST',
        ),
        [],
        JSON.stringify(counts),
      );
      const db = gw.running.gateway.store.db;
      const stranded = await db
        .selectFrom('data_objects as o')
        .select('o.path')
        .where('o.parent_path', '!=', '/')
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('data_objects as p')
                .select('p.id')
                .whereRef('p.path', '=', 'o.parent_path'),
            ),
          ),
        )
        .execute();
      assert.deepEqual(stranded, []);
    });
  });
}

// Concurrent changes to one item through the gateway are honest, on SQLite and PostgreSQL: of
// racing renames, moves, deletes and restores of the same item exactly one succeeds and the others
// answer ERR_DOES_NOT_EXIST (the item is no longer where they named it); what the winner reported
// is what the catalog holds.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startDataStoreGateway, type Answer, type DataStoreGateway } from './helpers/data-store.js';
import { requiredInCi } from './helpers/gateway.js';

const PARALLEL = 10;

/** The statuses of `answers`, counted: `{200: 1, 404: 9}`. */
function tally(answers: Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1;
  return counts;
}

/** Exactly one answer is 200 and every other one is ERR_DOES_NOT_EXIST; answers the winner's index. */
function oneWinner(answers: Answer[]): number {
  assert.deepEqual(tally(answers), { 200: 1, 404: answers.length - 1 }, answers.map((answer) => `${answer.status} ${answer.text}`).join('\n'));
  for (const answer of answers) if (answer.status !== 200) assert.equal(answer.body.error_code, 'ERR_DOES_NOT_EXIST', answer.text);
  return answers.findIndex((answer) => answer.status === 200);
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
      const answer = await gw.ok('alice', 'POST', '/secured/filesystem/exists', { json: { paths } });
      return paths.filter((path) => answer.paths[path]);
    };

    test(`${PARALLEL} parallel renames of one file: one 200, the others ERR_DOES_NOT_EXIST, one name survives`, async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      await gw.folder('alice', `${home}/renames`);
      const file = await gw.upload('alice', `${home}/renames`, 'original.txt', 'renamed ten times');
      const source = `${home}/renames/original.txt`;
      const names = Array.from({ length: PARALLEL }, (_, index) => `${home}/renames/name-${index}.txt`);
      const answers = await Promise.all(names.map((dest) => gw.call('alice', 'POST', '/secured/filesystem/rename', { json: { source, dest } })));
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
      const answers = await Promise.all(folders.map((dest) => gw.call('alice', 'POST', '/secured/filesystem/move', { json: { sources: [source], dest } })));
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
          : gw.call('alice', 'POST', '/secured/filesystem/rename', { json: { source, dest: renamed } }),
      );
      const answers = await Promise.all(requests);
      const winner = oneWinner(answers);
      const trashed = await gw.ok('alice', 'GET', `/filesystem/paged-directory?path=${encodeURIComponent(gw.trash('alice'))}&limit=100`);
      const inTrash = trashed.files.filter((entry: any) => entry.label.startsWith('contested.txt.')).length;
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
      const trashed = (await gw.ok('alice', 'POST', '/secured/filesystem/delete', { json: { paths: [`${home}/purge/purged.txt`] } }))['trash-paths'][`${home}/purge/purged.txt`];
      const answers = await Promise.all(Array.from({ length: PARALLEL }, () => gw.call('alice', 'POST', '/secured/filesystem/delete', { json: { paths: [trashed] } })));
      oneWinner(answers);
      assert.deepEqual(await existing([trashed]), []);
    });

    test('parallel restores of one trashed file: one 200, restored once', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      await gw.folder('alice', `${home}/restores`);
      const file = await gw.upload('alice', `${home}/restores`, 'back.txt', 'restored once');
      const original = `${home}/restores/back.txt`;
      const trashed = (await gw.ok('alice', 'POST', '/secured/filesystem/delete', { json: { paths: [original] } }))['trash-paths'][original];
      const answers = await Promise.all(Array.from({ length: PARALLEL }, () => gw.call('alice', 'POST', '/secured/filesystem/restore', { json: { paths: [trashed] } })));
      const winner = oneWinner(answers);
      assert.deepEqual(answers[winner]!.body.restored[trashed], { 'restored-path': original, 'partial-restore': false });
      const copies = Array.from({ length: PARALLEL }, (_, index) => `${original}.${index}`);
      assert.deepEqual(await existing([trashed, original, ...copies]), [original], 'restored to one place, no `.0` copies');
      assert.equal((await gw.stat('alice', original)).id, file.id);
    });

    test('a restore racing an empty-trash: the item is either restored or gone, and both answers say which', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      await gw.folder('alice', `${home}/race-empty`);
      const original = `${home}/race-empty/item.txt`;
      await gw.upload('alice', `${home}/race-empty`, 'item.txt', 'restored or emptied');
      const trashed = (await gw.ok('alice', 'POST', '/secured/filesystem/delete', { json: { paths: [original] } }))['trash-paths'][original];
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
  });
}

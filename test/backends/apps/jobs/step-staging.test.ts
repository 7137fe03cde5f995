// Staging a sandboxed step's inputs again, as an interactive session's download-input-files does
// (src/backends/apps/jobs/step-staging.ts): each staged copy replaces the one before with the data
// store's current bytes; what is no longer among the inputs is then removed (a file deleted from a
// staged folder, a folder emptied out of it, a stray file the session wrote into its inputs), while
// everything staged again stays, and no `.staging-*` partial is left behind. A staged file that
// cannot be read any more fails the staging and leaves the copy before it in place. On SQLite and
// on PostgreSQL (the data store's catalog).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import type { AppParameter } from '../../../../src/backends/apps/shared/definition.ts';
import type { StepRun } from '../../../../src/backends/apps/jobs/job-step.ts';
import { InputStager } from '../../../../src/backends/apps/jobs/step-staging.ts';
import { openSharedDataStore } from '../../../../src/backends/data-info/data-store-api.ts';
import { startDataStoreGateway, type DataStoreGateway } from '../../../support/data-store.ts';

const fileParameter = { id: 'one', name: 'one', type: 'FileInput' } as AppParameter;
const folderParameter = { id: 'tree', name: 'tree', type: 'FolderInput' } as AppParameter;

/** Every path under `folder`, relative, sorted. */
async function contents(folder: string): Promise<string[]> {
  return (await readdir(folder, { recursive: true })).sort();
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`staging inputs again (${engine})`, () => {
    let gw: DataStoreGateway | undefined;
    let scratch: string;

    before(async () => {
      gw = await startDataStoreGateway({ engine });
      scratch = await mkdtemp(path.join(tmpdir(), 'step-staging-'));
    });
    after(async () => {
      await gw?.close();
      await rm(scratch, { recursive: true, force: true });
    });

    /** A step run of `user`'s, reading the gateway's own data store. */
    async function runOf(user: string): Promise<StepRun> {
      const { store, config } = gw!.running.gateway;
      // The same options the gateway opened it with: the same store (one per database and folder).
      const data = await openSharedDataStore(store.db, config.dataStore);
      return {
        data,
        caller: await data.caller(user),
        signal: new AbortController().signal,
        log: pino({ level: 'silent' }),
      } as unknown as StepRun;
    }

    test('copies replaced, what is gone removed, nothing partial left', async (t) => {
      if (!gw) return t.skip('DATABASE_URL is not set');
      const home = gw.home('stella');
      await gw.upload('stella', home, 'single.txt', 'single, first');
      await gw.folder('stella', `${home}/tree`);
      await gw.folder('stella', `${home}/tree/sub`);
      await gw.upload('stella', `${home}/tree`, 'kept.txt', 'kept, first');
      await gw.upload('stella', `${home}/tree`, 'dropped.txt', 'dropped');
      await gw.upload('stella', `${home}/tree/sub`, 'deep.txt', 'deep');
      const inputs = path.join(scratch, `inputs-${engine}`);
      const staged = [
        { parameter: fileParameter, value: `${home}/single.txt` },
        { parameter: folderParameter, value: `${home}/tree` },
      ];

      const run = await runOf('stella');
      const first = new InputStager(run, inputs);
      const values = [];
      for (const { parameter, value } of staged) values.push(await first.stage(parameter, value));
      assert.deepEqual(values, ['/inputs/single.txt', '/inputs/tree']);
      assert.deepEqual(await contents(inputs), [
        'single.txt',
        'tree',
        'tree/dropped.txt',
        'tree/kept.txt',
        'tree/sub',
        'tree/sub/deep.txt',
      ]);

      // In the data store: two files changed, one deleted, the sub-folder's file deleted. In the
      // inputs folder: a file the session wrote itself.
      for (const name of ['single.txt', 'tree/kept.txt', 'tree/dropped.txt', 'tree/sub/deep.txt'])
        await gw.ok('stella', 'POST', '/secured/filesystem/delete', {
          json: { paths: [`${home}/${name}`] },
        });
      await gw.upload('stella', home, 'single.txt', 'single, second');
      await gw.upload('stella', `${home}/tree`, 'kept.txt', 'kept, second');
      await writeFile(path.join(inputs, 'tree', 'scribble.txt'), 'the session wrote this');

      const again = new InputStager(run, inputs);
      for (const { parameter, value } of staged) await again.stage(parameter, value);
      await again.removeUnstaged();

      assert.deepEqual(await contents(inputs), ['single.txt', 'tree', 'tree/kept.txt', 'tree/sub']);
      assert.equal(await readFile(path.join(inputs, 'single.txt'), 'utf8'), 'single, second');
      assert.equal(await readFile(path.join(inputs, 'tree', 'kept.txt'), 'utf8'), 'kept, second');
    });

    test('an input no longer readable fails the staging; the copy before it stays whole', async (t) => {
      if (!gw) return t.skip('DATABASE_URL is not set');
      const home = gw.home('vera');
      await gw.upload('vera', home, 'only.txt', 'the only version');
      const inputs = path.join(scratch, `inputs-gone-${engine}`);
      const run = await runOf('vera');
      await new InputStager(run, inputs).stage(fileParameter, `${home}/only.txt`);

      await gw.ok('vera', 'POST', '/secured/filesystem/delete', {
        json: { paths: [`${home}/only.txt`] },
      });
      const again = new InputStager(run, inputs);
      await assert.rejects(again.stage(fileParameter, `${home}/only.txt`));
      // Staging stopped before removeUnstaged: the session keeps reading what it had.
      assert.deepEqual(await contents(inputs), ['only.txt']);
      assert.equal(await readFile(path.join(inputs, 'only.txt'), 'utf8'), 'the only version');
    });
  });
}

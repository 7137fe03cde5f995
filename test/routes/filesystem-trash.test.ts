// Trash through the gateway: delete → trash paths, restore to the original place (re-making
// missing folders), partial restore to the home, `.0`/`.1` on clashes, restore-all, empty trash.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { q, startDataStoreGateway, type DataStoreGateway } from '../support/data-store.ts';
import { engines, skipWithout } from '../support/postgres.ts';

for (const engine of engines) {
  describe(`filesystem trash (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: DataStoreGateway;
    let home: string;
    let trash: string;

    before(async () => {
      gw = (await startDataStoreGateway({ engine }))!;
      home = gw.home('alice');
      trash = gw.trash('alice');
    });
    after(async () => gw?.close());

    const trashName = (original: string) =>
      new RegExp(
        `^${trash.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/${original.split('/').pop()!.replace(/\./g, '\\.')}\\.[0-9A-Za-z]{7}$`,
      );

    async function remove(user: string, paths: string[]): Promise<Record<string, string>> {
      const answer = await gw.ok(user, 'POST', '/secured/filesystem/delete', { json: { paths } });
      assert.deepEqual([...answer.paths].sort(), [...paths].sort());
      return answer['trash-paths'];
    }

    async function trashListing(user: string) {
      const body = await gw.ok(
        user,
        'GET',
        `/filesystem/paged-directory?path=${q(gw.trash(user))}&limit=100`,
      );
      return {
        total: body.total,
        paths: [...body.folders, ...body.files].map((entry: any) => entry.path),
      };
    }

    describe('trash', () => {
      test('delete moves items to the trash under a random suffix, and restore brings them back', async () => {
        await gw.ok('alice', 'POST', '/secured/filesystem/directories', {
          json: { paths: [`${home}/t1/folder`] },
        });
        const file = await gw.upload('alice', `${home}/t1`, 'a.txt', 'aaa');
        await gw.upload('alice', `${home}/t1/folder`, 'inside.txt', 'in');
        const trashed = await remove('alice', [`${home}/t1/a.txt`, `${home}/t1/folder`]);
        assert.match(trashed[`${home}/t1/a.txt`]!, trashName('a.txt'));
        assert.match(trashed[`${home}/t1/folder`]!, trashName('folder'));
        assert.equal(await gw.stat('alice', `${home}/t1/a.txt`), undefined);
        assert.equal(
          (await gw.stat('alice', trashed[`${home}/t1/a.txt`]!)).id,
          file.id,
          'the same object, in the trash',
        );
        assert.ok(
          await gw.stat('alice', `${trashed[`${home}/t1/folder`]}/inside.txt`),
          'a folder goes with its contents',
        );
        const listing = await trashListing('alice');
        assert.ok(listing.paths.includes(trashed[`${home}/t1/a.txt`]!));

        const restored = await gw.ok('alice', 'POST', '/filesystem/restore', {
          json: { paths: Object.values(trashed) },
        });
        assert.deepEqual(restored.restored[trashed[`${home}/t1/a.txt`]!], {
          'restored-path': `${home}/t1/a.txt`,
          'partial-restore': false,
        });
        assert.deepEqual(restored.restored[trashed[`${home}/t1/folder`]!], {
          'restored-path': `${home}/t1/folder`,
          'partial-restore': false,
        });
        assert.equal((await gw.stat('alice', `${home}/t1/a.txt`)).id, file.id);
        assert.ok(await gw.stat('alice', `${home}/t1/folder/inside.txt`));
        assert.equal(await gw.stat('alice', trashed[`${home}/t1/a.txt`]!), undefined);
      });

      test('a folder that is gone is made again; a clash gets .0, then .1', async () => {
        await gw.ok('alice', 'POST', '/secured/filesystem/directories', {
          json: { paths: [`${home}/t2/gone`] },
        });
        await gw.upload('alice', `${home}/t2/gone`, 'orphan.txt', 'o');
        const first = await remove('alice', [`${home}/t2/gone/orphan.txt`]);
        await remove('alice', [`${home}/t2/gone`]);
        const back = await gw.ok('alice', 'POST', '/secured/filesystem/restore', {
          json: { paths: [first[`${home}/t2/gone/orphan.txt`]] },
        });
        assert.deepEqual(Object.values(back.restored), [
          { 'restored-path': `${home}/t2/gone/orphan.txt`, 'partial-restore': false },
        ]);
        assert.equal((await gw.stat('alice', `${home}/t2/gone`)).type, 'dir', 're-made');

        const path = `${home}/t2/clash.txt`;
        await gw.upload('alice', `${home}/t2`, 'clash.txt', 'one');
        const one = await remove('alice', [path]);
        await gw.upload('alice', `${home}/t2`, 'clash.txt', 'two!');
        const two = await remove('alice', [path]);
        await gw.upload('alice', `${home}/t2`, 'clash.txt', 'three');
        const r1 = await gw.ok('alice', 'POST', '/filesystem/restore', {
          json: { paths: [one[path]] },
        });
        assert.deepEqual(Object.values(r1.restored), [
          { 'restored-path': `${path}.0`, 'partial-restore': false },
        ]);
        const r2 = await gw.ok('alice', 'POST', '/filesystem/restore', {
          json: { paths: [two[path]] },
        });
        assert.deepEqual(Object.values(r2.restored), [
          { 'restored-path': `${path}.1`, 'partial-restore': false },
        ]);
        assert.equal((await gw.stat('alice', path))['file-size'], 5);
        assert.equal((await gw.stat('alice', `${path}.0`))['file-size'], 3);
        assert.equal((await gw.stat('alice', `${path}.1`))['file-size'], 4);
      });

      test('when the origin is gone and its nearest folder is not the caller’s to write, the item goes home (partial restore)', async () => {
        await gw.ok('alice', 'POST', '/secured/filesystem/directories', {
          json: { paths: [`${home}/t3/drop`] },
        });
        await gw.ok('alice', 'POST', '/secured/share', {
          json: {
            sharing: [{ user: 'bob', paths: [{ path: `${home}/t3/drop`, permission: 'write' }] }],
          },
        });
        await gw.upload('bob', `${home}/t3/drop`, 'bobs.txt', 'bob');
        const trashed = await remove('bob', [`${home}/t3/drop/bobs.txt`]);
        await remove('alice', [`${home}/t3/drop`]);
        const back = await gw.ok('bob', 'POST', '/filesystem/restore', {
          json: { paths: [trashed[`${home}/t3/drop/bobs.txt`]] },
        });
        assert.deepEqual(Object.values(back.restored), [
          { 'restored-path': `${gw.home('bob')}/bobs.txt`, 'partial-restore': true },
        ]);
        assert.equal((await gw.stat('bob', `${gw.home('bob')}/bobs.txt`)).permission, 'own');
      });

      test('restore-all and an empty restore list restore everything; the body is ignored', async () => {
        await gw.ok('carol', 'POST', '/secured/filesystem/directories', {
          json: { paths: [`${gw.home('carol')}/keep`] },
        });
        for (const name of ['x.txt', 'y.txt'])
          await gw.upload('carol', `${gw.home('carol')}/keep`, name, name);
        await remove('carol', [`${gw.home('carol')}/keep/x.txt`, `${gw.home('carol')}/keep/y.txt`]);
        const all = await gw.ok('carol', 'POST', '/secured/filesystem/restore-all', { raw: '{}' });
        assert.deepEqual(
          Object.values(all.restored)
            .map((entry: any) => entry['restored-path'])
            .sort(),
          [`${gw.home('carol')}/keep/x.txt`, `${gw.home('carol')}/keep/y.txt`],
        );
        assert.equal((await trashListing('carol')).total, 0);

        await remove('carol', [`${gw.home('carol')}/keep/x.txt`]);
        const noBody = await gw.ok('carol', 'POST', '/filesystem/restore-all');
        assert.deepEqual(
          Object.values(noBody.restored).map((entry: any) => entry['restored-path']),
          [`${gw.home('carol')}/keep/x.txt`],
        );
        await remove('carol', [`${gw.home('carol')}/keep/y.txt`]);
        const junk = await gw.ok('carol', 'POST', '/filesystem/restore-all', {
          raw: 'not json at all',
        });
        assert.equal(Object.keys(junk.restored).length, 1);
        await remove('carol', [`${gw.home('carol')}/keep/y.txt`]);
        const empty = await gw.ok('carol', 'POST', '/filesystem/restore', { json: { paths: [] } });
        assert.equal(Object.keys(empty.restored).length, 1);
        assert.equal((await trashListing('carol')).total, 0);
      });

      test('DELETE trash empties it for good (a {} body is tolerated); deleting from the trash is for good too', async () => {
        const dave = gw.home('dave');
        for (const name of ['1.txt', '2.txt', '3.txt']) await gw.upload('dave', dave, name, name);
        const trashed = await remove('dave', [`${dave}/1.txt`, `${dave}/2.txt`, `${dave}/3.txt`]);
        const forGood = await gw.ok('dave', 'POST', '/filesystem/delete', {
          json: { paths: [trashed[`${dave}/3.txt`]] },
        });
        assert.deepEqual(forGood.paths, [trashed[`${dave}/3.txt`]]);
        assert.equal(await gw.stat('dave', trashed[`${dave}/3.txt`]!), undefined);
        assert.equal((await trashListing('dave')).total, 2);

        const emptied = await gw.ok('dave', 'DELETE', '/secured/filesystem/trash', { raw: '{}' });
        assert.equal(emptied.trash, gw.trash('dave'));
        assert.deepEqual(
          [...emptied.paths].sort(),
          [trashed[`${dave}/1.txt`], trashed[`${dave}/2.txt`]].sort(),
        );
        assert.equal((await trashListing('dave')).total, 0);
        assert.equal(await gw.stat('dave', trashed[`${dave}/1.txt`]!), undefined);
        const again = await gw.ok('dave', 'DELETE', '/filesystem/trash');
        assert.deepEqual(again.paths, []);
        assert.equal((await gw.call(null, 'DELETE', '/filesystem/trash')).status, 401);
      });

      test('only owners delete; the home itself cannot be deleted', async () => {
        const own = await gw.call('alice', 'POST', '/secured/filesystem/delete', {
          json: { paths: [home] },
        });
        assert.equal(own.body.error_code, 'ERR_NOT_AUTHORIZED');
        assert.equal(own.status, 403);
        const missing = await gw.call('alice', 'POST', '/secured/filesystem/delete', {
          json: { paths: [`${home}/no-such-thing`] },
        });
        assert.equal(missing.body.error_code, 'ERR_DOES_NOT_EXIST');
      });
    });
  });
}

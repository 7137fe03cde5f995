// Two users through the gateway: what bob can do with alice's data with no access, a read
// share, a write share, and after the share is revoked; what alice sees of it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  q,
  startDataStoreGateway,
  type Answer,
  type DataStoreGateway,
} from '../support/data-store.ts';
import { engines, skipWithout } from '../support/postgres.ts';

for (const engine of engines) {
  describe(`filesystem permissions (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: DataStoreGateway;
    let home: string;
    let bobHome: string;

    before(async () => {
      gw = (await startDataStoreGateway({ engine }))!;
      home = gw.home('alice');
      bobHome = gw.home('bob');
      await gw.ok('bob', 'GET', '/secured/filesystem/root'); // bob exists
      await gw.ok('alice', 'POST', '/secured/filesystem/directories', {
        json: { paths: [`${home}/private`, `${home}/ro/inner`, `${home}/rw`] },
      });
      await gw.upload('alice', `${home}/private`, 'p.txt', 'private data');
      await gw.upload('alice', `${home}/ro`, 'r.txt', 'readable data');
      await gw.upload('alice', `${home}/rw`, 'w.txt', 'writable data');
    });
    after(async () => gw?.close());

    function refused(answer: Answer, code: string, what: string) {
      assert.equal(answer.body?.error_code, code, `${what}: ${answer.status} ${answer.text}`);
      assert.ok(
        answer.status >= 400 && answer.status < 500,
        `${what}: a client error, got ${answer.status}`,
      );
    }

    async function share(user: string, path: string, permission: string) {
      const answer = await gw.ok('alice', 'POST', '/secured/share', {
        json: { sharing: [{ user, paths: [{ path, permission }] }] },
      });
      assert.equal(answer.sharing[0].sharing[0].success, true, JSON.stringify(answer));
    }

    const download = (user: string, path: string) =>
      gw.call(user, 'GET', `/fileio/download?path=${q(path)}`);
    const readChunk = (user: string, path: string) =>
      gw.call(user, 'POST', '/filesystem/read-chunk', {
        json: { path, position: 0, 'chunk-size': 100 },
      });

    describe('bob and alice', () => {
      test('with no access bob can neither read nor change anything of alice', async () => {
        const file = `${home}/private/p.txt`;
        refused(
          await gw.call('bob', 'POST', '/filesystem/stat', { json: { paths: [file] } }),
          'ERR_NOT_READABLE',
          'stat',
        );
        refused(
          await gw.call(
            'bob',
            'GET',
            `/filesystem/paged-directory?path=${q(`${home}/private`)}&limit=10`,
          ),
          'ERR_NOT_READABLE',
          'list',
        );
        refused(
          await gw.call('bob', 'GET', `/secured/filesystem/directory?path=${q(`${home}/private`)}`),
          'ERR_NOT_READABLE',
          'navigate',
        );
        refused(await readChunk('bob', file), 'ERR_NOT_READABLE', 'read-chunk');
        assert.equal(
          (await download('bob', file)).body?.error_code,
          'ERR_NOT_READABLE',
          'download',
        );
        assert.equal(
          (await gw.uploadThroughGateway('bob', `${home}/private`, 'planted.txt', 'x')).body
            ?.error_code,
          'ERR_NOT_WRITEABLE',
          'upload',
        );
        refused(
          await gw.call('bob', 'GET', `/filesystem/file/manifest?path=${q(file)}`),
          'ERR_NOT_READABLE',
          'manifest',
        );
        refused(
          await gw.call('bob', 'POST', '/secured/filesystem/directory/create', {
            json: { path: `${home}/private/bobs` },
          }),
          'ERR_NOT_WRITEABLE',
          'create a folder',
        );
        refused(
          await gw.call('bob', 'POST', '/secured/filesystem/delete', { json: { paths: [file] } }),
          'ERR_NOT_OWNER',
          'delete',
        );
        refused(
          await gw.call('bob', 'POST', '/secured/filesystem/tickets', { json: { paths: [file] } }),
          'ERR_NOT_WRITEABLE',
          'ticket',
        );
        const moved = await gw.call('bob', 'POST', '/filesystem/move', {
          json: { sources: [file], dest: bobHome },
        });
        assert.ok(
          ['ERR_NOT_READABLE', 'ERR_NOT_WRITEABLE', 'ERR_NOT_OWNER'].includes(
            moved.body.error_code,
          ),
          moved.text,
        );
        const renamed = await gw.call('bob', 'POST', '/secured/filesystem/rename', {
          json: { source: file, dest: `${home}/private/mine.txt` },
        });
        assert.ok(
          ['ERR_NOT_READABLE', 'ERR_NOT_WRITEABLE', 'ERR_NOT_OWNER'].includes(
            renamed.body.error_code,
          ),
          renamed.text,
        );
        assert.deepEqual(
          await gw.ok('bob', 'POST', '/secured/filesystem/exists', { json: { paths: [file] } }),
          { paths: { [file]: false } },
        );
        refused(
          await gw.call('bob', 'POST', '/filesystem/user-permissions', { json: { paths: [file] } }),
          'ERR_NOT_OWNER',
          'permissions',
        );
        refused(
          await gw.call('bob', 'POST', '/filesystem/delete-contents', {
            json: { path: `${home}/private` },
          }),
          'ERR_NOT_READABLE',
          'delete contents (the id lookup needs read)',
        );
        assert.ok(await gw.stat('alice', file), 'still there');
        assert.equal((await gw.stat('alice', `${home}/private`))['file-count'], 1);
      });

      test('a read share lets bob read and list, not write, rename or delete; alice sees the share count', async () => {
        await share('bob', `${home}/ro`, 'read');
        const folder = await gw.stat('bob', `${home}/ro`);
        assert.equal(folder.permission, 'read');
        assert.equal(folder['share-count'], undefined, 'only owners see share counts');
        assert.equal((await gw.stat('alice', `${home}/ro`))['share-count'], 1);

        const listing = await gw.ok(
          'bob',
          'GET',
          `/filesystem/paged-directory?path=${q(`${home}/ro`)}&limit=10`,
        );
        assert.deepEqual(
          [...listing.folders, ...listing.files].map((entry: any) => [
            entry.label,
            entry.permission,
          ]),
          [
            ['inner', 'read'],
            ['r.txt', 'read'],
          ],
        );
        assert.equal((await readChunk('bob', `${home}/ro/r.txt`)).body.chunk, 'readable data');
        const downloaded = await download('bob', `${home}/ro/r.txt`);
        assert.equal(downloaded.status, 200);
        assert.equal(downloaded.text, 'readable data');
        assert.equal(
          (await gw.uploadThroughGateway('bob', `${home}/ro`, 'planted.txt', 'x')).body?.error_code,
          'ERR_NOT_WRITEABLE',
          'upload into a read share',
        );
        assert.equal((await gw.stat('bob', `${home}/ro/r.txt`)).permission, 'read');
        const shared = await gw.ok(
          'bob',
          'GET',
          `/filesystem/paged-directory?path=${q(`/${gw.zone}/home`)}&limit=50`,
        );
        assert.ok(
          [...shared.folders].some(
            (entry: any) => entry.path === home || entry.path === `${home}/ro`,
          ),
          'visible under Shared With Me',
        );

        refused(
          await gw.call('bob', 'POST', '/secured/filesystem/directory/create', {
            json: { path: `${home}/ro/bobs` },
          }),
          'ERR_NOT_WRITEABLE',
          'create in a read share',
        );
        const rename = await gw.call('bob', 'POST', '/secured/filesystem/rename', {
          json: { source: `${home}/ro/r.txt`, dest: `${home}/ro/x.txt` },
        });
        assert.ok(
          ['ERR_NOT_WRITEABLE', 'ERR_NOT_OWNER'].includes(rename.body.error_code),
          rename.text,
        );
        refused(
          await gw.call('bob', 'POST', '/secured/filesystem/delete', {
            json: { paths: [`${home}/ro/r.txt`] },
          }),
          'ERR_NOT_OWNER',
          'delete in a read share',
        );
        const move = await gw.call('bob', 'POST', '/filesystem/move', {
          json: { sources: [`${home}/ro/r.txt`], dest: bobHome },
        });
        assert.ok(['ERR_NOT_WRITEABLE', 'ERR_NOT_OWNER'].includes(move.body.error_code), move.text);
        refused(
          await gw.call('bob', 'POST', '/secured/filesystem/tickets', {
            json: { paths: [`${home}/ro/r.txt`] },
          }),
          'ERR_NOT_WRITEABLE',
          'ticket on a read share',
        );
        assert.equal((await gw.stat('alice', `${home}/ro/r.txt`))['file-size'], 13, 'unchanged');

        const permissions = await gw.ok('alice', 'POST', '/filesystem/user-permissions', {
          json: { paths: [`${home}/ro`] },
        });
        assert.deepEqual(
          permissions.paths[0]['user-permissions'].filter((entry: any) => entry.user === 'bob'),
          [{ user: 'bob', permission: 'read' }],
        );
      });

      test('a write share lets bob add files and folders, and delete what he made, not what alice made', async () => {
        await share('bob', `${home}/rw`, 'write');
        assert.equal((await gw.stat('bob', `${home}/rw`)).permission, 'write');
        const uploaded = await gw.uploadThroughGateway('bob', `${home}/rw`, 'bobs.txt', 'from bob');
        assert.equal(uploaded.status, 200, uploaded.text);
        assert.equal(uploaded.body.file.path, `${home}/rw/bobs.txt`);
        const made = await gw.ok('bob', 'POST', '/secured/filesystem/directory/create', {
          json: { path: `${home}/rw/bobs-folder` },
        });
        assert.equal(made.permission, 'own', 'bob owns what he made');
        assert.equal(
          (await gw.stat('alice', `${home}/rw/bobs.txt`))['file-size'],
          8,
          'alice sees it',
        );

        refused(
          await gw.call('bob', 'POST', '/secured/filesystem/delete', {
            json: { paths: [`${home}/rw/w.txt`] },
          }),
          'ERR_NOT_OWNER',
          "delete alice's file",
        );
        assert.ok(await gw.stat('alice', `${home}/rw/w.txt`));
        const deleted = await gw.ok('bob', 'POST', '/secured/filesystem/delete', {
          json: { paths: [`${home}/rw/bobs-folder`] },
        });
        assert.ok(
          deleted['trash-paths'][`${home}/rw/bobs-folder`].startsWith(`${gw.trash('bob')}/`),
          'into bob’s trash',
        );
        assert.equal(await gw.stat('alice', `${home}/rw/bobs-folder`), undefined);
      });

      test('unsharing revokes access and the share count drops', async () => {
        const answer = await gw.ok('alice', 'POST', '/unshare', {
          json: { unshare: [{ user: 'bob', paths: [`${home}/ro`] }] },
        });
        assert.deepEqual(
          answer.unshare[0].unshare.map((entry: any) => [entry.path, entry.success]),
          [[`${home}/ro`, true]],
        );
        refused(
          await gw.call('bob', 'POST', '/filesystem/stat', {
            json: { paths: [`${home}/ro/r.txt`] },
          }),
          'ERR_NOT_READABLE',
          'stat after unshare',
        );
        refused(
          await readChunk('bob', `${home}/ro/r.txt`),
          'ERR_NOT_READABLE',
          'read after unshare',
        );
        assert.equal(
          (await download('bob', `${home}/ro/r.txt`)).body?.error_code,
          'ERR_NOT_READABLE',
          'download after unshare',
        );
        assert.equal((await gw.stat('alice', `${home}/ro`))['share-count'], 0);
      });
    });
  });
}

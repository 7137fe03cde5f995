// The community data folder (`/<zone>/home/shared`), on SQLite and PostgreSQL: administrators
// (a role of ADMIN_ROLES or DATA_STORE_ADMIN_ROLES) curate it, everyone else reads it. The web UI
// enables "New folder" and upload from the `permission` of the folder's paged listing (Sonora
// src/components/data/listing/Listing.js, passed to the toolbar; src/components/data/utils.js
// isWritable), creates folders with `POST /filesystem/directory/create` `{path}` and uploads with
// `/fileio/upload` (src/serviceFacades/filesystem.js), and shows `user-permissions` in its sharing
// dialog: an administrator's folder there answers `own` in all of them, and another user reads it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { q, startDataStoreGateway, type DataStoreGateway } from '../support/data-store.ts';
import { engines, skipWithout } from '../support/postgres.ts';

/** `root` holds an ADMIN_ROLES role, `curator` a DATA_STORE_ADMIN_ROLES one; alice and bob neither. */
const roles: Record<string, string[]> = { root: ['de-admin'], curator: ['data-store-admin'] };

for (const engine of engines) {
  describe(`community data (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: DataStoreGateway;
    let folder: string;
    let file: string;
    before(async () => {
      gw = (await startDataStoreGateway({
        engine,
        claims: (user) => (roles[user] ? { realm_access: { roles: roles[user] } } : {}),
      }))!;
      folder = `${gw.community}/wc-test-data`;
      file = `${folder}/words.txt`;
    });
    after(async () => gw?.close());

    const listing = (user: string | null, path: string) =>
      gw.call(
        user,
        'GET',
        `${user ? '/secured' : ''}/filesystem/paged-directory?path=${q(path)}&limit=10`,
      );

    test('an administrator creates a folder and uploads there, as the web UI does', async () => {
      const community = await listing('root', gw.community);
      assert.equal(community.status, 200, community.text);
      assert.equal(community.body.permission, 'own', 'the UI enables New folder and upload');

      const made = await gw.call('root', 'POST', '/secured/filesystem/directory/create', {
        json: { path: folder },
      });
      assert.equal(made.status, 200, made.text);
      assert.equal(made.body.path, folder);
      assert.equal(made.body.permission, 'own');
      const uploaded = await gw.uploadThroughGateway('root', folder, 'words.txt', 'one two three');
      assert.equal(uploaded.status, 200, uploaded.text);
      assert.equal(uploaded.body.file.path, file);
      assert.equal(uploaded.body.file.permission, 'own');

      const inside = await listing('root', folder);
      assert.equal(inside.body.permission, 'own');
      assert.deepEqual(
        inside.body.files.map((entry: any) => [entry.path, entry.permission]),
        [[file, 'own']],
      );
      // The one who made them owns them; everyone reads them through the community folder.
      const permissions = await gw.ok('root', 'POST', '/secured/filesystem/user-permissions', {
        json: { paths: [folder, file] },
      });
      assert.deepEqual(
        permissions.paths.map((entry: any) => [entry.path, entry['user-permissions']]),
        [
          [folder, [{ user: 'root', permission: 'own' }]],
          [file, [{ user: 'root', permission: 'own' }]],
        ],
      );
    });

    test('other users and signed-out callers read it; ordinary users cannot write there', async () => {
      const seen = await listing('alice', folder);
      assert.equal(seen.status, 200, seen.text);
      assert.equal(seen.body.permission, 'read', 'the UI disables New folder and upload');
      assert.deepEqual(
        seen.body.files.map((entry: any) => [entry.path, entry.permission]),
        [[file, 'read']],
      );
      for (const user of ['alice', null]) {
        const read = await gw.call(
          user,
          'GET',
          `${user ? '/secured' : ''}/fileio/download?path=${q(file)}`,
        );
        assert.equal(read.status, 200, read.text);
        assert.equal(read.text, 'one two three');
      }
      assert.equal((await listing(null, folder)).status, 200);

      const mkdir = await gw.call('alice', 'POST', '/secured/filesystem/directory/create', {
        json: { path: `${folder}/mine` },
      });
      assert.equal(mkdir.status, 403, mkdir.text);
      assert.equal(mkdir.body.error_code, 'ERR_NOT_WRITEABLE');
      const upload = await gw.uploadThroughGateway('alice', gw.community, 'mine.txt', 'x');
      assert.equal(upload.body.error_code, 'ERR_NOT_WRITEABLE', upload.text);
      const rename = await gw.call('alice', 'POST', '/secured/filesystem/rename', {
        json: { source: file, dest: `${folder}/renamed.txt` },
      });
      assert.equal(rename.body.error_code, 'ERR_NOT_OWNER', rename.text);
      const remove = await gw.call('alice', 'POST', '/secured/filesystem/delete', {
        json: { paths: [file] },
      });
      assert.equal(remove.body.error_code, 'ERR_NOT_OWNER', remove.text);
      // Saying so oneself does not make one an administrator: the gateway drops the parameter.
      const spoofed = await gw.call(
        'alice',
        'POST',
        '/secured/filesystem/directories?data-store-admin=true',
        { json: { paths: [`${gw.community}/spoofed`] } },
      );
      assert.equal(spoofed.status, 403, spoofed.text);
      assert.equal(spoofed.body.error_code, 'ERR_NOT_WRITEABLE');
      assert.equal(await gw.stat('alice', `${gw.community}/spoofed`), undefined);
    });

    test('another administrator may change it; the community folder itself stays', async () => {
      const renamed = `${folder}/words-v2.txt`;
      await gw.ok('curator', 'POST', '/secured/filesystem/rename', {
        json: { source: file, dest: renamed },
      });
      assert.equal((await gw.stat('curator', renamed)).permission, 'own');
      const deleted = await gw.ok('curator', 'POST', '/secured/filesystem/delete', {
        json: { paths: [renamed] },
      });
      const inTrash: string = deleted['trash-paths'][renamed];
      assert.ok(inTrash.startsWith(`${gw.trash('curator')}/`), inTrash);
      const restored = await gw.ok('curator', 'POST', '/secured/filesystem/restore', {
        json: { paths: [inTrash] },
      });
      assert.deepEqual(restored.restored[inTrash], {
        'restored-path': renamed,
        'partial-restore': false,
      });
      const read = await gw.call('bob', 'GET', `/secured/fileio/download?path=${q(renamed)}`);
      assert.equal(read.text, 'one two three');

      for (const [route, json] of [
        ['delete', { paths: [gw.community] }],
        ['rename', { source: gw.community, dest: `/${gw.zone}/home/community` }],
      ] as const) {
        const refused = await gw.call('root', 'POST', `/secured/filesystem/${route}`, { json });
        assert.equal(refused.status, 403, `${route}: ${refused.text}`);
      }
      assert.equal((await listing('root', gw.community)).status, 200);
    });
  });
}

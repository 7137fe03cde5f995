// Public links and the trash, on SQLite and PostgreSQL. The web UI's public-links dialog (Sonora
// src/components/data/PublicLinks.js) shows `paths[<path>]` of the `anon-files` answer as the
// file's public link. A file in the trash is not public: signed out, its link answers 404
// `ERR_TICKET_DOES_NOT_EXIST` and no read route serves it, by its old path or its trash path
// (nor does another user signed in); trashing its folder does the same. Restoring it brings the
// same link back; deleting it for good ends the link.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { q, startDataStoreGateway, type DataStoreGateway } from '../support/data-store.ts';
import { engines, skipWithout } from '../support/postgres.ts';

const content = 'published content';

for (const engine of engines) {
  describe(`public links and the trash (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: DataStoreGateway;
    before(async () => {
      gw = (await startDataStoreGateway({
        engine,
        env: { TICKET_BASE_URL: 'https://files.example.org/tickets' },
      }))!;
      await gw.ok('bob', 'GET', '/secured/filesystem/root');
    });
    after(async () => gw?.close());

    /** alice's file at `<folder>/<name>` made public as the web UI does: its public link, as a gateway path. */
    async function published(folder: string, name: string) {
      await gw.folder('alice', folder);
      await gw.upload('alice', folder, name, content);
      const path = `${folder}/${name}`;
      const answer = await gw.ok('alice', 'POST', '/secured/filesystem/anon-files', {
        json: { paths: [path] },
      });
      assert.equal(typeof answer.paths[path], 'string');
      const link = new URL(answer.paths[path]).pathname;
      return { path, link, page: link.replace('/d/', '/').replace(/\/[^/]+$/, '') };
    }

    /** Every way to read `path` signed out (and, with `user`, signed in): the answers by route. */
    async function reads(path: string, user: string | null = null) {
      const secured = user ? '/secured' : '';
      const answers = {
        stat: await gw.call(user, 'POST', `${secured}/filesystem/stat`, {
          json: { paths: [path] },
        }),
        manifest: await gw.call(user, 'GET', `${secured}/filesystem/file/manifest?path=${q(path)}`),
        'read-chunk': await gw.call(user, 'POST', `${secured}/filesystem/read-chunk`, {
          json: { path, position: 0, 'chunk-size': 100 },
        }),
        download: await gw.call(user, 'GET', `${secured}/fileio/download?path=${q(path)}`),
        'display-download': await gw.call(
          user,
          'GET',
          `${secured}/filesystem/display-download?path=${q(path)}&attachment=0`,
        ),
      };
      return Object.entries(answers);
    }

    async function assertUnreadable(path: string, user: string | null = null) {
      for (const [route, answer] of await reads(path, user)) {
        assert.notEqual(answer.status, 200, `${route} of ${path} as ${user}: ${answer.text}`);
        assert.match(answer.body?.error_code ?? '', /^ERR_/, `${route}: ${answer.text}`);
        assert.ok(!answer.text.includes(content), `${route} leaks the content`);
      }
    }

    async function assertLinkDead(link: string, page: string) {
      for (const route of [link, page]) {
        const answer = await gw.call(null, 'GET', route);
        assert.equal(answer.status, 404, `${route}: ${answer.text}`);
        assert.equal(answer.body.error_code, 'ERR_TICKET_DOES_NOT_EXIST');
      }
    }

    test('a trashed file is not public; restored, its link works again', async () => {
      const { path, link, page } = await published(`${gw.home('alice')}/pub`, 'open.txt');
      const live = await gw.call(null, 'GET', link);
      assert.equal(live.status, 200, live.text);
      assert.equal(live.text, content);
      for (const [route, answer] of await reads(path))
        assert.equal(answer.status, 200, `${route} before the trash: ${answer.text}`);

      const deleted = await gw.ok('alice', 'POST', '/secured/filesystem/delete', {
        json: { paths: [path] },
      });
      const inTrash: string = deleted['trash-paths'][path];
      await assertLinkDead(link, page);
      await assertUnreadable(path);
      await assertUnreadable(inTrash);
      await assertUnreadable(inTrash, 'bob');
      const listing = await gw.call(
        null,
        'GET',
        `/filesystem/paged-directory?path=${q(gw.trash('alice'))}&limit=10`,
      );
      assert.equal(listing.status, 401, listing.text);
      // Its owner still sees it, and its link, in the trash.
      const own = await gw.call('alice', 'GET', `/secured/fileio/download?path=${q(inTrash)}`);
      assert.equal(own.text, content);
      const tickets = await gw.ok('alice', 'POST', '/secured/filesystem/list-tickets', {
        json: { paths: [inTrash] },
      });
      assert.equal(tickets.tickets[inTrash].length, 1);

      const restored = await gw.ok('alice', 'POST', '/secured/filesystem/restore', {
        json: { paths: [inTrash] },
      });
      assert.equal(restored.restored[inTrash]['restored-path'], path);
      const back = await gw.call(null, 'GET', link);
      assert.equal(back.status, 200, back.text);
      assert.equal(back.text, content);
      assert.equal((await gw.call(null, 'GET', page)).status, 200);
      for (const [route, answer] of await reads(path))
        assert.equal(answer.status, 200, `${route} after the restore: ${answer.text}`);
    });

    test("trashing the file's folder suspends its link too; deleting for good ends it", async () => {
      const folder = `${gw.home('alice')}/pub-folder`;
      const { path, link, page } = await published(folder, 'inside.txt');
      assert.equal((await gw.call(null, 'GET', link)).status, 200);
      const deleted = await gw.ok('alice', 'POST', '/secured/filesystem/delete', {
        json: { paths: [folder] },
      });
      const inTrash: string = deleted['trash-paths'][folder];
      await assertLinkDead(link, page);
      await assertUnreadable(path);
      await assertUnreadable(`${inTrash}/inside.txt`);

      await gw.ok('alice', 'POST', '/secured/filesystem/restore', { json: { paths: [inTrash] } });
      assert.equal((await gw.call(null, 'GET', link)).text, content);

      const again = await gw.ok('alice', 'POST', '/secured/filesystem/delete', {
        json: { paths: [path] },
      });
      await gw.ok('alice', 'POST', '/secured/filesystem/delete', {
        json: { paths: [again['trash-paths'][path]] },
      });
      await assertLinkDead(link, page);
      await assertUnreadable(path);
    });
  });
}

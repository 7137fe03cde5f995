// Comments on apps against the embedded apps service's real apps (no stand-in), on SQLite and
// PostgreSQL: an app alice makes through POST /apps/de and publishes, one she keeps under
// development, and a built-in app. Who sees an app decides who may comment on it; its integrator
// (recognised by the details the apps service answers) retracts through the admin variant; the
// platform's own apps are retracted only by commenters and administrators; a deleted app takes none.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../src/backends/apps/catalog/built-in.ts';
import { admin, startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';
import { engines, skipWithout } from '../support/postgres.ts';

const wordCount = builtInApps.find((app) => app.name === 'Word count')!;

for (const engine of engines) {
  describe(
    `comments on the embedded service's apps (${engine})`,
    { skip: skipWithout(engine) },
    () => {
      let g: MetadataGateway;
      let published: string; // alice's app, public
      let draft: string; // alice's app, under development: only she sees it

      const comments = (appId: string) => `/apps/${appId}/comments`;
      const post = (user: string, appId: string, comment: string) =>
        g.call(user, 'POST', comments(appId), { json: { comment } });
      const list = async (user: string, appId: string) => {
        const answer = await g.call(user, 'GET', comments(appId));
        assert.equal(answer.status, 200, answer.text);
        return answer.body.comments as any[];
      };
      const retract = (user: string, appId: string, commentId: string, retracted: boolean) =>
        g.call(user, 'PATCH', `${comments(appId)}/${commentId}?retracted=${retracted}`);
      const posted = async (user: string, appId: string, comment: string) => {
        const answer = await post(user, appId, comment);
        assert.equal(answer.status, 201, answer.text);
        return answer.body.comment;
      };

      before(async () => {
        g = (await startMetadataGateway({ engine }))!;
        published = (
          await g.ok('alice', 'POST', '/apps/de', {
            json: { name: 'Aligner', description: 'aligns reads' },
          })
        ).id;
        draft = (await g.ok('alice', 'POST', '/apps/de', { json: { name: 'Draft' } })).id;
        // No publishing route yet: an administrator's publication, as the catalog records it.
        await g.running.gateway.store.db
          .updateTable('apps')
          .set({ is_public: true })
          .where('id', '=', published)
          .execute();
      });
      after(() => g?.close());

      test('comments on a published and on a built-in app: 201, listed for everyone; unknown apps are 404', async () => {
        const onPublished = await posted('bob', published, 'Fast and correct');
        assert.equal(onPublished.commenter, 'bob');
        assert.equal(onPublished.retracted, false);
        const onBuiltIn = await posted('carol', wordCount.id, 'Handy');
        assert.deepEqual(await list('carol', published), [onPublished]);
        assert.deepEqual(
          (await list('alice', wordCount.id)).map((item) => item.id),
          [onBuiltIn.id],
        );
        // The app id may come in upper case.
        assert.deepEqual(
          (await list('bob', published.toUpperCase())).map((item) => item.id),
          [onPublished.id],
        );

        for (const unknown of [randomUUID(), 'not-a-uuid']) {
          for (const answer of [
            await post('bob', unknown, 'x'),
            await g.call('bob', 'GET', comments(unknown)),
            await retract('bob', unknown, onPublished.id, true),
          ]) {
            assert.equal(answer.status, 404, `${unknown}: ${answer.text}`);
            assert.equal(answer.body.error_code, 'ERR_NOT_FOUND');
          }
        }
      });

      test('an app under development takes comments from its integrator only: others get 404', async () => {
        const own = await posted('alice', draft, 'note to self');
        for (const answer of [
          await post('bob', draft, 'peek'),
          await g.call('bob', 'GET', comments(draft)),
          await retract('bob', draft, own.id, true),
        ]) {
          assert.equal(answer.status, 404, answer.text);
          assert.equal(answer.body.error_code, 'ERR_NOT_FOUND');
        }
        assert.deepEqual(
          (await list('alice', draft)).map((item) => item.comment),
          ['note to self'],
        );
      });

      test("the integrator of a real app retracts others' comments; other users may not", async () => {
        const comment = await posted('bob', published, 'spam?');
        const state = async () =>
          (await list('carol', published)).find((item) => item.id === comment.id).retracted;

        const carol = await retract('carol', published, comment.id, true);
        assert.equal(carol.status, 403, carol.text);
        assert.equal(carol.body.error_code, 'ERR_NOT_OWNER');
        assert.equal(await state(), false);

        // The apps service's details name alice as the integrator: the gateway takes the admin variant for her.
        assert.equal((await retract('alice', published, comment.id, true)).status, 200);
        assert.equal(await state(), true);
        const details = (await g.ok(admin, 'GET', '/admin/comments/bob')).comments.find(
          (item: any) => item.id === comment.id,
        );
        assert.equal(details.retracted_by, 'alice');
        assert.equal(details.target_id, published);
        assert.equal(details.target_type, 'app');

        assert.equal(
          (await retract('bob', published, comment.id, false)).status,
          403,
          'only the retractor readmits',
        );
        assert.equal((await retract('alice', published, comment.id, false)).status, 200);
        assert.equal(await state(), false);
      });

      test('a built-in app belongs to the platform: no user retracts comments on it but their own', async () => {
        const comment = await posted('bob', wordCount.id, 'counts words');
        for (const user of ['alice', 'carol']) {
          const refused = await retract(user, wordCount.id, comment.id, true);
          assert.equal(refused.status, 403, `${user}: ${refused.text}`);
        }
        assert.equal((await retract('bob', wordCount.id, comment.id, true)).status, 200);
        assert.equal((await retract('bob', wordCount.id, comment.id, false)).status, 200);
        // An administrator deletes it for good.
        assert.equal(
          (await g.call(admin, 'DELETE', `/admin/apps/${wordCount.id}/comments/${comment.id}`))
            .status,
          200,
        );
        assert.equal(
          (await list('carol', wordCount.id)).some((item) => item.id === comment.id),
          false,
        );
      });

      test('a deleted app takes no more comments and lists none', async () => {
        const doomed = (await g.ok('alice', 'POST', '/apps/de', { json: { name: 'Doomed' } })).id;
        await posted('alice', doomed, 'before deletion');
        assert.equal((await g.call('alice', 'DELETE', `/apps/de/${doomed}`)).status, 200);
        assert.equal((await post('alice', doomed, 'after deletion')).status, 404);
        assert.equal((await g.call('alice', 'GET', comments(doomed))).status, 404);
      });
    },
  );
}

// The embedded metadata service's comments on files, folders and apps (backends.md §3.1) over real
// HTTP, on each engine: posting and listing, bad requests, the retraction state machine, and the
// admin routes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { metadataEngines, type MetadataHost } from '../../support/metadata-host.ts';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Comments on files, folders and apps (backends.md §3.1), the retraction state machine, admin routes; on each engine. */
for (const engine of metadataEngines) {
  describe(`metadata comments on ${engine.name}`, () => {
    let service: MetadataHost | undefined;
    before(async () => {
      service = await engine.open();
    });
    after(async () => service?.close());
    const s = () => service!;

    const post = async (path: string, user: string, comment: string) => {
      const answer = await s().call('POST', path, { user, body: { comment } });
      assert.equal(answer.status, 201, answer.text);
      return answer.json().comment as {
        id: string;
        commenter: string;
        post_time: number;
        retracted: boolean;
        comment: string;
      };
    };

    test('post and list on a file, a folder (both spellings) and an app', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const file = randomUUID();
      const before = Date.now();
      const first = await post(
        `/filesystem/entry/${file}/comments?data-type=file`,
        'alice',
        'first ✓',
      );
      assert.match(first.id, uuid);
      assert.deepEqual(Object.keys(first).sort(), [
        'comment',
        'commenter',
        'id',
        'post_time',
        'retracted',
      ]);
      assert.equal(first.commenter, 'alice');
      assert.equal(first.comment, 'first ✓');
      assert.equal(first.retracted, false);
      assert.ok(
        first.post_time >= before && first.post_time <= Date.now(),
        'post_time is ms since the epoch',
      );
      await new Promise((resolve) => setTimeout(resolve, 5));
      const second = await post(
        `/filesystem/data/${file.toUpperCase()}/comments?data-type=FILE`,
        'bob',
        'second',
      );

      const listed = await s().call('GET', `/filesystem/entry/${file}/comments`);
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        listed.json(),
        { comments: [first, second] },
        'oldest first, the upper-case id is the same target',
      );
      assert.deepEqual(
        (await s().call('GET', `/filesystem/data/${file}/comments`)).json(),
        listed.json(),
      );

      const app = randomUUID();
      const onApp = await post(`/apps/${app}/comments`, 'carol', 'nice app');
      assert.deepEqual((await s().call('GET', `/apps/${app}/comments`)).json(), {
        comments: [onApp],
      });
      assert.deepEqual(
        (await s().call('GET', `/apps/${file}/comments`)).json(),
        { comments: [] },
        'a data target is not an app',
      );
      assert.deepEqual(
        (await s().call('GET', `/filesystem/entry/${app}/comments`)).json(),
        { comments: [] },
        'an app is not a data target',
      );
      assert.deepEqual(
        (await s().call('GET', `/filesystem/entry/${randomUUID()}/comments`)).json(),
        { comments: [] },
      );
    });

    test('bad requests: body, blank comment, data-type, user, ids', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const file = randomUUID();
      const path = `/filesystem/entry/${file}/comments`;
      const expect = async (
        answer: Promise<{ status: number; json: () => any; text: string }>,
        status: number,
        code: string,
      ) => {
        const got = await answer;
        assert.equal(got.status, status, got.text);
        assert.equal(got.json().error_code, code, got.text);
      };
      await expect(
        s().call('POST', `${path}?data-type=file`, { user: 'alice', raw: '{"comment": ' }),
        400,
        'ERR_INVALID_JSON',
      );
      await expect(
        s().call('POST', `${path}?data-type=file`, { user: 'alice', body: { text: 'x' } }),
        400,
        'ERR_BAD_OR_MISSING_FIELD',
      );
      await expect(
        s().call('POST', `${path}?data-type=file`, { user: 'alice', body: { comment: 7 } }),
        400,
        'ERR_BAD_OR_MISSING_FIELD',
      );
      await expect(
        s().call('POST', `${path}?data-type=file`, { user: 'alice', body: { comment: '  ' } }),
        400,
        'ERR_BAD_OR_MISSING_FIELD',
      );
      await expect(
        s().call('POST', `${path}?data-type=file`, { user: 'alice', body: ['x'] }),
        400,
        'ERR_BAD_OR_MISSING_FIELD',
      );
      await expect(
        s().call('POST', path, { user: 'alice', body: { comment: 'x' } }),
        400,
        'ERR_MISSING_QUERY_PARAMETER',
      );
      await expect(
        s().call('POST', `${path}?data-type=app`, { user: 'alice', body: { comment: 'x' } }),
        400,
        'ERR_BAD_QUERY_PARAMETER',
      );
      await expect(
        s().call('POST', `${path}?data-type=file`, { body: { comment: 'x' } }),
        400,
        'ERR_MISSING_QUERY_PARAMETER',
      );
      await expect(
        s().call('POST', `/filesystem/entry/not-a-uuid/comments?data-type=file`, {
          user: 'alice',
          body: { comment: 'x' },
        }),
        400,
        'ERR_BAD_REQUEST',
      );
      await expect(
        s().call('GET', '/filesystem/entry/not-a-uuid/comments'),
        400,
        'ERR_BAD_REQUEST',
      );
      assert.deepEqual(
        (await s().call('GET', `${path}`)).json(),
        { comments: [] },
        'nothing was stored',
      );
    });

    test('retraction: commenter or admin route retracts, only the retractor readmits', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const folder = randomUUID();
      const base = `/filesystem/entry/${folder}/comments`;
      const comment = await post(`${base}?data-type=folder`, 'bob', 'hm');
      const patch = (user: string, query: string, admin = false) =>
        s().call('PATCH', `${admin ? '/admin' : ''}${base}/${comment.id}?${query}`, { user });
      const state = async () => (await s().call('GET', base)).json().comments[0].retracted;
      const details = async () =>
        (await s().call('GET', '/admin/comments/bob?user=admin'))
          .json()
          .comments.find((c: { id: string }) => c.id === comment.id);

      // Parameter errors first.
      for (const [query, status, code] of [
        ['', 400, 'ERR_MISSING_QUERY_PARAMETER'],
        ['retracted=yes', 400, 'ERR_BAD_QUERY_PARAMETER'],
        ['retracted=1', 400, 'ERR_BAD_QUERY_PARAMETER'],
        ['retracted=true&retracted=false', 409, 'ERR_CONFLICTING_QUERY_PARAMETER_VALUES'],
      ] as const) {
        const answer = await patch('bob', query);
        assert.equal(answer.status, status, `${query}: ${answer.text}`);
        assert.equal(answer.json().error_code, code);
      }
      assert.equal(await state(), false);

      // Someone else can neither retract (plain route) nor readmit.
      const refused = await patch('carol', 'retracted=true');
      assert.equal(refused.status, 403);
      assert.equal(refused.json().error_code, 'ERR_NOT_OWNER');
      assert.match(refused.json().reason, /doesn't own comment/);
      const notRetracted = await patch('bob', 'retracted=false');
      assert.equal(notRetracted.status, 403, 'nobody retracted it, so bob is not its retractor');
      assert.match(notRetracted.json().reason, /wasn't retractor/);

      // The target's owner retracts through the admin route.
      const retracted = await patch('olivia', 'retracted=true', true);
      assert.equal(retracted.status, 200, retracted.text);
      assert.equal(retracted.text, '');
      assert.equal(await state(), true);
      assert.equal((await details()).retracted_by, 'olivia');
      assert.equal(
        (await patch('bob', 'retracted=TRUE&retracted=TRUE')).status,
        200,
        'the commenter may retract again; same repeated value is fine',
      );
      assert.equal(
        (await details()).retracted_by,
        'olivia',
        'retracting again keeps the first retractor',
      );

      // Readmitting: not the commenter, not even via the admin route; only olivia.
      for (const [user, admin] of [
        ['bob', false],
        ['bob', true],
        ['carol', true],
      ] as const) {
        const answer = await patch(user, 'retracted=false', admin);
        assert.equal(answer.status, 403, `${user} admin=${admin}`);
        assert.match(answer.json().reason, /wasn't retractor/);
      }
      assert.equal(await state(), true);
      assert.equal((await patch('olivia', 'retracted=false')).status, 200);
      assert.equal(await state(), false);
      assert.equal((await details()).retracted_by, undefined, 'readmitting clears retracted_by');

      // The commenter retracts and readmits on the plain route.
      assert.equal((await patch('bob', 'retracted=true')).status, 200);
      assert.equal((await details()).retracted_by, 'bob');
      assert.equal((await patch('bob', 'retracted=false')).status, 200);
      assert.equal(await state(), false);

      // Wrong target, unknown comment, wrong family: 404 with both ids.
      for (const url of [
        `/filesystem/entry/${randomUUID()}/comments/${comment.id}`,
        `${base}/${randomUUID()}`,
        `/apps/${folder}/comments/${comment.id}`,
        `/admin/apps/${folder}/comments/${comment.id}`,
      ]) {
        const answer = await s().call('PATCH', `${url}?retracted=true`, { user: 'bob' });
        assert.equal(answer.status, 404, url);
        assert.equal(answer.json().error_code, 'ERR_NOT_FOUND');
        assert.ok(answer.json()['comment-id'] && answer.json()['target-id'], answer.text);
      }
    });

    test('admin: soft delete one, list by commenter with details, hard delete all of a commenter', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const app = randomUUID();
      const file = randomUUID();
      const onApp = await post(`/apps/${app}/comments`, 'dave', 'app comment');
      const onFile = await post(
        `/filesystem/entry/${file}/comments?data-type=file`,
        'dave',
        'file comment',
      );
      const other = await post(`/apps/${app}/comments`, 'erin', 'stays');

      const wrongFamily = await s().call(
        'DELETE',
        `/admin/filesystem/entry/${app}/comments/${onApp.id}`,
        { user: 'admin' },
      );
      assert.equal(wrongFamily.status, 404);
      const deleted = await s().call('DELETE', `/admin/apps/${app}/comments/${onApp.id}`, {
        user: 'admin',
      });
      assert.equal(deleted.status, 200, deleted.text);
      assert.deepEqual(
        (await s().call('GET', `/apps/${app}/comments`)).json(),
        { comments: [other] },
        'deleted comments are not listed',
      );
      assert.equal(
        (await s().call('DELETE', `/admin/apps/${app}/comments/${onApp.id}`, { user: 'admin' }))
          .status,
        404,
        'already deleted',
      );
      assert.equal(
        (
          await s().call('PATCH', `/apps/${app}/comments/${onApp.id}?retracted=true`, {
            user: 'dave',
          })
        ).status,
        404,
        'a deleted comment cannot be retracted',
      );

      const listing = await s().call('GET', '/admin/comments/dave', { user: 'admin' });
      assert.equal(listing.status, 200, listing.text);
      assert.deepEqual(listing.json(), {
        comments: [
          { ...onApp, deleted: true, target_id: app, target_type: 'app' },
          { ...onFile, deleted: false, target_id: file, target_type: 'file' },
        ],
      });

      const wiped = await s().call('DELETE', '/admin/comments/dave', { user: 'admin' });
      assert.equal(wiped.status, 200, wiped.text);
      assert.deepEqual((await s().call('GET', '/admin/comments/dave', { user: 'admin' })).json(), {
        comments: [],
      });
      assert.deepEqual((await s().call('GET', `/filesystem/entry/${file}/comments`)).json(), {
        comments: [],
      });
      assert.deepEqual(
        (await s().call('GET', `/apps/${app}/comments`)).json(),
        { comments: [other] },
        "erin's comment is untouched",
      );
      assert.equal(
        (await s().call('DELETE', '/admin/comments/nobody', { user: 'admin' })).status,
        200,
      );
    });
  });
}

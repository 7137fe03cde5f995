// The administrators' group routes through the gateway (routes.md §24, §3), on both engines with
// the embedded groups service: every user the platform sees is in the platform users group
// `de-users`; `DELETE /admin/groups/de-users/members/{subject-id}` takes one out for good (not
// added back when they return), a second removal is 404; `GET /admin/users/{username}/groups`
// lists a user's groups (teams too, `details` adding who made them), 404 for a user never seen;
// non-administrators are refused both.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { admin, startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';

const names = (body: { groups: Array<{ name: string }> }) => body.groups.map((group) => group.name);

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`admin groups routes (${engine})`, () => {
    let g: MetadataGateway | undefined;

    before(async () => {
      g = await startMetadataGateway({ engine });
    });
    after(async () => {
      await g?.close();
    });

    test("a user's groups, and taking a user out of de-users", async (t) => {
      if (!g) return t.skip('DATABASE_URL is not set');
      await g.ok('alice', 'POST', '/teams', { json: { name: 'lab' } });
      const groups = await g.ok(admin, 'GET', '/admin/users/alice/groups');
      assert.deepEqual(names(groups), ['alice:lab', 'de-users']);
      assert.equal(groups.groups[1].detail, undefined);
      const detailed = await g.ok(admin, 'GET', '/admin/users/alice/groups?details=true');
      assert.equal(detailed.groups[0].detail.created_by, 'alice');

      const removed = await g.call(admin, 'DELETE', '/admin/groups/de-users/members/alice');
      assert.equal(removed.status, 200, removed.text);
      assert.deepEqual(removed.body, { success: true, subject_id: 'alice' });
      const again = await g.call(admin, 'DELETE', '/admin/groups/de-users/members/alice');
      assert.equal(again.status, 404, again.text);
      assert.equal(again.body.error_code, 'ERR_NOT_FOUND');

      // alice comes back: she stays out; bob, new, joins.
      await g.ok('alice', 'GET', '/teams');
      await g.ok('bob', 'GET', '/teams');
      assert.deepEqual(names(await g.ok(admin, 'GET', '/admin/users/alice/groups')), ['alice:lab']);
      assert.deepEqual(names(await g.ok(admin, 'GET', '/admin/users/bob/groups')), ['de-users']);
    });

    test('a user never seen is 404; non-administrators are refused', async (t) => {
      if (!g) return t.skip('DATABASE_URL is not set');
      const unknown = await g.call(admin, 'GET', '/admin/users/nobody-here/groups');
      assert.equal(unknown.status, 404, unknown.text);
      assert.equal(unknown.body.error_code, 'ERR_NOT_FOUND');
      for (const [method, path] of [
        ['GET', '/admin/users/alice/groups'],
        ['DELETE', '/admin/groups/de-users/members/bob'],
      ] as const) {
        const refused = await g.call('carol', method, path);
        assert.equal(refused.status, 403, refused.text);
        assert.equal(refused.body.error_code, 'ERR_FORBIDDEN');
      }
      assert.deepEqual(names(await g.ok(admin, 'GET', '/admin/users/bob/groups')), ['de-users']);
    });
  });
}

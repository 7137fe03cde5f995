// The administrators' workshop group (routes.md §18, served by the apps service and kept by the
// groups service) through the gateway on each engine: made on first use, its members replaced as a
// whole with one outcome per name (unknown users fail alone), listed, and refused to non-admins and
// to bodies of another shape.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engines, skipWithout } from '../../../support/postgres.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../../support/metadata-gateway.ts';

for (const engine of engines) {
  describe(`the workshop group (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: MetadataGateway;
    before(async () => {
      gw = (await startMetadataGateway({ engine }))!;
      for (const name of ['alice', 'bob', admin])
        await gw.ok(name, 'GET', '/subjects?search=nobody-matches-this');
    });
    after(async () => gw?.close());

    test('administrators replace and list its members', async () => {
      const group = await gw.ok(admin, 'GET', '/admin/groups/workshop');
      assert.equal(group.name, 'workshop');
      assert.equal(group.type, 'group');
      assert.equal((await gw.ok(admin, 'GET', '/admin/groups/workshop')).id, group.id);
      assert.deepEqual(await gw.ok(admin, 'GET', '/admin/groups/workshop/members'), {
        members: [],
      });

      const replaced = await gw.ok(admin, 'PUT', '/admin/groups/workshop/members', {
        json: { members: ['alice', 'bob@localhost', 'never-seen'] },
      });
      assert.deepEqual(
        replaced.results.map((r: any) => [r.subject_id, r.success, r.reason]),
        [
          ['alice', true, undefined],
          ['bob', true, undefined],
          ['never-seen', false, 'subject not found'],
        ],
      );
      const members = await gw.ok(admin, 'GET', '/admin/groups/workshop/members');
      assert.deepEqual(
        members.members.map((m: any) => m.id),
        ['alice', 'bob'],
      );

      await gw.ok(admin, 'PUT', '/admin/groups/workshop/members', { json: { members: ['bob'] } });
      assert.deepEqual(
        (await gw.ok(admin, 'GET', '/admin/groups/workshop/members')).members.map((m: any) => m.id),
        ['bob'],
      );
      // It is not a team: nobody finds it among teams or sharing subjects.
      assert.deepEqual((await gw.ok('bob', 'GET', '/teams?member=bob')).groups, []);
    });

    test('non-administrators and bad bodies are refused', async () => {
      const asUser = await gw.call('alice', 'GET', '/admin/groups/workshop/members');
      assert.equal(asUser.status, 403);
      const bad = await gw.call(admin, 'PUT', '/admin/groups/workshop/members', {
        json: { people: ['alice'] },
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
    });
  });
}

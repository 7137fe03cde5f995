// The embedded groups service's collaborator lists and communities (routes.md §22) end to end
// through the gateway, on each engine: a user's lists (the `default` one made on first use,
// members added and deleted, `retain-permissions` read, a list deleted), and a community made
// (public read and opt-in), given admins (each told), joined, left, renamed with and without
// re-tagging its apps' community AVUs, and run by the administrator through /admin/communities.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { communityAvuAttribute } from '../../../src/common/app-community-avus.ts';
import { featuredAppsCommunity } from '../../../src/backends/apps/catalog/app-communities.ts';
import { eventually } from '../../support/fileio.ts';
import { requiredInCi } from '../../support/gateway.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../support/metadata-gateway.ts';

const ids = (list: { id: string }[]) => list.map((item) => item.id).sort();
const names = (groups: { name: string }[]) => groups.map((group) => group.name);

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`groups service: collaborator lists and communities (${engine})`, () => {
    let gw: MetadataGateway | undefined;
    before(async () => {
      gw = await startMetadataGateway({ engine });
      for (const user of ['alice', 'bob', 'carol', admin])
        await gw?.ok(user, 'GET', '/subjects?search=nobody-matches-this');
    });
    after(async () => gw?.close());
    const skip = () => !gw && engine === 'postgres' && !requiredInCi('DATABASE_URL');

    test('collaborator lists: default on first use, members added and deleted, lists deleted', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const g = gw!;
      assert.deepEqual(
        (await g.ok('alice', 'GET', '/collaborator-lists/default/members')).members,
        [],
      );
      const added = await g.ok('alice', 'POST', '/collaborator-lists/default/members', {
        json: { members: ['bob', 'carol', 'bob'] },
      });
      assert.deepEqual(
        added.results.map((r: any) => [r.subject_id, r.success]),
        [
          ['bob', true],
          ['carol', true],
        ],
      );
      const members = (await g.ok('alice', 'GET', '/collaborator-lists/default/members')).members;
      assert.deepEqual(ids(members), ['bob', 'carol']);
      assert.equal(members[0].email, 'bob@example.org');
      // Lists are the caller's own: bob's default list is another, empty one.
      assert.deepEqual(
        (await g.ok('bob', 'GET', '/collaborator-lists/default/members')).members,
        [],
      );

      const removed = await g.ok(
        'alice',
        'POST',
        '/collaborator-lists/default/members/deleter?retain-permissions=true',
        { json: { members: ['carol', 'nobody'] } },
      );
      assert.deepEqual(
        removed.results.map((r: any) => [r.subject_id, r.success]),
        [
          ['carol', true],
          ['nobody', false],
        ],
      );
      assert.deepEqual(
        ids((await g.ok('alice', 'GET', '/collaborator-lists/default/members')).members),
        ['bob'],
      );
      const badFlag = await g.call(
        'alice',
        'POST',
        '/collaborator-lists/default/members/deleter?retain-permissions=perhaps',
        { json: { members: ['bob'] } },
      );
      assert.equal(badFlag.status, 400);
      assert.equal(badFlag.body.error_code, 'ERR_BAD_QUERY_PARAMETER');

      const lab = await g.ok('alice', 'POST', '/collaborator-lists', {
        json: { name: 'lab mates', description: 'People in the lab' },
      });
      assert.equal(lab.name, 'alice:lab mates');
      await g.ok('alice', 'POST', '/collaborator-lists/lab%20mates/members', {
        json: { members: ['carol'] },
      });
      assert.deepEqual(names((await g.ok('alice', 'GET', '/collaborator-lists')).groups), [
        'alice:default',
        'alice:lab mates',
      ]);
      const renamed = await g.ok('alice', 'PATCH', '/collaborator-lists/lab%20mates', {
        json: { name: 'lab', description: 'Renamed' },
      });
      assert.equal(renamed.name, 'alice:lab');
      assert.equal((await g.ok('alice', 'GET', '/collaborator-lists/lab')).description, 'Renamed');
      const missing = await g.call('bob', 'GET', '/collaborator-lists/lab');
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error_code, 'ERR_NOT_FOUND');
      const duplicate = await g.call('alice', 'POST', '/collaborator-lists', {
        json: { name: 'lab' },
      });
      assert.equal(duplicate.body.error_code, 'ERR_EXISTS');

      await g.ok('alice', 'DELETE', '/collaborator-lists/lab?retain-permissions=true');
      assert.equal((await g.call('alice', 'GET', '/collaborator-lists/lab')).status, 404);
      assert.deepEqual(names((await g.ok('alice', 'GET', '/collaborator-lists')).groups), [
        'alice:default',
      ]);
    });

    test('a community: created, admins added (told) and removed, joined and left, renamed, deleted', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const g = gw!;
      const created = await g.ok('alice', 'POST', '/communities', {
        json: { name: 'Plant Lab', description: 'Plants' },
      });
      assert.equal(created.name, 'Plant Lab');
      const path = '/communities/Plant%20Lab';
      assert.equal((await g.ok('bob', 'GET', path)).name, 'Plant Lab');
      assert.deepEqual(names((await g.ok('bob', 'GET', '/communities')).groups), ['Plant Lab']);
      assert.deepEqual(ids((await g.ok('bob', 'GET', `${path}/admins`)).members), ['alice']);

      // Only an admin adds admins; each new one is told.
      assert.equal(
        (await g.call('bob', 'POST', `${path}/admins`, { json: { members: ['bob'] } })).status,
        403,
      );
      const admins = await g.ok('alice', 'POST', `${path}/admins`, { json: { members: ['bob'] } });
      assert.deepEqual(
        admins.results.map((r: any) => [r.subject_id, r.success]),
        [['bob', true]],
      );
      const told = (await eventually(
        async () =>
          (await g.ok('bob', 'GET', '/secured/notifications/messages?sortDir=asc')).messages.find(
            (n: any) => n.payload?.action === 'added_to_community_admins',
          ),
        10_000,
        'bob told he administers Plant Lab',
      )) as any;
      assert.equal(told.type, 'community');
      assert.equal(told.payload.community_name, 'Plant Lab');
      assert.deepEqual(ids((await g.ok('carol', 'GET', `${path}/admins`)).members), [
        'alice',
        'bob',
      ]);

      // Anyone may join (public optin) and leave.
      assert.equal((await g.ok('carol', 'POST', `${path}/join`)).results[0].success, true);
      assert.deepEqual(ids((await g.ok('carol', 'GET', `${path}/members`)).members), [
        'alice',
        'bob',
        'carol',
      ]);
      assert.deepEqual(names((await g.ok('carol', 'GET', '/communities?member=carol')).groups), [
        'Plant Lab',
      ]);
      assert.equal((await g.ok('carol', 'POST', `${path}/leave`)).results[0].success, true);
      assert.deepEqual(names((await g.ok('carol', 'GET', '/communities?member=carol')).groups), []);

      // Bob stops administering it; the last admin cannot go.
      const dropped = await g.ok('alice', 'POST', `${path}/admins/deleter`, {
        json: { members: ['bob', 'carol'] },
      });
      assert.deepEqual(
        dropped.results.map((r: any) => [r.subject_id, r.success]),
        [
          ['bob', true],
          ['carol', false],
        ],
      );
      const last = await g.ok('alice', 'POST', `${path}/admins/deleter`, {
        json: { members: ['alice'] },
      });
      assert.equal(last.results[0].success, false);

      // An app tagged with the community: a rename is refused without retag-apps or force-rename,
      // and with retag-apps the tag follows the new name. (The built-in apps used here are also in
      // the Featured Apps community, which no rename touches.)
      const [app] = (await g.ok('alice', 'GET', '/apps?search=Word%20count')).apps;
      const tag = { attr: communityAvuAttribute, value: 'Plant Lab', unit: '' };
      await g.ok(admin, 'POST', `/admin/apps/${app.id}/metadata`, { json: { avus: [tag] } });
      // Another app already carries the new name as well: re-tagging leaves it one tag.
      const [other] = (await g.ok('alice', 'GET', '/apps?search=Checksum')).apps;
      await g.ok(admin, 'POST', `/admin/apps/${other.id}/metadata`, {
        json: { avus: [tag, { ...tag, value: 'Plant Team' }] },
      });
      const refused = await g.call('alice', 'PATCH', path, { json: { name: 'Plant Team' } });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error_code, 'ERR_ILLEGAL_ARGUMENT');
      const renamed = await g.ok('alice', 'PATCH', `${path}?retag-apps=true`, {
        json: { name: 'Plant Team', description: 'Plants, renamed' },
      });
      assert.equal(renamed.name, 'Plant Team');
      const appTags = (await g.ok(admin, 'GET', `/admin/apps/${app.id}/metadata`)).avus
        .filter((avu: any) => avu.attr === communityAvuAttribute)
        .map((avu: any) => avu.value)
        .filter((value: string) => value !== featuredAppsCommunity);
      assert.deepEqual(appTags, ['Plant Team']);
      const otherTags = (await g.ok(admin, 'GET', `/admin/apps/${other.id}/metadata`)).avus
        .filter((avu: any) => avu.attr === communityAvuAttribute)
        .map((avu: any) => avu.value)
        .filter((value: string) => value !== featuredAppsCommunity);
      assert.deepEqual(otherTags, ['Plant Team']);
      // force-rename leaves the tags where they were.
      await g.ok('alice', 'PATCH', '/communities/Plant%20Team?force-rename=true', {
        json: { name: 'Plant Group' },
      });
      const leftBehind = (await g.ok(admin, 'GET', `/admin/apps/${app.id}/metadata`)).avus
        .filter((avu: any) => avu.attr === communityAvuAttribute)
        .map((avu: any) => avu.value)
        .filter((value: string) => value !== featuredAppsCommunity);
      assert.deepEqual(leftBehind, ['Plant Team']);

      const bobDeletes = await g.call('bob', 'DELETE', '/communities/Plant%20Group');
      assert.equal(bobDeletes.status, 403);
      assert.equal(bobDeletes.body.error_code, 'ERR_FORBIDDEN');
      await g.ok('alice', 'DELETE', '/communities/Plant%20Group');
      assert.equal((await g.call('alice', 'GET', '/communities/Plant%20Group')).status, 404);
    });

    test('the administrator runs any community through /admin/communities; users may not', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const g = gw!;
      await g.ok('bob', 'POST', '/communities', { json: { name: 'Birders' } });
      const notAdmin = await g.call('bob', 'GET', '/admin/communities');
      assert.equal(notAdmin.status, 403);
      assert.ok(names((await g.ok(admin, 'GET', '/admin/communities')).groups).includes('Birders'));
      const added = await g.ok(admin, 'POST', '/admin/communities/Birders/admins', {
        json: { members: ['carol'] },
      });
      assert.equal(added.results[0].success, true);
      assert.deepEqual(
        ids((await g.ok(admin, 'GET', '/admin/communities/Birders/admins')).members),
        ['bob', 'carol'],
      );
      await g.ok(admin, 'PATCH', '/admin/communities/Birders', { json: { description: 'Birds' } });
      assert.equal((await g.ok('carol', 'GET', '/communities/Birders')).description, 'Birds');
      const created = await g.ok(admin, 'POST', '/admin/communities', {
        json: { name: 'Staff only' },
      });
      assert.equal(created.name, 'Staff only');
      await g.ok(admin, 'DELETE', '/admin/communities/Birders');
      assert.equal((await g.call('bob', 'GET', '/communities/Birders')).status, 404);
      const bad = await g.call(admin, 'POST', '/admin/communities', { json: { name: 'a/b' } });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
    });
  });
}

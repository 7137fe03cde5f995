// The embedded groups service's teams (routes.md §22) end to end through the gateway, on each
// engine: three users and an administrator; a team made with public privileges, asked to join
// (the first admin told), the request denied (the requester told) and then granted by adding the
// requester (told too), members added and removed, privileges read and set, join and leave, names
// with `:` and encoded spaces as the web UI sends them, and bad requests answered with codes.
// With details, a team names its creator's subject (`detail.created_by_detail`, whose `name` the
// web UI's Teams list, sonora src/components/teams/Listing.js, shows as "Creator Name").
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../support/fileio.ts';
import { requiredInCi } from '../../support/gateway.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../support/metadata-gateway.ts';

type Notification = {
  type: string;
  subject: string;
  email_template?: string;
  payload: Record<string, any>;
};

/** The user's notifications whose payload action is `action`, once `count` of them have arrived. */
async function notificationsOf(
  gw: MetadataGateway,
  user: string,
  action: string,
  count = 1,
): Promise<Notification[]> {
  return (await eventually(
    async () => {
      const { messages } = await gw.ok(user, 'GET', '/secured/notifications/messages?sortDir=asc');
      const found = (messages as Notification[]).filter((n) => n.payload?.action === action);
      return found.length >= count ? found : undefined;
    },
    10_000,
    `${count} ${action} notification(s) for ${user}`,
  )) as Notification[];
}

const ids = (list: { id: string }[]) => list.map((item) => item.id).sort();

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`groups service: teams (${engine})`, () => {
    let gw: MetadataGateway | undefined;
    before(async () => {
      gw = await startMetadataGateway({ engine });
      // Every user signs in once, so the platform has seen them (members must be known subjects).
      for (const user of ['alice', 'bob', 'carol', admin])
        await gw?.ok(user, 'GET', '/subjects?search=nobody-matches-this');
    });
    after(async () => gw?.close());
    const skip = () => !gw && engine === 'postgres' && !requiredInCi('DATABASE_URL');

    test('a team from creation to deletion: join by request, denial, grant, members, privileges', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const g = gw!;
      const team = '/teams/alice:my%20team';

      const created = await g.ok('alice', 'POST', '/teams', {
        json: { name: 'my team', description: 'Our team', public_privileges: ['view'] },
      });
      assert.equal(created.name, 'alice:my team');
      assert.equal(created.display_extension, 'my team');
      assert.equal(created.description, 'Our team');
      assert.equal(created.detail.created_by, 'alice');

      const fetched = await g.ok('bob', 'GET', team);
      assert.equal(fetched.id, created.id);
      assert.equal(fetched.name, 'alice:my team');
      // An encoded `:` names the same team; `+` is not a space in a path.
      assert.equal((await g.ok('bob', 'GET', '/teams/alice%3Amy%20team')).id, created.id);
      assert.equal((await g.call('bob', 'GET', '/teams/alice:my+team')).status, 404);

      const listed = await g.ok('bob', 'GET', '/teams?search=MY%20T&details=true');
      assert.deepEqual(
        listed.groups.map((group: any) => group.name),
        ['alice:my team'],
      );
      assert.equal(listed.groups[0].detail.created_by, 'alice');
      assert.deepEqual((await g.ok('bob', 'GET', '/teams?creator=bob')).groups, []);
      assert.deepEqual(
        (await g.ok('bob', 'GET', '/teams?member=alice')).groups.map((group: any) => group.name),
        ['alice:my team'],
      );

      const privileges = (await g.ok('bob', 'GET', `${team}/privileges`)).privileges;
      assert.deepEqual(privileges.map((p: any) => [p.subject.id, p.name]).sort(), [
        ['GrouperAll', 'view'],
        ['alice', 'admin'],
      ]);
      assert.equal(
        privileges.find((p: any) => p.subject.id === 'alice').subject.email,
        'alice@example.org',
      );
      // The web UI's Teams list (sonora src/components/teams/Listing.js) shows
      // `detail.created_by_detail.name` as "Creator Name": the creator's subject, named.
      const aliceSubject = privileges.find((p: any) => p.subject.id === 'alice').subject;
      assert.ok(aliceSubject.name);
      assert.deepEqual(listed.groups[0].detail.created_by_detail, aliceSubject);
      assert.deepEqual(created.detail.created_by_detail, aliceSubject);
      assert.deepEqual(fetched.detail.created_by_detail, aliceSubject);
      const mine = await g.ok('alice', 'GET', '/teams?member=alice&details=true');
      assert.equal(mine.groups[0].detail.created_by_detail.name, aliceSubject.name);

      // Joining needs the public optin, which this team does not give.
      const refused = await g.call('bob', 'POST', `${team}/join`);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error_code, 'ERR_FORBIDDEN');

      // Bob asks; alice, the first admin, hears of it.
      await g.ok('bob', 'POST', `${team}/join-request`, { json: { message: 'let me in' } });
      const [request] = await notificationsOf(g, 'alice', 'team_join_request');
      assert.equal(request!.type, 'team');
      assert.equal(request!.payload.team_name, 'alice:my team');
      assert.equal(request!.payload.requester_id, 'bob');
      assert.equal(request!.payload.requester_message, 'let me in');

      // Only an admin denies, and only a request there is.
      const notAdmin = await g.call('carol', 'POST', `${team}/join-request/bob/deny`, {
        json: { message: 'no' },
      });
      assert.equal(notAdmin.status, 403);
      assert.equal(notAdmin.body.error_code, 'ERR_FORBIDDEN');
      await g.ok('alice', 'POST', `${team}/join-request/bob/deny`, {
        json: { message: 'not yet' },
      });
      const [denial] = await notificationsOf(g, 'bob', 'team_join_denial');
      assert.equal(denial!.type, 'team');
      assert.equal(denial!.payload.team_name, 'alice:my team');
      assert.equal(denial!.payload.admin_message, 'not yet');
      const noRequest = await g.call('alice', 'POST', `${team}/join-request/bob/deny`, {
        json: {},
      });
      assert.equal(noRequest.status, 404);
      assert.equal(noRequest.body.error_code, 'ERR_NOT_FOUND');

      // Asked again and granted: alice adds bob and carol; each is told.
      await g.ok('bob', 'POST', `${team}/join-request`, { json: { message: 'please' } });
      await notificationsOf(g, 'alice', 'team_join_request', 2);
      const added = await g.ok('alice', 'POST', `${team}/members`, {
        json: { members: ['bob', 'carol', 'nobody-seen'] },
      });
      assert.deepEqual(
        added.results.map((r: any) => [r.subject_id, r.success]),
        [
          ['bob', true],
          ['carol', true],
          ['nobody-seen', false],
        ],
      );
      for (const member of ['bob', 'carol']) {
        const [note] = await notificationsOf(g, member, 'added_to_team');
        assert.equal(note!.type, 'team');
        assert.equal(note!.payload.team_name, 'alice:my team');
      }
      // The granted request is gone.
      assert.equal(
        (await g.call('alice', 'POST', `${team}/join-request/bob/deny`, { json: {} })).status,
        404,
      );
      const members = (await g.ok('carol', 'GET', `${team}/members`)).members;
      assert.deepEqual(ids(members), ['alice', 'bob', 'carol']);
      assert.equal(members.find((m: any) => m.id === 'bob').first_name, 'Bob');

      // Privileges: alice makes bob an updater and opens the team to opt-in.
      const updated = await g.ok('alice', 'POST', `${team}/privileges`, {
        json: {
          updates: [
            { subject_id: 'bob', privileges: ['read', 'update'] },
            { subject_id: 'GrouperAll', privileges: ['view', 'optin'] },
          ],
        },
      });
      assert.deepEqual(updated.privileges.map((p: any) => `${p.subject.id}:${p.name}`).sort(), [
        'GrouperAll:optin',
        'GrouperAll:view',
        'alice:admin',
        'bob:read',
        'bob:update',
      ]);
      const carolSets = await g.call('carol', 'POST', `${team}/privileges`, {
        json: { updates: [{ subject_id: 'carol', privileges: ['admin'] }] },
      });
      assert.equal(carolSets.status, 403);
      const unknownSubject = await g.call('alice', 'POST', `${team}/privileges`, {
        json: { updates: [{ subject_id: 'nobody-seen', privileges: ['read'] }] },
      });
      assert.equal(unknownSubject.status, 404);
      assert.equal(unknownSubject.body.error_code, 'ERR_NOT_FOUND');
      const badPrivilege = await g.call('alice', 'POST', `${team}/privileges`, {
        json: { updates: [{ subject_id: 'bob', privileges: ['owner'] }] },
      });
      assert.equal(badPrivilege.status, 400);
      assert.equal(badPrivilege.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');

      // Bob (update) removes carol; removing her twice fails for that item alone.
      const removed = await g.ok('bob', 'POST', `${team}/members/deleter`, {
        json: { members: ['carol'] },
      });
      assert.deepEqual(removed.results, [{ success: true, subject_id: 'carol' }]);
      const again = await g.ok('bob', 'POST', `${team}/members/deleter`, {
        json: { members: ['carol'] },
      });
      assert.equal(again.results[0].success, false);

      // Carol joins now that the team is open, and leaves again.
      assert.equal((await g.ok('carol', 'POST', `${team}/join`)).results[0].success, true);
      assert.ok(ids((await g.ok('alice', 'GET', `${team}/members`)).members).includes('carol'));
      assert.equal((await g.ok('carol', 'POST', `${team}/leave`)).results[0].success, true);
      assert.deepEqual(ids((await g.ok('alice', 'GET', `${team}/members`)).members), [
        'alice',
        'bob',
      ]);

      // The only admin cannot leave, nor be removed, which would leave the team without one.
      const aliceLeaves = await g.ok('alice', 'POST', `${team}/leave`);
      assert.deepEqual(aliceLeaves.results, [
        { success: false, subject_id: 'alice', reason: 'the last administrator' },
      ]);
      const aliceRemoved = await g.ok('bob', 'POST', `${team}/members/deleter`, {
        json: { members: ['alice'] },
      });
      assert.equal(aliceRemoved.results[0].success, false);

      // Renamed by its admin (the owner part stays), then deleted; nobody else may.
      const renamed = await g.ok('alice', 'PATCH', team, {
        json: { name: 'our team', description: 'Renamed' },
      });
      assert.equal(renamed.name, 'alice:our team');
      assert.equal(renamed.description, 'Renamed');
      assert.equal((await g.call('alice', 'GET', team)).status, 404);
      const bobDeletes = await g.call('bob', 'DELETE', '/teams/alice:our%20team');
      assert.equal(bobDeletes.status, 403);
      assert.equal(bobDeletes.body.error_code, 'ERR_FORBIDDEN');
      await g.ok('alice', 'DELETE', '/teams/alice:our%20team');
      const gone = await g.call('alice', 'GET', '/teams/alice:our%20team');
      assert.equal(gone.status, 404);
      assert.equal(gone.body.error_code, 'ERR_NOT_FOUND');
    });

    test('a private team is invisible to others; bad bodies and duplicates answer codes', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const g = gw!;
      await g.ok('carol', 'POST', '/teams', { json: { name: 'secret' } });
      assert.equal((await g.call('bob', 'GET', '/teams/carol:secret')).status, 404);
      assert.deepEqual((await g.ok('bob', 'GET', '/teams?creator=carol')).groups, []);
      assert.equal((await g.ok('carol', 'GET', '/teams?creator=carol')).groups.length, 1);

      const duplicate = await g.call('carol', 'POST', '/teams', { json: { name: 'secret' } });
      assert.equal(duplicate.status, 400);
      assert.equal(duplicate.body.error_code, 'ERR_EXISTS');
      for (const json of [
        {},
        { name: '' },
        { name: 'a:b' },
        { name: 'x', public_privileges: ['all'] },
      ]) {
        const bad = await g.call('carol', 'POST', '/teams', { json });
        assert.equal(bad.status, 400, JSON.stringify(json));
        assert.equal(bad.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      }
      const notJson = await g.call('carol', 'POST', '/teams', { raw: '[1, 2]' });
      assert.equal(notJson.status, 400);
      assert.equal(notJson.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      const noMembers = await g.call('carol', 'POST', '/teams/carol:secret/members', {
        json: { members: 'bob' },
      });
      assert.equal(noMembers.status, 400);
      assert.equal(noMembers.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      const badFlag = await g.call('carol', 'GET', '/teams?details=maybe');
      assert.equal(badFlag.status, 400);
      assert.equal(badFlag.body.error_code, 'ERR_BAD_QUERY_PARAMETER');
      assert.equal((await g.call(null, 'GET', '/teams')).status, 401);
    });
  });
}

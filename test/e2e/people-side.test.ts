// Issue 15's people side end to end, through the gateway over real HTTP on each engine, with alice,
// bob, carol and the administrator: a team joined by request (denied, then granted), an app shared
// with the team (seen in "Shared with me", launched by a member, refused to an outsider, following
// membership at once, passed on by nobody but its owner, unshared), an analysis shared with a
// user, a collaborator list deleted with and without retain-permissions, a community renamed with
// its apps re-tagged, and Featured Apps for anonymous and signed-in callers. Every notification is
// awaited, never slept for (docs/api/sharing.md, groups.md).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../src/backends/apps/catalog/built-in.ts';
import { communityAvuAttribute } from '../../src/common/app-community-avus.ts';
import { eventually } from '../support/fileio.ts';
import { admin, startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';
import { engines, skipWithout } from '../support/postgres.ts';

type Notification = { type: string; payload: Record<string, any> };

const wordCount = builtInApps[1]!;
const q = encodeURIComponent;
const analysisFilter = (filter: { field: string; value: string }[]) =>
  `/analyses?filter=${q(JSON.stringify(filter))}`;

for (const engine of engines) {
  describe(`the people side of the platform (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: MetadataGateway;
    before(async () => {
      gw = (await startMetadataGateway({ engine }))!;
      // Every user signs in once, so the platform has seen them (subjects must be known).
      for (const user of ['alice', 'bob', 'carol', admin])
        await gw.ok(user, 'GET', '/subjects?search=nobody-matches-this');
    });
    after(async () => gw?.close());

    /** The user's notifications that `match`, once at least `count` of them have arrived. */
    const notified = async (
      user: string,
      match: (note: Notification) => boolean,
      count = 1,
      what = 'notification',
    ): Promise<Notification[]> =>
      (await eventually(
        async () => {
          const { messages } = await gw.ok(
            user,
            'GET',
            '/secured/notifications/messages?sortDir=asc&limit=200',
          );
          const found = (messages as Notification[]).filter(match);
          return found.length >= count ? found : undefined;
        },
        10_000,
        `${count} ${what} for ${user}`,
      )) as Notification[];
    const action = (type: string, name: string) => (note: Notification) =>
      note.type === type && note.payload?.action === name;
    const teamNote = (name: string) => (note: Notification) => note.payload?.action === name;

    /** A private app of `user` on the built-in word-count tool, with one required file input. */
    const makeApp = async (user: string, name: string) => {
      const made = await gw.ok(user, 'POST', '/apps/de', {
        json: {
          name,
          description: `${name}, made in the people-side scenario`,
          tools: [{ id: wordCount.tool.id }],
          groups: [
            { label: 'Inputs', parameters: [{ type: 'FileInput', label: 'Text', required: true }] },
          ],
        },
      });
      return { id: made.id as string, input: made.groups[0].parameters[0].id as string };
    };
    const launch = (user: string, app: { id: string; input: string }, file: string) =>
      gw.call(user, 'POST', '/analyses', {
        json: {
          system_id: 'de',
          app_id: app.id,
          name: `${user} runs ${app.id.slice(0, 8)}`,
          output_dir: gw.home(user),
          config: { [app.input]: file },
        },
      });
    const sharedWithMe = async (user: string) => {
      const { categories } = await gw.ok(user, 'GET', '/apps/categories');
      const category = categories.find((entry: any) => entry.name === 'Shared with me');
      assert.ok(category, 'every user has a Shared with me category');
      return (await gw.ok(user, 'GET', `/apps/categories/de/${category.id}`)).apps as any[];
    };
    const shareApp = (sharer: string, subject: object, appId: string, permission = 'read') =>
      gw.ok(sharer, 'POST', '/apps/sharing', {
        json: { sharing: [{ subject, apps: [{ system_id: 'de', app_id: appId, permission }] }] },
      });
    const appGrants = async (user: string, appId: string) => {
      const listed = await gw.ok(user, 'POST', '/apps/permission-lister', {
        json: { apps: [{ system_id: 'de', app_id: appId }] },
      });
      assert.equal(listed.apps.length, 1);
      assert.equal(listed.apps[0].app_id, appId);
      return listed.apps[0].permissions as { subject: any; permission: string }[];
    };
    const members = async (path: string) =>
      ((await gw.ok('alice', 'GET', `${path}/members`)).members as { id: string }[])
        .map((member) => member.id)
        .sort();

    // Shared through the steps.
    const team = '/teams/alice:lab%20team';
    let teamId = '';
    let teamApp: { id: string; input: string };
    let bobsFile = '';

    test('1. a team: join requested, denied, asked again and granted; a member added and removed', async () => {
      // Seen by everyone (public `view`), so others can ask to join; joining needs alice.
      const created = await gw.ok('alice', 'POST', '/teams', {
        json: { name: 'lab team', public_privileges: ['view'] },
      });
      assert.equal(created.name, 'alice:lab team');
      teamId = created.id;

      await gw.ok('bob', 'POST', `${team}/join-request`, { json: { message: 'may I?' } });
      const [request] = await notified('alice', teamNote('team_join_request'), 1, 'join request');
      assert.equal(request!.type, 'team');
      assert.equal(request!.payload.team_name, 'alice:lab team');
      assert.equal(request!.payload.requester_id, 'bob');
      assert.equal(request!.payload.requester_message, 'may I?');

      await gw.ok('alice', 'POST', `${team}/join-request/bob/deny`, { json: { message: 'no' } });
      const [denial] = await notified('bob', teamNote('team_join_denial'), 1, 'denial');
      assert.equal(denial!.payload.team_name, 'alice:lab team');
      assert.equal(denial!.payload.admin_message, 'no');
      assert.deepEqual(await members(team), ['alice']);

      await gw.ok('bob', 'POST', `${team}/join-request`, { json: { message: 'please' } });
      await notified('alice', teamNote('team_join_request'), 2, 'join requests');
      const granted = await gw.ok('alice', 'POST', `${team}/members`, {
        json: { members: ['bob'] },
      });
      assert.deepEqual(
        granted.results.map((r: any) => [r.subject_id, r.success]),
        [['bob', true]],
      );
      const [added] = await notified('bob', teamNote('added_to_team'), 1, 'added to team');
      assert.equal(added!.payload.team_name, 'alice:lab team');
      assert.deepEqual(await members(team), ['alice', 'bob']);

      await gw.ok('alice', 'POST', `${team}/members`, { json: { members: ['carol'] } });
      const [carolAdded] = await notified('carol', teamNote('added_to_team'), 1, 'added');
      assert.equal(carolAdded!.payload.team_name, 'alice:lab team');
      assert.deepEqual(await members(team), ['alice', 'bob', 'carol']);
      const removed = await gw.ok('alice', 'POST', `${team}/members/deleter`, {
        json: { members: ['carol'] },
      });
      assert.deepEqual(
        removed.results.map((r: any) => [r.subject_id, r.success]),
        [['carol', true]],
      );
      assert.deepEqual(await members(team), ['alice', 'bob']);
    });

    test('2. an app shared with the team: members see and launch it, others do not; unshared', async () => {
      teamApp = await makeApp('alice', 'lab counter');
      const subject = { id: teamId, source_id: 'g:gsa' };
      const shared = await shareApp('alice', subject, teamApp.id);
      const [outcome] = shared.sharing[0].apps;
      assert.equal(outcome.app_id, teamApp.id);
      assert.equal(outcome.app_name, 'lab counter');
      assert.equal(outcome.permission, 'read');
      assert.equal(outcome.success, true, JSON.stringify(outcome));

      const [told] = await notified('bob', action('apps', 'share'), 1, 'app share');
      assert.equal(told!.payload.sharer, 'alice');
      assert.deepEqual(
        told!.payload.apps.map((app: any) => app.app_id),
        [teamApp.id],
      );
      // The sharer is told as well, once for the request.
      await notified('alice', action('apps', 'share'), 1, 'app share (sharer)');

      const seen = (await sharedWithMe('bob')).find((app) => app.id === teamApp.id);
      assert.ok(seen, "the team's app is in bob's Shared with me");
      assert.equal(seen.permission, 'read');
      assert.equal((await gw.call('bob', 'GET', `/apps/de/${teamApp.id}`)).status, 200);

      bobsFile = `${gw.home('bob')}/words.txt`;
      await gw.upload('bob', gw.home('bob'), 'words.txt', 'one two three\n');
      const launched = await launch('bob', teamApp, bobsFile);
      assert.equal(launched.status, 200, launched.text);
      assert.equal(launched.body.status, 'Submitted');

      // Carol left the team: nothing of it reaches her.
      assert.equal((await gw.call('carol', 'GET', `/apps/de/${teamApp.id}`)).status, 404);
      await gw.upload('carol', gw.home('carol'), 'words.txt', 'four five\n');
      const refused = await launch('carol', teamApp, `${gw.home('carol')}/words.txt`);
      assert.ok(refused.status >= 400 && refused.status < 500, refused.text);
      assert.equal(typeof refused.body.error_code, 'string');
      assert.ok(!(await sharedWithMe('carol')).some((app) => app.id === teamApp.id));

      // Carol, no longer in the team, was not told of the share.
      const { messages: carols } = await gw.ok('carol', 'GET', '/secured/notifications/messages');
      assert.ok(!carols.some(action('apps', 'share')), 'carol is not told of the team share');

      // Bob reads the app but does not own it: he cannot pass it on; each item answers alone.
      const passedOn = await shareApp('bob', { id: 'carol', source_id: 'ldap' }, teamApp.id);
      assert.equal(passedOn.sharing[0].apps[0].success, false);
      assert.equal(passedOn.sharing[0].apps[0].error.error_code, 'ERR_NOT_OWNER');
      const mixed = await gw.ok('alice', 'POST', '/apps/sharing', {
        json: {
          sharing: [
            {
              subject: { id: 'nobody-seen', source_id: 'ldap' },
              apps: [{ system_id: 'de', app_id: teamApp.id, permission: 'read' }],
            },
            {
              subject: { id: 'alice', source_id: 'ldap' },
              apps: [{ system_id: 'de', app_id: teamApp.id, permission: 'read' }],
            },
            {
              subject: { id: 'carol', source_id: 'ldap' },
              apps: [{ system_id: 'de', app_id: teamApp.id, permission: 'admin' }],
            },
          ],
        },
      });
      assert.deepEqual(
        mixed.sharing.map((entry: any) => entry.apps[0].error?.error_code),
        ['ERR_NOT_FOUND', 'ERR_ILLEGAL_ARGUMENT', 'ERR_BAD_OR_MISSING_FIELD'],
      );
      // A grantee lists only a direct grant of their own, and bob's comes through the team.
      assert.deepEqual(await appGrants('bob', teamApp.id), []);
      const carolLists = await gw.call('carol', 'POST', '/apps/permission-lister', {
        json: { apps: [{ system_id: 'de', app_id: teamApp.id }] },
      });
      assert.equal(carolLists.status, 404);
      assert.equal(carolLists.body.error_code, 'ERR_NOT_FOUND');

      // Membership decides at once: carol added back reads it, removed again does not.
      await gw.ok('alice', 'POST', `${team}/members`, { json: { members: ['carol'] } });
      assert.equal((await gw.call('carol', 'GET', `/apps/de/${teamApp.id}`)).status, 200);
      await gw.ok('alice', 'POST', `${team}/members/deleter`, { json: { members: ['carol'] } });
      assert.equal((await gw.call('carol', 'GET', `/apps/de/${teamApp.id}`)).status, 404);

      const grants = await appGrants('alice', teamApp.id);
      assert.deepEqual(
        grants.map((grant) => [grant.subject.id, grant.subject.source_id, grant.permission]),
        [[teamId, 'g:gsa', 'read']],
      );
      assert.equal(grants[0]!.subject.name, 'alice:lab team');

      const unshared = await gw.ok('alice', 'POST', '/apps/unsharing', {
        json: { unsharing: [{ subject, apps: [{ system_id: 'de', app_id: teamApp.id }] }] },
      });
      assert.equal(unshared.unsharing[0].apps[0].success, true, JSON.stringify(unshared));
      const [revoked] = await notified('bob', action('apps', 'unshare'), 1, 'app unshare');
      assert.deepEqual(
        revoked!.payload.apps.map((app: any) => app.app_id),
        [teamApp.id],
      );
      const afterUnshare = await launch('bob', teamApp, bobsFile);
      assert.ok(afterUnshare.status >= 400 && afterUnshare.status < 500, afterUnshare.text);
      assert.equal(typeof afterUnshare.body.error_code, 'string');
      assert.ok(!(await sharedWithMe('bob')).some((app) => app.id === teamApp.id));
      assert.deepEqual(await appGrants('alice', teamApp.id), []);
    });

    test('3. an analysis shared with carol: listed as theirs and all, not mine; told; listed', async () => {
      await gw.upload('alice', gw.home('alice'), 'words.txt', 'six seven\n');
      const run = await gw.call('alice', 'POST', '/analyses', {
        json: {
          system_id: 'de',
          app_id: wordCount.id,
          name: 'alice counts',
          output_dir: gw.home('alice'),
          config: {
            [`${wordCount.definition.steps[0]!.id}_${wordCount.definition.groups[0]!.parameters[0]!.id}`]: `${gw.home('alice')}/words.txt`,
          },
        },
      });
      assert.equal(run.status, 200, run.text);
      const analysisId = run.body.id as string;

      const subject = { id: 'carol', source_id: 'ldap' };
      const shared = await gw.ok('alice', 'POST', '/analyses/sharing', {
        json: {
          sharing: [{ subject, analyses: [{ analysis_id: analysisId, permission: 'read' }] }],
        },
      });
      const [outcome] = shared.sharing[0].analyses;
      assert.equal(outcome.analysis_id, analysisId);
      assert.equal(outcome.analysis_name, 'alice counts');
      assert.equal(outcome.success, true, JSON.stringify(outcome));

      const listedIds = async (ownership: string) =>
        (
          await gw.ok('carol', 'GET', analysisFilter([{ field: 'ownership', value: ownership }]))
        ).analyses.map((analysis: any) => analysis.id);
      assert.ok((await listedIds('theirs')).includes(analysisId), 'carol lists it as theirs');
      assert.ok((await listedIds('all')).includes(analysisId), 'carol lists it among all');
      assert.ok(!(await listedIds('mine')).includes(analysisId), 'it is not carol’s own');
      const entry = (
        await gw.ok('carol', 'GET', analysisFilter([{ field: 'ownership', value: 'all' }]))
      ).analyses.find((analysis: any) => analysis.id === analysisId);
      assert.equal(entry.can_share, false);

      const [told] = await notified('carol', action('analysis', 'share'), 1, 'analysis share');
      assert.equal(told!.payload.sharer, 'alice');
      assert.deepEqual(
        told!.payload.analyses.map((analysis: any) => analysis.analysis_id),
        [analysisId],
      );

      const listed = await gw.ok('alice', 'POST', '/analyses/permission-lister', {
        json: { analyses: [analysisId] },
      });
      assert.equal(listed.analyses[0].id, analysisId);
      assert.deepEqual(
        listed.analyses[0].permissions.map((grant: any) => [
          grant.subject.id,
          grant.subject.source_id,
          grant.permission,
        ]),
        [['carol', 'platform', 'read']],
      );
      // Read lets carol look into it, not rename or delete it.
      assert.equal(
        (await gw.call('carol', 'GET', `/analyses/${analysisId}/parameters`)).status,
        200,
      );
      const renamed = await gw.call('carol', 'PATCH', `/analyses/${analysisId}`, {
        json: { name: 'carol was here' },
      });
      assert.ok(renamed.status >= 400 && renamed.status < 500, renamed.text);
    });

    test('4. a collaborator list: its app stays with its members when deleted retaining permissions', async () => {
      const friends = await gw.ok('alice', 'POST', '/collaborator-lists', {
        json: { name: 'friends' },
      });
      await gw.ok('alice', 'POST', '/collaborator-lists/friends/members', {
        json: { members: ['bob', 'carol'] },
      });
      const app = await makeApp('alice', 'friends counter');
      const listSubject = { id: friends.id, source_id: 'g:gsa' };
      const shared = await shareApp('alice', listSubject, app.id);
      assert.equal(shared.sharing[0].apps[0].success, true, JSON.stringify(shared));
      for (const user of ['bob', 'carol']) {
        assert.equal((await gw.call(user, 'GET', `/apps/de/${app.id}`)).status, 200, user);
        assert.ok(
          (await sharedWithMe(user)).some((entry) => entry.id === app.id),
          user,
        );
      }
      assert.deepEqual(
        (await appGrants('alice', app.id)).map((grant) => [
          grant.subject.id,
          grant.subject.name,
          grant.permission,
        ]),
        [[friends.id, 'alice:friends', 'read']],
      );

      await gw.ok('alice', 'DELETE', '/collaborator-lists/friends?retain-permissions=true');
      assert.equal((await gw.call('alice', 'GET', '/collaborator-lists/friends')).status, 404);
      assert.equal((await gw.call('bob', 'GET', `/apps/de/${app.id}`)).status, 200);
      assert.ok((await sharedWithMe('bob')).some((entry) => entry.id === app.id));
      const grants = await appGrants('alice', app.id);
      assert.deepEqual(
        grants.map((grant) => [grant.subject.id, grant.subject.source_id, grant.permission]).sort(),
        [
          ['bob', 'platform', 'read'],
          ['carol', 'platform', 'read'],
        ],
      );

      // Another list, deleted without retain-permissions: its members lose the app.
      const others = await gw.ok('alice', 'POST', '/collaborator-lists', {
        json: { name: 'others' },
      });
      await gw.ok('alice', 'POST', '/collaborator-lists/others/members', {
        json: { members: ['bob'] },
      });
      const lost = await makeApp('alice', 'others counter');
      await shareApp('alice', { id: others.id, source_id: 'g:gsa' }, lost.id);
      assert.equal((await gw.call('bob', 'GET', `/apps/de/${lost.id}`)).status, 200);
      await gw.ok('alice', 'DELETE', '/collaborator-lists/others');
      assert.equal((await gw.call('bob', 'GET', `/apps/de/${lost.id}`)).status, 404);
      assert.ok(!(await sharedWithMe('bob')).some((entry) => entry.id === lost.id));
      assert.deepEqual(await appGrants('alice', lost.id), []);
      const refused = await launch('bob', lost, bobsFile);
      assert.ok(refused.status >= 400 && refused.status < 500, refused.text);
    });

    test('5. a community renamed with retag-apps keeps its apps', async () => {
      await gw.ok('alice', 'POST', '/communities', { json: { name: 'Genomics' } });
      const app = await makeApp('alice', 'genome counter');
      const tagged = await gw.ok('alice', 'POST', `/apps/${app.id}/communities`, {
        json: { avus: [{ attr: communityAvuAttribute, value: 'Genomics', unit: '' }] },
      });
      assert.deepEqual(
        tagged.avus.map((avu: any) => avu.value),
        ['Genomics'],
      );
      const listed = async (community: string) =>
        (await gw.ok('alice', 'GET', `/apps/communities/${q(community)}/apps`)).apps.map(
          (entry: any) => entry.id,
        );
      assert.deepEqual(await listed('Genomics'), [app.id]);

      const renamed = await gw.ok('alice', 'PATCH', '/communities/Genomics?retag-apps=true', {
        json: { name: 'Genome Lab' },
      });
      assert.equal(renamed.name, 'Genome Lab');
      assert.equal((await gw.call('alice', 'GET', '/communities/Genomics')).status, 404);
      assert.deepEqual(await listed('Genome Lab'), [app.id]);
      assert.deepEqual(await listed('Genomics'), []);
    });

    test('6. Featured Apps answer anonymous and signed-in callers with the featured built-in apps', async () => {
      const builtIns = builtInApps.map((app) => app.id).sort();
      for (const caller of [null, 'bob']) {
        const answer = await gw.call(caller, 'GET', '/apps/categories/featured');
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.body.name, 'Featured Apps');
        assert.deepEqual(answer.body.apps.map((app: any) => app.id).sort(), builtIns);
      }
    });
  });
}

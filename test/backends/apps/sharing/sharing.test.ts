// Sharing apps, analyses and tools (docs/api/sharing.md) through the gateway, on each engine: the
// answer shapes the web UI reads, per-item failures beside successes, the levels a grant gives
// (an app listed under "Shared with me" and launched; an analysis listed, renamed with `write`,
// never deleted by a grantee), grants through a team following its membership, a collaborator
// list's grants kept or dropped when it goes, the permission lister for owners and others,
// administrators sharing any app, notifications to sharer and grantees, and bad bodies refused.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../../src/backends/apps/catalog/built-in.ts';
import { eventually } from '../../../support/fileio.ts';
import { engines, skipWithout } from '../../../support/postgres.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../../support/metadata-gateway.ts';

const wordCountTool = builtInApps[1]!.tool.id;
const user = (id: string) => ({ id, source_id: 'ldap' });
const group = (id: string) => ({ id, source_id: 'g:gsa' });
const sharedWithMe = 'eeeeeeee-eeee-eeee-eeee-eeeeeeeeeeee';

for (const engine of engines) {
  describe(`sharing apps, analyses and tools (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: MetadataGateway;
    before(async () => {
      gw = (await startMetadataGateway({ engine }))!;
      for (const name of ['alice', 'bob', 'carol', 'dave', admin])
        await gw.ok(name, 'GET', '/subjects?search=nobody-matches-this');
    });
    after(async () => gw?.close());

    const makeApp = async (owner: string, name: string) =>
      gw.ok(owner, 'POST', '/apps/de', {
        json: {
          name,
          description: `${name}, made in a test`,
          tools: [{ id: wordCountTool }],
          groups: [
            { label: 'Inputs', parameters: [{ type: 'FileInput', label: 'Text', required: true }] },
          ],
        },
      });
    const launch = async (caller: string, appId: string) => {
      const form = await gw.call(caller, 'GET', `/apps/de/${appId}`);
      if (form.status !== 200) return form;
      const input = `words-${randomUUID()}.txt`;
      await gw.upload(caller, gw.home(caller), input, 'one two two\n');
      return gw.call(caller, 'POST', '/analyses', {
        json: {
          system_id: 'de',
          app_id: appId,
          name: `${caller} run`,
          output_dir: gw.home(caller),
          config: { [form.body.groups[0].parameters[0].id]: `${gw.home(caller)}/${input}` },
        },
      });
    };
    const sharedAppIds = async (caller: string) =>
      (await gw.ok(caller, 'GET', `/apps/categories/de/${sharedWithMe}`)).apps.map(
        (app: { id: string }) => app.id,
      );
    const notifications = (caller: string, type: string, action: string, count = 1) =>
      eventually(
        async () => {
          const { messages } = await gw.ok(
            caller,
            'GET',
            '/secured/notifications/messages?sortDir=asc',
          );
          const found = (messages as any[]).filter(
            (n) => n.type === type && n.payload?.action === action,
          );
          return found.length >= count ? found : undefined;
        },
        10_000,
        `${count} ${type} ${action} notification(s) for ${caller}`,
      ) as Promise<any[]>;
    const shareApp = (caller: string, subject: object, appId: string, permission = 'read') =>
      gw.ok(caller, 'POST', '/apps/sharing', {
        json: {
          sharing: [{ subject, apps: [{ system_id: 'de', app_id: appId, permission }] }],
        },
      });
    const unshareApp = (caller: string, subject: object, appId: string) =>
      gw.ok(caller, 'POST', '/apps/unsharing', {
        json: { unsharing: [{ subject, apps: [{ system_id: 'de', app_id: appId }] }] },
      });

    test('an app shared with a user: Shared with me, its level, launch; unshared and refused', async () => {
      const made = await makeApp('alice', 'alice shares this');
      assert.equal((await gw.call('bob', 'GET', `/apps/de/${made.id}`)).status, 404);

      const shared = await shareApp('alice', user('bob'), made.id);
      assert.deepEqual(shared, {
        sharing: [
          {
            subject: user('bob'),
            apps: [
              {
                system_id: 'de',
                app_id: made.id,
                app_name: 'alice shares this',
                permission: 'read',
                success: true,
              },
            ],
          },
        ],
      });
      assert.deepEqual(await sharedAppIds('bob'), [made.id]);
      assert.deepEqual(await sharedAppIds('alice'), []);
      const listed = await gw.ok(
        'bob',
        'GET',
        `/apps?search=${encodeURIComponent('alice shares')}`,
      );
      assert.equal(listed.apps[0].permission, 'read');
      const launched = await launch('bob', made.id);
      assert.equal(launched.status, 200, launched.text);

      const told = await notifications('bob', 'apps', 'share');
      assert.equal(told[0].payload.sharer, 'alice');
      assert.deepEqual(told[0].payload.apps, [
        { system_id: 'de', app_id: made.id, app_name: 'alice shares this', permission: 'read' },
      ]);
      assert.match(told[0].subject, /alice shared app alice shares this with you/);
      await notifications('alice', 'apps', 'share');

      // A higher level replaces a lower one; the owner sees every grant.
      await shareApp('alice', user('bob'), made.id, 'write');
      const permissions = await gw.ok('alice', 'POST', '/apps/permission-lister', {
        json: { apps: [{ system_id: 'de', app_id: made.id }] },
      });
      assert.deepEqual(permissions, {
        apps: [
          {
            system_id: 'de',
            app_id: made.id,
            name: 'alice shares this',
            permissions: [{ subject: { id: 'bob', source_id: 'platform' }, permission: 'write' }],
          },
        ],
      });
      const full = await gw.ok('alice', 'POST', '/apps/permission-lister?full-listing=true', {
        json: { apps: [{ system_id: 'de', app_id: made.id }] },
      });
      assert.deepEqual(
        full.apps[0].permissions.map((p: any) => [p.subject.id, p.permission]),
        [
          ['alice', 'own'],
          ['bob', 'write'],
        ],
      );
      assert.equal(
        (await gw.ok('bob', 'GET', `/apps/categories/de/${sharedWithMe}`)).apps[0].permission,
        'write',
      );

      const unshared = await unshareApp('alice', user('bob'), made.id);
      assert.deepEqual(unshared.unsharing[0].apps, [
        { system_id: 'de', app_id: made.id, app_name: 'alice shares this', success: true },
      ]);
      await notifications('bob', 'apps', 'unshare');
      assert.deepEqual(await sharedAppIds('bob'), []);
      const refused = await launch('bob', made.id);
      assert.equal(refused.status, 404);
      assert.equal(refused.body.error_code, 'ERR_NOT_FOUND');
    });

    test('per-item failures: not found, not the owner, unknown subject, bad level, oneself', async () => {
      const mine = await makeApp('alice', 'alice keeps this');
      const bobs = await makeApp('bob', 'bob owns this');
      await shareApp('bob', user('alice'), bobs.id, 'write');
      const answer = await gw.ok('alice', 'POST', '/apps/sharing', {
        json: {
          sharing: [
            {
              subject: user('carol'),
              apps: [
                { system_id: 'de', app_id: mine.id, permission: 'read' },
                { system_id: 'de', app_id: bobs.id, permission: 'read' },
                {
                  system_id: 'de',
                  app_id: '00000000-0000-0000-0000-00000000dead',
                  permission: 'read',
                },
                { system_id: 'de', app_id: mine.id, permission: 'admin' },
              ],
            },
            {
              subject: user('nobody-seen'),
              apps: [{ system_id: 'de', app_id: mine.id, permission: 'read' }],
            },
            {
              subject: user('alice'),
              apps: [{ system_id: 'de', app_id: mine.id, permission: 'read' }],
            },
          ],
        },
      });
      const outcomes = answer.sharing.flatMap((entry: any) =>
        entry.apps.map((item: any) => [item.success, item.error?.error_code]),
      );
      assert.deepEqual(outcomes, [
        [true, undefined],
        [false, 'ERR_NOT_OWNER'],
        [false, 'ERR_NOT_FOUND'],
        [false, 'ERR_BAD_OR_MISSING_FIELD'],
        [false, 'ERR_NOT_FOUND'],
        [false, 'ERR_ILLEGAL_ARGUMENT'],
      ]);
      assert.deepEqual(await sharedAppIds('carol'), [mine.id]);

      // Whole-request errors: a body of another shape, anonymous callers, a lister on what one cannot see.
      const bad = await gw.call('alice', 'POST', '/apps/sharing', {
        json: { sharing: [{ apps: [] }] },
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      const tooMany = await gw.call('alice', 'POST', '/apps/unsharing', {
        json: {
          unsharing: [
            {
              subject: user('carol'),
              apps: Array.from({ length: 1001 }, () => ({ system_id: 'de', app_id: mine.id })),
            },
          ],
        },
      });
      assert.equal(tooMany.status, 400);
      assert.equal(tooMany.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      const hidden = await gw.call('dave', 'POST', '/apps/permission-lister', {
        json: { apps: [{ system_id: 'de', app_id: mine.id }] },
      });
      assert.equal(hidden.status, 404);
      assert.equal(hidden.body.error_code, 'ERR_NOT_FOUND');
      const asCarol = await gw.call('carol', 'POST', '/apps/permission-lister', {
        json: { apps: [{ system_id: 'de', app_id: bobs.id }] },
      });
      assert.equal(asCarol.status, 404, 'carol cannot see bob’s app');
      // Someone it is shared with sees only their own grant.
      const asAlice = await gw.ok('alice', 'POST', '/apps/permission-lister', {
        json: { apps: [{ system_id: 'de', app_id: bobs.id }] },
      });
      assert.deepEqual(asAlice.apps[0].permissions, [
        { subject: { id: 'alice', source_id: 'platform' }, permission: 'write' },
      ]);
    });

    test('a grant to a team follows its membership; deleting the team takes it away', async () => {
      const team = await gw.ok('alice', 'POST', '/teams', { json: { name: 'sharing team' } });
      const made = await makeApp('alice', 'for the team');
      await gw.ok('alice', 'POST', '/teams/alice:sharing%20team/members', {
        json: { members: ['bob'] },
      });
      // The sharing dialog finds the team among subjects, as a group.
      const found = await gw.ok('alice', 'GET', '/subjects?search=sharing%20t');
      assert.deepEqual(
        found.subjects.map((subject: any) => [subject.id, subject.source_id, subject.name]),
        [[team.id, 'g:gsa', 'alice:sharing team']],
      );
      const shared = await shareApp('alice', group(team.id), made.id);
      assert.equal(shared.sharing[0].apps[0].success, true);
      assert.deepEqual(await sharedAppIds('bob'), [made.id]);
      assert.equal((await launch('bob', made.id)).status, 200);
      assert.ok(!(await sharedAppIds('carol')).includes(made.id));
      await notifications('bob', 'apps', 'share');

      // By full name too; listed as the group.
      const byName = await shareApp('alice', group('alice:sharing team'), made.id);
      assert.equal(byName.sharing[0].apps[0].success, true);
      const listed = await gw.ok('alice', 'POST', '/apps/permission-lister', {
        json: { apps: [{ system_id: 'de', app_id: made.id }] },
      });
      assert.deepEqual(listed.apps[0].permissions, [
        {
          subject: { id: team.id, source_id: 'g:gsa', name: 'alice:sharing team' },
          permission: 'read',
        },
      ]);

      await gw.ok('alice', 'POST', '/teams/alice:sharing%20team/members', {
        json: { members: ['carol'] },
      });
      assert.ok((await sharedAppIds('carol')).includes(made.id));
      await gw.ok('alice', 'POST', '/teams/alice:sharing%20team/members/deleter', {
        json: { members: ['bob'] },
      });
      assert.deepEqual(await sharedAppIds('bob'), []);
      assert.equal((await launch('bob', made.id)).status, 404);

      await gw.ok('alice', 'DELETE', '/teams/alice:sharing%20team');
      assert.ok(!(await sharedAppIds('carol')).includes(made.id));
      const gone = await gw.ok('alice', 'POST', '/apps/permission-lister', {
        json: { apps: [{ system_id: 'de', app_id: made.id }] },
      });
      assert.deepEqual(gone.apps[0].permissions, []);
      const unknown = await shareApp('alice', group(team.id), made.id);
      assert.equal(unknown.sharing[0].apps[0].error.error_code, 'ERR_NOT_FOUND');
    });

    test('a collaborator list deleted with retain-permissions leaves its members their grants', async () => {
      const kept = await gw.ok('alice', 'POST', '/collaborator-lists', { json: { name: 'kept' } });
      const dropped = await gw.ok('alice', 'POST', '/collaborator-lists', {
        json: { name: 'dropped' },
      });
      for (const name of ['kept', 'dropped'])
        await gw.ok('alice', 'POST', `/collaborator-lists/${name}/members`, {
          json: { members: ['bob', 'carol'] },
        });
      const first = await makeApp('alice', 'kept for the list');
      const second = await makeApp('alice', 'dropped with the list');
      await shareApp('alice', group(kept.id), first.id, 'write');
      await shareApp('alice', group(dropped.id), second.id);
      // carol holds `read` directly: the list's `write` is the higher, and she keeps that.
      await shareApp('alice', user('carol'), first.id, 'read');

      await gw.ok('alice', 'DELETE', '/collaborator-lists/kept?retain-permissions=true');
      await gw.ok('alice', 'DELETE', '/collaborator-lists/dropped');
      const listed = await gw.ok('alice', 'POST', '/apps/permission-lister', {
        json: {
          apps: [
            { system_id: 'de', app_id: first.id },
            { system_id: 'de', app_id: second.id },
          ],
        },
      });
      assert.deepEqual(
        listed.apps.map((app: any) =>
          app.permissions.map((p: any) => [p.subject.id, p.subject.source_id, p.permission]),
        ),
        [
          [
            ['bob', 'platform', 'write'],
            ['carol', 'platform', 'write'],
          ],
          [],
        ],
      );
      assert.ok((await sharedAppIds('bob')).includes(first.id));
      assert.ok(!(await sharedAppIds('bob')).includes(second.id));

      // Removing members with retain-permissions keeps theirs too.
      const list = await gw.ok('alice', 'POST', '/collaborator-lists', { json: { name: 'third' } });
      await gw.ok('alice', 'POST', '/collaborator-lists/third/members', {
        json: { members: ['dave'] },
      });
      await shareApp('alice', group(list.id), second.id);
      await gw.ok(
        'alice',
        'POST',
        '/collaborator-lists/third/members/deleter?retain-permissions=true',
        {
          json: { members: ['dave'] },
        },
      );
      assert.deepEqual(await sharedAppIds('dave'), [second.id]);
    });

    test('an analysis shared: listed as theirs, readable, renamed with write, never deleted by a grantee', async () => {
      const made = await makeApp('carol', 'carol runs this');
      const launched = await launch('carol', made.id);
      assert.equal(launched.status, 200, launched.text);
      const id = launched.body.id;
      const filter = (ownership: string) =>
        `/analyses?filter=${encodeURIComponent(JSON.stringify([{ field: 'ownership', value: ownership }]))}`;
      const ids = async (caller: string, ownership: string) =>
        (await gw.ok(caller, 'GET', filter(ownership))).analyses.map((a: any) => a.id);
      assert.ok(!(await ids('dave', 'all')).includes(id));
      assert.equal((await gw.call('dave', 'GET', `/analyses/${id}/history`)).status, 404);

      const shared = await gw.ok('carol', 'POST', '/analyses/sharing', {
        json: {
          sharing: [{ subject: user('dave'), analyses: [{ analysis_id: id, permission: 'read' }] }],
        },
      });
      assert.deepEqual(shared.sharing[0].analyses, [
        {
          analysis_id: id,
          analysis_name: 'carol run',
          permission: 'read',
          success: true,
        },
      ]);
      assert.deepEqual(await ids('dave', 'theirs'), [id]);
      assert.ok((await ids('dave', 'all')).includes(id));
      assert.ok(!(await ids('dave', 'mine')).includes(id));
      const seen = (await gw.ok('dave', 'GET', filter('theirs'))).analyses[0];
      assert.equal(seen.can_share, false);
      assert.equal(seen.username.split('@')[0], 'carol');
      assert.equal((await gw.ok('carol', 'GET', filter('mine'))).analyses[0].can_share, true);
      assert.equal((await gw.ok('dave', 'GET', `/analyses/${id}/history`)).analysis_id, id);
      await notifications('dave', 'analysis', 'share');

      const rename = await gw.call('dave', 'PATCH', `/analyses/${id}`, {
        json: { name: 'renamed' },
      });
      assert.equal(rename.status, 403);
      await gw.ok('carol', 'POST', '/analyses/sharing', {
        json: {
          sharing: [
            { subject: user('dave'), analyses: [{ analysis_id: id, permission: 'write' }] },
          ],
        },
      });
      assert.equal(
        (await gw.ok('dave', 'PATCH', `/analyses/${id}`, { json: { name: 'renamed' } })).name,
        'renamed',
      );
      assert.equal((await gw.call('dave', 'DELETE', `/analyses/${id}`)).status, 404);

      const listed = await gw.ok('carol', 'POST', '/analyses/permission-lister', {
        json: { analyses: [id] },
      });
      assert.deepEqual(listed, {
        analyses: [
          {
            id,
            name: 'renamed',
            permissions: [{ subject: { id: 'dave', source_id: 'platform' }, permission: 'write' }],
          },
        ],
      });
      const unshared = await gw.ok('carol', 'POST', '/analyses/unsharing', {
        json: { unsharing: [{ subject: user('dave'), analyses: [id] }] },
      });
      assert.deepEqual(unshared.unsharing[0].analyses, [
        { analysis_id: id, analysis_name: 'renamed', success: true },
      ]);
      await notifications('dave', 'analysis', 'unshare');
      assert.deepEqual(await ids('dave', 'theirs'), []);
    });

    test('tools: shared by their integrator only; administrators share any app', async () => {
      const refused = await gw.ok('alice', 'POST', '/tools/sharing', {
        json: {
          sharing: [
            { subject: user('bob'), tools: [{ tool_id: wordCountTool, permission: 'read' }] },
          ],
        },
      });
      assert.equal(refused.sharing[0].tools[0].success, false);
      assert.equal(refused.sharing[0].tools[0].error.error_code, 'ERR_NOT_OWNER');
      assert.equal(refused.sharing[0].tools[0].tool_name, builtInApps[1]!.tool.name);
      const listed = await gw.ok('alice', 'POST', '/tools/permission-lister', {
        json: { tools: [wordCountTool] },
      });
      assert.deepEqual(listed, {
        tools: [{ id: wordCountTool, name: builtInApps[1]!.tool.name, permissions: [] }],
      });
      const missing = await gw.call('alice', 'POST', '/tools/permission-lister', {
        json: { tools: ['00000000-0000-0000-0000-00000000beef'] },
      });
      assert.equal(missing.status, 404);

      // The platform's own apps are shared by administrators; users cannot.
      const builtIn = builtInApps[2]!.id;
      const byUser = await shareApp('alice', user('bob'), builtIn, 'write');
      assert.equal(byUser.sharing[0].apps[0].error.error_code, 'ERR_NOT_OWNER');
      const byAdmin = await gw.ok(admin, 'POST', '/admin/apps/sharing', {
        json: {
          sharing: [
            {
              subject: user('bob'),
              apps: [{ system_id: 'de', app_id: builtIn, permission: 'write' }],
            },
          ],
        },
      });
      assert.equal(byAdmin.sharing[0].apps[0].success, true);
      const asBob = await gw.ok(
        'bob',
        'GET',
        `/apps?search=${encodeURIComponent(builtInApps[2]!.name)}`,
      );
      assert.equal(asBob.apps.find((app: any) => app.id === builtIn).permission, 'write');
      const back = await gw.ok(admin, 'POST', '/admin/apps/unsharing', {
        json: {
          unsharing: [{ subject: user('bob'), apps: [{ system_id: 'de', app_id: builtIn }] }],
        },
      });
      assert.equal(back.unsharing[0].apps[0].success, true);
      const notAdmin = await gw.call('alice', 'POST', '/admin/apps/sharing', {
        json: { sharing: [] },
      });
      assert.equal(notAdmin.status, 403);
    });
  });
}

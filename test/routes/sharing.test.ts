// routes.md §13 sharing: one data-info call per sharee (a user, or a subject by its id), the
// outcome reported per path and never thrown, access granted and revoked for real.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startDataStoreGateway, type DataStoreGateway } from '../support/data-store.ts';
import { engines, skipWithout } from '../support/postgres.ts';

for (const engine of engines) {
  describe(`sharing (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: DataStoreGateway;
    let home: string;
    let report: string;
    let folder: string;

    before(async () => {
      gw = (await startDataStoreGateway({ engine }))!;
      home = gw.home('alice');
      for (const user of ['bob', 'carol']) await gw.ok(user, 'GET', '/secured/filesystem/root');
      await gw.ok('alice', 'POST', '/secured/filesystem/directories', {
        json: { paths: [`${home}/project/data`] },
      });
      await gw.upload('alice', `${home}/project`, 'report.txt', 'the report');
      report = `${home}/project/report.txt`;
      folder = `${home}/project/data`;
    });
    after(async () => gw?.close());

    describe('share and unshare', () => {
      test('shares with users and subjects, reporting each path; access follows', async () => {
        const answer = await gw.ok('alice', 'POST', '/secured/share', {
          json: {
            sharing: [
              {
                user: 'bob',
                paths: [
                  { path: report, permission: 'read' },
                  { path: `${home}/project/missing.txt`, permission: 'read' },
                ],
              },
              {
                subject: { id: 'carol', source_id: 'ldap' },
                paths: [{ path: folder, permission: 'write' }],
              },
            ],
          },
        });
        assert.equal(answer.sharing.length, 2);
        const [toBob, toCarol] = answer.sharing;
        assert.equal(toBob.user, 'bob');
        assert.deepEqual(toBob.sharing[0], { path: report, permission: 'read', success: true });
        assert.equal(toBob.sharing[1].path, `${home}/project/missing.txt`);
        assert.equal(toBob.sharing[1].success, false);
        assert.equal(toBob.sharing[1].error.error_code, 'ERR_DOES_NOT_EXIST');
        assert.deepEqual(toCarol.subject, { id: 'carol', source_id: 'ldap' });
        assert.deepEqual(toCarol.sharing, [{ path: folder, permission: 'write', success: true }]);

        assert.equal((await gw.stat('bob', report)).permission, 'read');
        assert.equal((await gw.stat('carol', folder)).permission, 'write');
        assert.equal(await gw.stat('carol', report), undefined, 'carol got the folder only');
        assert.equal((await gw.stat('alice', report))['share-count'], 1);
        const permissions = await gw.ok('alice', 'POST', '/secured/filesystem/user-permissions', {
          json: { paths: [report] },
        });
        assert.deepEqual(
          permissions.paths[0]['user-permissions']
            .map((entry: any) => `${entry.user}:${entry.permission}`)
            .sort(),
          ['alice:own', 'bob:read'],
        );
      });

      test('a team or collaborator list subject fails for each of its paths, beside a user that succeeds', async () => {
        const team = { id: '0b6f7d2c-0000-4000-8000-000000000001', source_id: 'g:gsa' };
        const answer = await gw.ok('alice', 'POST', '/secured/share', {
          json: {
            sharing: [
              { subject: team, paths: [{ path: report, permission: 'read' }] },
              { user: 'carol', paths: [{ path: report, permission: 'read' }] },
            ],
          },
        });
        const [toTeam, toCarol] = answer.sharing;
        assert.deepEqual(toTeam.subject, team);
        assert.equal(toTeam.sharing[0].success, false);
        assert.equal(toTeam.sharing[0].error.error_code, 'ERR_NOT_A_USER');
        assert.equal(toCarol.sharing[0].success, true);
        // Nothing was made for the group's id as if it were a user.
        const permissions = await gw.ok('alice', 'POST', '/secured/filesystem/user-permissions', {
          json: { paths: [report] },
        });
        assert.ok(
          !permissions.paths[0]['user-permissions'].some((entry: any) =>
            entry.user.includes(team.id),
          ),
        );
        await gw.ok('alice', 'POST', '/secured/unshare', {
          json: { unshare: [{ user: 'carol', paths: [report] }] },
        });
      });

      test('raising and lowering a share replaces the permission', async () => {
        const raise = await gw.ok('alice', 'POST', '/share', {
          json: { sharing: [{ user: 'bob', paths: [{ path: report, permission: 'own' }] }] },
        });
        assert.equal(raise.sharing[0].sharing[0].success, true);
        assert.equal((await gw.stat('bob', report)).permission, 'own');
        await gw.ok('alice', 'POST', '/share', {
          json: { sharing: [{ user: 'bob', paths: [{ path: report, permission: 'read' }] }] },
        });
        assert.equal((await gw.stat('bob', report)).permission, 'read');
      });

      test('failures are per path, never thrown: strangers, non-owners, oneself, bad names', async () => {
        const notOwner = await gw.ok('bob', 'POST', '/secured/share', {
          json: { sharing: [{ user: 'carol', paths: [{ path: report, permission: 'read' }] }] },
        });
        assert.equal(notOwner.sharing[0].sharing[0].success, false);
        assert.equal(notOwner.sharing[0].sharing[0].error.error_code, 'ERR_NOT_OWNER');
        assert.equal(await gw.stat('carol', report), undefined);

        const odd = await gw.ok('alice', 'POST', '/secured/share', {
          json: {
            sharing: [
              { user: 'alice', paths: [{ path: report, permission: 'read' }] },
              {
                user: 'not/a user',
                paths: [
                  { path: report, permission: 'read' },
                  { path: folder, permission: 'read' },
                ],
              },
              { user: 'bob', paths: [{ path: '/platform/home/alice/../bob', permission: 'read' }] },
            ],
          },
        });
        assert.equal(odd.sharing[0].sharing[0].error.error_code, 'ERR_ILLEGAL_ARGUMENT');
        assert.deepEqual(
          odd.sharing[1].sharing.map((entry: any) => [entry.success, entry.error.error_code]),
          [
            [false, 'ERR_NOT_A_USER'],
            [false, 'ERR_NOT_A_USER'],
          ],
        );
        assert.equal(odd.sharing[2].sharing[0].error.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      });

      test('request shapes are checked; anonymous callers are refused', async () => {
        const noSharee = await gw.call('alice', 'POST', '/secured/share', {
          json: { sharing: [{ paths: [{ path: report, permission: 'read' }] }] },
        });
        assert.equal(noSharee.status, 400);
        assert.equal(noSharee.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
        const badPermission = await gw.call('alice', 'POST', '/secured/share', {
          json: { sharing: [{ user: 'bob', paths: [{ path: report, permission: 'admin' }] }] },
        });
        assert.equal(badPermission.status, 400);
        assert.equal(
          (await gw.call('alice', 'POST', '/secured/unshare', { json: {} })).status,
          400,
        );
        assert.equal(
          (await gw.call(null, 'POST', '/share', { json: { sharing: [] } })).status,
          401,
        );
        assert.deepEqual(await gw.ok('alice', 'POST', '/share', { json: { sharing: [] } }), {
          sharing: [],
        });
      });

      test('unshare revokes, per path, for users and subjects', async () => {
        const answer = await gw.ok('alice', 'POST', '/unshare', {
          json: {
            unshare: [
              { user: 'bob', paths: [report] },
              {
                subject: { id: 'carol', source_id: 'ldap' },
                paths: [folder, `${home}/project/missing.txt`],
              },
            ],
          },
        });
        assert.deepEqual(answer.unshare[0], {
          user: 'bob',
          unshare: [{ path: report, success: true }],
        });
        assert.deepEqual(answer.unshare[1].subject, { id: 'carol', source_id: 'ldap' });
        assert.deepEqual(answer.unshare[1].unshare[0], { path: folder, success: true });
        assert.equal(answer.unshare[1].unshare[1].success, false);
        assert.equal(answer.unshare[1].unshare[1].error.error_code, 'ERR_DOES_NOT_EXIST');

        assert.equal(await gw.stat('bob', report), undefined);
        assert.equal(await gw.stat('carol', folder), undefined);
        assert.equal((await gw.stat('alice', report))['share-count'], 0);
      });
    });
  });
}

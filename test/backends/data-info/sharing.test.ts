import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engines, home, ticketBaseUrl, type DataInfoHost } from '../../support/data-info-host.ts';

/** Sharing, permissions and the anonymizer (backends.md §2.1), on each engine. */
for (const engine of engines) {
  describe(`data-info sharing on ${engine.name}`, () => {
    let service: DataInfoHost | undefined;
    before(async () => {
      service = await engine.open();
    });
    after(async () => service?.close());
    const s = () => service!;
    const shareCount = async (path: string) => {
      const object = (await s().data.catalog.byPath(path))!;
      return (await s().data.stat({ name: object.owner, anonymous: false }, object, 'own'))[
        'share-count'
      ];
    };

    test('sharer grants per path and reports each failure without failing the request', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const a = home('alice');
      await s().folder('alice', `${a}/proj`);
      await s().file('alice', `${a}/proj/reads.fq`);
      await s().file('bob', `${home('bob')}/bobs.txt`);
      assert.equal(await s().data.catalog.permission('bob', `${a}/proj/reads.fq`), undefined);

      const answer = await s().call('POST', '/sharer', {
        user: 'alice',
        body: {
          sharing: [
            {
              user: 'bob',
              paths: [
                { path: `${a}/proj`, permission: 'write' },
                { path: `${a}/missing`, permission: 'read' },
                { path: `${home('bob')}/bobs.txt`, permission: 'read' },
                { path: `${a}/proj`, permission: 'admin' },
                { path: 'relative/path', permission: 'read' },
              ],
            },
            { user: 'alice', paths: [{ path: `${a}/proj`, permission: 'read' }] },
            { user: 'public', paths: [{ path: `${a}/proj`, permission: 'read' }] },
            { user: 'bad/name', paths: [{ path: `${a}/proj`, permission: 'read' }] },
          ],
        },
      });
      assert.equal(answer.status, 200, answer.body);
      const [bob, self, everyone, bad] = answer.json().sharing;
      assert.equal(bob.user, 'bob');
      assert.deepEqual(bob.sharing[0], { path: `${a}/proj`, permission: 'write', success: true });
      const codes = (entry: { sharing: { success: boolean; error?: { error_code: string } }[] }) =>
        entry.sharing.map((item) => (item.success ? 'ok' : item.error?.error_code));
      assert.deepEqual(codes(bob), [
        'ok',
        'ERR_DOES_NOT_EXIST',
        'ERR_NOT_OWNER',
        'ERR_BAD_OR_MISSING_FIELD',
        'ERR_BAD_OR_MISSING_FIELD',
      ]);
      assert.equal(typeof bob.sharing[1].reason, 'string');
      assert.equal(bob.sharing[1].path, `${a}/missing`);
      assert.deepEqual(codes(self), ['ERR_ILLEGAL_ARGUMENT']);
      assert.deepEqual(codes(everyone), ['ERR_NOT_A_USER']);
      assert.deepEqual(codes(bad), ['ERR_NOT_A_USER']);

      assert.equal(
        await s().data.catalog.permission('bob', `${a}/proj/reads.fq`),
        'write',
        'a folder share covers its contents',
      );
      assert.equal(await shareCount(`${a}/proj`), 1, 'share-count reflects the grant');

      // Bob, who may write but does not own, cannot share further.
      const reshare = await s().call('POST', '/sharer', {
        user: 'bob',
        body: { sharing: [{ user: 'carol', paths: [{ path: `${a}/proj`, permission: 'read' }] }] },
      });
      assert.equal(reshare.json().sharing[0].sharing[0].error.error_code, 'ERR_NOT_OWNER');
      assert.equal(await s().data.catalog.permission('carol', `${a}/proj`), undefined);

      const malformed = await s().call('POST', '/sharer', {
        user: 'alice',
        body: { sharing: 'bob' },
      });
      assert.equal(malformed.status, 400);
      assert.equal(malformed.json().error_code, 'ERR_BAD_OR_MISSING_FIELD');
    });

    test("an owner by grant shares too, but cannot change the recorded owner's access", async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const folder = await s().folder('dora', `${home('dora')}/co-owned`);
      await s().data.catalog.grant(s().data.db, folder.id, 'ed', 'own');
      const answer = await s().call('POST', '/sharer', {
        user: 'ed',
        body: {
          sharing: [
            { user: 'dora', paths: [{ path: folder.path, permission: 'read' }] },
            { user: 'fred', paths: [{ path: folder.path, permission: 'read' }] },
          ],
        },
      });
      assert.equal(answer.json().sharing[0].sharing[0].error.error_code, 'ERR_ILLEGAL_ARGUMENT');
      assert.equal(answer.json().sharing[1].sharing[0].success, true);
      assert.equal(await s().data.catalog.permission('dora', folder.path), 'own');
      assert.equal(await s().data.catalog.permission('fred', folder.path), 'read');
    });

    test('unsharer revokes per path; permissions-gatherer lists grants on the object itself', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const g = home('gina');
      const data = await s().folder('gina', `${g}/data`);
      const file = await s().file('gina', `${g}/data/table.csv`);
      await s().data.catalog.grant(s().data.db, data.id, 'hank', 'read');
      await s().data.catalog.grant(s().data.db, data.id, 'iris', 'write');
      await s().data.catalog.grant(s().data.db, file.id, 'public', 'read');

      const gathered = await s().call('POST', '/permissions-gatherer', {
        user: 'gina',
        body: { paths: [`${g}/data`, `${g}/data/table.csv`] },
      });
      assert.equal(gathered.status, 200, gathered.body);
      assert.deepEqual(gathered.json().paths, [
        {
          path: `${g}/data`,
          'user-permissions': [
            { user: 'gina', permission: 'own' },
            { user: 'hank', permission: 'read' },
            { user: 'iris', permission: 'write' },
          ],
        },
        {
          path: `${g}/data/table.csv`,
          'user-permissions': [
            { user: 'gina', permission: 'own' },
            { user: 'public', permission: 'read' },
          ],
        },
      ]);
      const notOwner = await s().call('POST', '/permissions-gatherer', {
        user: 'hank',
        body: { paths: [`${g}/data`] },
      });
      assert.equal(notOwner.json().error_code, 'ERR_NOT_OWNER');
      const scaffolding = await s().call('POST', '/permissions-gatherer', {
        user: 'gina',
        body: { paths: [g] },
      });
      assert.deepEqual(
        scaffolding.json().paths[0]['user-permissions'],
        [{ user: 'gina', permission: 'own' }],
        'the data-store account is hidden',
      );

      const answer = await s().call('POST', '/unsharer', {
        user: 'gina',
        body: {
          unshare: [
            { user: 'hank', paths: [`${g}/data`, `${g}/nothing`] },
            { user: 'gina', paths: [`${g}/data`] },
            { user: 'anonymous', paths: [`${g}/data`] },
          ],
        },
      });
      assert.equal(answer.status, 200, answer.body);
      const [hank, self, anonymous] = answer.json().unshare;
      assert.equal(hank.user, 'hank');
      assert.deepEqual(hank.unshare[0], { path: `${g}/data`, success: true });
      assert.equal(hank.unshare[1].error.error_code, 'ERR_DOES_NOT_EXIST');
      assert.equal(self.unshare[0].error.error_code, 'ERR_ILLEGAL_ARGUMENT');
      assert.equal(anonymous.unshare[0].error.error_code, 'ERR_NOT_A_USER');
      assert.equal(
        await s().data.catalog.permission('hank', `${g}/data/table.csv`),
        'read',
        'public read on the file remains',
      );
      assert.equal(await s().data.catalog.permission('hank', `${g}/data`), undefined);
      assert.equal(await shareCount(`${g}/data`), 1);
    });

    test('per-item permission routes', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const file = await s().file('jo', `${home('jo')}/item.txt`);
      const put = await s().call('PUT', `/data/${file.id}/permissions/kim/write`, { user: 'jo' });
      assert.equal(put.status, 200, put.body);
      assert.deepEqual(put.json(), {
        id: file.id,
        path: file.path,
        user: 'kim',
        permission: 'write',
      });
      assert.equal(await s().data.catalog.permission('kim', file.path), 'write');
      const listed = await s().call('GET', `/data/${file.id}/permissions`, { user: 'jo' });
      assert.deepEqual(listed.json()['user-permissions'], [
        { user: 'jo', permission: 'own' },
        { user: 'kim', permission: 'write' },
      ]);
      const badLevel = await s().call('PUT', `/data/${file.id}/permissions/kim/admin`, {
        user: 'jo',
      });
      assert.equal(badLevel.json().error_code, 'ERR_BAD_OR_MISSING_FIELD');
      const byOther = await s().call('PUT', `/data/${file.id}/permissions/lee/read`, {
        user: 'kim',
      });
      assert.equal(byOther.json().error_code, 'ERR_NOT_OWNER');
      const removed = await s().call('DELETE', `/data/${file.id}/permissions/kim`, { user: 'jo' });
      assert.equal(removed.status, 200, removed.body);
      assert.equal(await s().data.catalog.permission('kim', file.path), undefined);
      const unknown = await s().call(
        'GET',
        '/data/00000000-0000-4000-8000-000000000000/permissions',
        { user: 'jo' },
      );
      assert.equal(unknown.json().error_code, 'ERR_DOES_NOT_EXIST');
    });

    test('anonymizer makes files public and answers a ticket download URL that works', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const file = await s().file('max', `${home('max')}/poster.pdf`, 'PDF bytes');
      await s().folder('max', `${home('max')}/dir`);
      const answer = await s().call('POST', '/anonymizer', {
        user: 'max',
        body: { paths: [file.path] },
      });
      assert.equal(answer.status, 200, answer.body);
      assert.equal(answer.json().user, 'max');
      const url: string = answer.json().paths[file.path];
      assert.match(url, new RegExp(`^${ticketBaseUrl}/d/[0-9A-F-]{36}/poster\\.pdf$`));
      assert.equal(
        await s().data.catalog.permission('anyone', file.path),
        'read',
        'public read grant',
      );
      const ticketId = url.split('/').at(-2)!;
      const download = await s().call('GET', `/ticket-downloads/${ticketId}`);
      assert.equal(download.status, 200);
      assert.equal(download.body, 'PDF bytes');

      const folder = await s().call('POST', '/anonymizer', {
        user: 'max',
        body: { paths: [`${home('max')}/dir`] },
      });
      assert.equal(folder.json().error_code, 'ERR_NOT_A_FILE');
      const notOwner = await s().call('POST', '/anonymizer', {
        user: 'nia',
        body: { paths: [file.path] },
      });
      assert.equal(notOwner.json().error_code, 'ERR_NOT_OWNER');
    });
  });
}

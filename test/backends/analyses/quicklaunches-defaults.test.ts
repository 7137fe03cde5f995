// Around quick launches, through the gateway on both engines — favourites and default quick
// launches per user (each with its unique rules, each user seeing only their own), and the global
// default per app, which only administrators change.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../src/backends/apps/catalog/built-in.ts';
import { requiredInCi } from '../../support/gateway.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../support/metadata-gateway.ts';

const wordCount = builtInApps.find((app) => app.name === 'Word count')!;
const checksum = builtInApps.find((app) => app.name === 'Checksum')!;

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`quick-launch favorites and defaults (${engine})`, () => {
    let gw: MetadataGateway;
    let domain: string;
    let alicePublic: any; // Word count, public
    let alicePrivate: any; // Word count, private
    let aliceSecond: any; // Word count, public
    let bobOwn: any; // Word count, bob's private
    let aliceChecksum: any; // Checksum, public

    const create = (user: string, name: string, app: typeof wordCount, isPublic: boolean) =>
      gw.ok(user, 'POST', '/quicklaunches', {
        json: {
          name,
          app_id: app.id,
          is_public: isPublic,
          submission: { app_id: app.id, config: {} },
        },
      });

    before(async () => {
      const started = await startMetadataGateway({ engine });
      if (!started) return;
      gw = started;
      domain = gw.running.gateway.config.uidDomain;
      await gw.ok('alice', 'GET', '/apps'); // the apps service has installed its apps
      alicePublic = await create('alice', 'count, public', wordCount, true);
      alicePrivate = await create('alice', 'count, private', wordCount, false);
      aliceSecond = await create('alice', 'count, another', wordCount, true);
      bobOwn = await create('bob', 'count, bob', wordCount, false);
      aliceChecksum = await create('alice', 'checksum, public', checksum, true);
    });
    after(async () => gw?.close());
    const skip = () => !gw && engine === 'postgres' && !requiredInCi('DATABASE_URL');

    test('favorites are per user, once per quick launch, only of quick launches one may view', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const bobs = await gw.ok('bob', 'POST', '/quicklaunches/favorites', {
        json: { quick_launch_id: alicePublic.id },
      });
      assert.deepEqual(
        { ...bobs, id: undefined },
        { id: undefined, quick_launch_id: alicePublic.id, user: `bob@${domain}` },
      );
      const again = await gw.call('bob', 'POST', '/quicklaunches/favorites', {
        json: { quick_launch_id: alicePublic.id },
      });
      assert.equal(again.status, 400);
      assert.equal(again.body.error_code, 'ERR_EXISTS');
      const hidden = await gw.call('bob', 'POST', '/quicklaunches/favorites', {
        json: { quick_launch_id: alicePrivate.id },
      });
      assert.equal(hidden.status, 404);

      const alices = await gw.ok('alice', 'POST', '/quicklaunches/favorites', {
        json: { quick_launch_id: alicePublic.id },
      });
      assert.deepEqual(await gw.ok('bob', 'GET', '/quicklaunches/favorites'), [bobs]);
      assert.deepEqual(await gw.ok('alice', 'GET', '/quicklaunches/favorites'), [alices]);
      assert.deepEqual(await gw.ok('bob', 'GET', `/quicklaunches/favorites/${bobs.id}`), bobs);
      assert.equal(
        (await gw.call('alice', 'GET', `/quicklaunches/favorites/${bobs.id}`)).status,
        404,
      );
      assert.equal(
        (await gw.call('alice', 'DELETE', `/quicklaunches/favorites/${bobs.id}`)).status,
        404,
      );

      assert.deepEqual(await gw.ok('bob', 'DELETE', `/quicklaunches/favorites/${bobs.id}`), {
        id: bobs.id,
      });
      assert.deepEqual(await gw.ok('bob', 'GET', '/quicklaunches/favorites'), []);
      assert.deepEqual(await gw.ok('alice', 'GET', '/quicklaunches/favorites'), [alices]);
    });

    test('user defaults: one per app and user, a quick launch of that app, per user', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const bobs = await gw.ok('bob', 'POST', '/quicklaunches/defaults/user', {
        json: { quick_launch_id: alicePublic.id, app_id: wordCount.id },
      });
      assert.deepEqual(
        { ...bobs, id: undefined },
        {
          id: undefined,
          user: `bob@${domain}`,
          quick_launch_id: alicePublic.id,
          app_id: wordCount.id,
        },
      );

      // A second default for the same app, the same quick launch twice, or another app's quick launch: refused.
      const sameApp = await gw.call('bob', 'POST', '/quicklaunches/defaults/user', {
        json: { quick_launch_id: bobOwn.id, app_id: wordCount.id },
      });
      assert.equal(sameApp.status, 400);
      assert.equal(sameApp.body.error_code, 'ERR_EXISTS');
      const wrongApp = await gw.call('bob', 'POST', '/quicklaunches/defaults/user', {
        json: { quick_launch_id: aliceChecksum.id, app_id: wordCount.id },
      });
      assert.equal(wrongApp.status, 400);
      assert.equal(wrongApp.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      assert.equal(
        (
          await gw.call('bob', 'POST', '/quicklaunches/defaults/user', {
            json: { quick_launch_id: alicePrivate.id, app_id: wordCount.id },
          })
        ).status,
        404,
      );

      // Alice has her own default for the same app, with the same quick launch.
      const alices = await gw.ok('alice', 'POST', '/quicklaunches/defaults/user', {
        json: { quick_launch_id: alicePublic.id, app_id: wordCount.id },
      });
      assert.deepEqual(await gw.ok('alice', 'GET', '/quicklaunches/defaults/user'), [alices]);
      assert.deepEqual(await gw.ok('bob', 'GET', '/quicklaunches/defaults/user'), [bobs]);
      assert.equal(
        (await gw.call('alice', 'GET', `/quicklaunches/defaults/user/${bobs.id}`)).status,
        404,
      );
      assert.equal(
        (
          await gw.call('alice', 'PATCH', `/quicklaunches/defaults/user/${bobs.id}`, {
            json: { quick_launch_id: aliceSecond.id },
          })
        ).status,
        404,
      );

      const moved = await gw.ok('bob', 'PATCH', `/quicklaunches/defaults/user/${bobs.id}`, {
        json: { quick_launch_id: bobOwn.id },
      });
      assert.deepEqual(moved, { ...bobs, quick_launch_id: bobOwn.id });
      assert.deepEqual(await gw.ok('bob', 'GET', `/quicklaunches/defaults/user/${bobs.id}`), moved);
      // A checksum default beside it; moving it onto the quick launch of the other default is refused.
      const checksumDefault = await gw.ok('bob', 'POST', '/quicklaunches/defaults/user', {
        json: { quick_launch_id: aliceChecksum.id, app_id: checksum.id },
      });
      const clash = await gw.call(
        'bob',
        'PATCH',
        `/quicklaunches/defaults/user/${checksumDefault.id}`,
        { json: { quick_launch_id: bobOwn.id, app_id: wordCount.id } },
      );
      assert.equal(clash.status, 400);
      assert.equal(clash.body.error_code, 'ERR_EXISTS');

      assert.deepEqual(await gw.ok('bob', 'DELETE', `/quicklaunches/defaults/user/${bobs.id}`), {
        id: bobs.id,
      });
      assert.deepEqual(await gw.ok('bob', 'GET', '/quicklaunches/defaults/user'), [
        checksumDefault,
      ]);
    });

    test('global defaults: administrators set them, to public quick launches, one per app; everyone reads them', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const json = { app_id: wordCount.id, quick_launch_id: alicePublic.id };
      const refused = await gw.call('alice', 'POST', '/quicklaunches/defaults/global', { json });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error_code, 'ERR_FORBIDDEN');

      const notPublic = await gw.call(admin, 'POST', '/quicklaunches/defaults/global', {
        json: { app_id: wordCount.id, quick_launch_id: bobOwn.id },
      });
      assert.equal(
        notPublic.status,
        404,
        "the administrator cannot view bob's private quick launch",
      );
      const adminsPrivate = await create(admin, 'count, root', wordCount, false);
      const privateOne = await gw.call(admin, 'POST', '/quicklaunches/defaults/global', {
        json: { app_id: wordCount.id, quick_launch_id: adminsPrivate.id },
      });
      assert.equal(privateOne.status, 400, 'a private quick launch cannot be a global default');
      assert.equal(privateOne.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      const created = await gw.ok(admin, 'POST', '/quicklaunches/defaults/global', { json });
      assert.deepEqual({ ...created, id: undefined }, { id: undefined, ...json });
      const second = await gw.call(admin, 'POST', '/quicklaunches/defaults/global', {
        json: { app_id: wordCount.id, quick_launch_id: aliceSecond.id },
      });
      assert.equal(second.status, 400);
      assert.equal(second.body.error_code, 'ERR_EXISTS');

      assert.deepEqual(await gw.ok('bob', 'GET', '/quicklaunches/defaults/global'), [created]);
      assert.deepEqual(
        await gw.ok('bob', 'GET', `/quicklaunches/defaults/global/${created.id}`),
        created,
      );
      assert.equal(
        (
          await gw.call('bob', 'PATCH', `/quicklaunches/defaults/global/${created.id}`, {
            json: { quick_launch_id: aliceSecond.id },
          })
        ).status,
        403,
      );
      assert.equal(
        (await gw.call('bob', 'DELETE', `/quicklaunches/defaults/global/${created.id}`)).status,
        403,
      );

      // While it is the global default, alice's quick launch stays public and for its app.
      const madePrivate = await gw.call('alice', 'PATCH', `/quicklaunches/${alicePublic.id}`, {
        json: { is_public: false },
      });
      assert.equal(madePrivate.status, 400);
      assert.equal(madePrivate.body.error_code, 'ERR_ILLEGAL_ARGUMENT');

      const moved = await gw.ok(admin, 'PATCH', `/quicklaunches/defaults/global/${created.id}`, {
        json: { quick_launch_id: aliceSecond.id },
      });
      assert.deepEqual(moved, { ...created, quick_launch_id: aliceSecond.id });
      assert.deepEqual(
        await gw.ok(admin, 'DELETE', `/quicklaunches/defaults/global/${created.id}`),
        { id: created.id },
      );
      assert.deepEqual(await gw.ok('bob', 'GET', '/quicklaunches/defaults/global'), []);
      assert.equal(
        (await gw.call('bob', 'GET', `/quicklaunches/defaults/global/${created.id}`)).status,
        404,
      );
    });

    test('deleting a quick launch removes the favorites and defaults that named it', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const doomed = await create('alice', 'short-lived', checksum, true);
      await gw.ok('bob', 'POST', '/quicklaunches/favorites', {
        json: { quick_launch_id: doomed.id },
      });
      const global = await gw.ok(admin, 'POST', '/quicklaunches/defaults/global', {
        json: { app_id: checksum.id, quick_launch_id: doomed.id },
      });
      await gw.ok('alice', 'DELETE', `/quicklaunches/${doomed.id}`);
      assert.deepEqual(
        (await gw.ok('bob', 'GET', '/quicklaunches/favorites')).filter(
          (each: any) => each.quick_launch_id === doomed.id,
        ),
        [],
      );
      assert.equal(
        (await gw.call('bob', 'GET', `/quicklaunches/defaults/global/${global.id}`)).status,
        404,
      );
    });
  });
}

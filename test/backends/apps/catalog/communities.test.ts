// Featured Apps and app communities through the gateway (routes.md §16 app-categories,
// app-communities, app-community-tags, §17) on both engines, signed in and anonymous: community tags
// are AVUs on the app, and Featured Apps are the public apps of the featured-apps community.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { featuredAppsCommunity } from '../../../../src/backends/apps/catalog/app-communities.ts';
import { communityAvuAttribute } from '../../../../src/common/app-community-avus.ts';
import { builtInApps } from '../../../../src/backends/apps/catalog/built-in.ts';
import * as featuredBuiltInApps from '../../../../src/store/migrations/018-featured-built-in-apps.ts';
import { engines, skipWithout } from '../../../support/postgres.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../../support/metadata-gateway.ts';

const tag = (community: string) => ({ attr: communityAvuAttribute, value: community, unit: '' });
const idsOf = (body: { apps: { id: string }[] }) => body.apps.map((entry) => entry.id).sort();

for (const engine of engines) {
  describe(`featured apps and app communities (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: MetadataGateway;
    before(async () => {
      gw = (await startMetadataGateway({ engine }))!;
      await gw.ok('alice', 'GET', '/apps'); // the apps service is up with its built-in apps
    });
    after(async () => gw?.close());

    /** Inserts an app of `integrator` (a fixture: apps are made through their own tests). */
    const insertApp = async (integrator: string, name: string, isPublic: boolean) => {
      const id = randomUUID();
      const now = Date.now();
      await gw.running.gateway.store.db
        .insertInto('apps')
        .values({
          id,
          name,
          description: `${name} app`,
          integrator,
          is_public: isPublic,
          integration_date: now,
          edited_date: now,
        })
        .execute();
      return id;
    };

    test('Featured Apps answer signed-in and anonymous callers alike', async () => {
      const builtIns = builtInApps.map((app) => app.id).sort();
      for (const caller of ['alice', null]) {
        const answer = await gw.call(caller, 'GET', '/apps/categories/featured');
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.body.name, 'Featured Apps');
        assert.equal(answer.body.id, 'cccccccc-cccc-cccc-cccc-cccccccccccc');
        assert.equal(answer.body.system_id, 'de');
        assert.equal(answer.body.total, builtIns.length);
        assert.deepEqual(idsOf(answer.body), builtIns);
        const entry = answer.body.apps[0];
        for (const field of ['name', 'integrator_name', 'is_public', 'permission', 'rating'])
          assert.ok(field in entry, `listing entries carry ${field}`);
        assert.equal(entry.limitChecks.canRun, true);
      }
      const page = await gw.ok(
        null,
        'GET',
        '/apps/categories/featured?limit=1&offset=1&sort-field=name&sort-dir=ASC',
      );
      assert.equal(page.total, builtIns.length);
      assert.equal(page.apps.length, 1);
      const byName = await gw.ok('alice', 'GET', '/apps/categories/featured?sort-field=name');
      assert.equal(page.apps[0].id, byName.apps[1].id);
    });

    test('administrators choose Featured Apps; owners cannot feature their own', async () => {
      const shown = await insertApp('alice', 'Shown', true);
      const hidden = await insertApp('alice', 'Hidden', false);
      const refused = await gw.call('alice', 'POST', `/apps/${shown}/communities`, {
        json: { avus: [tag(featuredAppsCommunity)] },
      });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error_code, 'ERR_FORBIDDEN');
      for (const id of [shown, hidden])
        await gw.ok(admin, 'POST', `/admin/apps/${id}/metadata`, {
          json: { avus: [tag(featuredAppsCommunity)] },
        });
      for (const caller of ['bob', null]) {
        const featured = await gw.ok(caller, 'GET', '/apps/categories/featured?search=shown');
        assert.deepEqual(idsOf(featured), [shown]);
        // A private app is never featured, not even to its owner.
        const hiddenToo = await gw.ok(caller, 'GET', '/apps/categories/featured?search=hidden');
        assert.equal(hiddenToo.total, 0);
      }
      const category = await gw.ok(
        'bob',
        'GET',
        '/apps/categories/de/cccccccc-cccc-cccc-cccc-cccccccccccc?search=shown',
      );
      assert.deepEqual(idsOf(category), [shown]);
      await gw.ok(admin, 'PUT', `/admin/apps/${shown}/metadata`, { json: { avus: [] } });
      assert.equal((await gw.ok(null, 'GET', '/apps/categories/featured?search=shown')).total, 0);
    });

    test("an app's owner adds it to communities and takes it out", async () => {
      const community = `Imaging ${randomUUID()}`;
      const mine = await insertApp('alice', 'Segmenter', true);
      const privateOne = await insertApp('alice', 'Draft segmenter', false);
      const listing = (user: string) =>
        gw.ok(user, 'GET', `/apps/communities/${encodeURIComponent(community)}/apps`);
      assert.equal((await listing('bob')).total, 0);

      const added = await gw.ok('alice', 'POST', `/apps/${mine}/communities`, {
        // Other AVUs in the body are not looked at: only the community tags are written.
        json: { avus: [tag(community), { attr: 'colour', value: 'red', unit: '' }] },
      });
      assert.deepEqual(
        added.avus.map((avu: { attr: string; value: string }) => [avu.attr, avu.value]),
        [[communityAvuAttribute, community]],
      );
      // Sending the same tag again changes nothing.
      await gw.ok('alice', 'POST', `/apps/${mine}/communities`, {
        json: { avus: [tag(community)] },
      });
      await gw.ok('alice', 'POST', `/apps/${privateOne}/communities`, {
        json: { avus: [tag(community)] },
      });
      const metadata = await gw.ok('alice', 'GET', `/apps/${mine}/metadata`);
      assert.deepEqual(
        metadata.avus.map((avu: { attr: string }) => avu.attr),
        [communityAvuAttribute],
      );

      assert.deepEqual(idsOf(await listing('bob')), [mine]);
      assert.deepEqual(idsOf(await listing('alice')), [mine, privateOne].sort());
      const forAdmins = await gw.ok(
        admin,
        'GET',
        `/admin/apps/communities/${encodeURIComponent(community)}/apps`,
      );
      assert.deepEqual(idsOf(forAdmins), [mine, privateOne].sort());
      const page = await gw.ok(
        'alice',
        'GET',
        `/apps/communities/${encodeURIComponent(community)}/apps?limit=1&sort-field=name&sort-dir=DESC`,
      );
      assert.equal(page.total, 2);
      assert.deepEqual(idsOf(page), [mine]);

      const removed = await gw.ok('alice', 'DELETE', `/apps/${mine}/communities`, {
        json: { avus: [tag(community)] },
      });
      assert.deepEqual(removed.avus, []);
      assert.equal((await listing('bob')).total, 0);
      assert.deepEqual(idsOf(await listing('alice')), [privateOne]);
    });

    test('community tags refuse others, bad bodies and unknown apps with JSON errors', async () => {
      const community = `Genomics ${randomUUID()}`;
      const alices = await insertApp('alice', 'Aligner', true);
      const body = { json: { avus: [tag(community)] } };
      const cases: [string | null, string, string, unknown, number, string][] = [
        ['bob', 'POST', `/apps/${alices}/communities`, body, 403, 'ERR_FORBIDDEN'],
        ['bob', 'DELETE', `/apps/${alices}/communities`, body, 403, 'ERR_FORBIDDEN'],
        [null, 'POST', `/apps/${alices}/communities`, body, 401, 'ERR_NOT_AUTHORIZED'],
        [
          'alice',
          'POST',
          `/apps/${alices}/communities`,
          { json: { avus: [{ attr: 'colour', value: 'red' }] } },
          400,
          'ERR_BAD_OR_MISSING_FIELD',
        ],
        [
          'alice',
          'POST',
          `/apps/${alices}/communities`,
          { json: { avus: 'Genomics' } },
          400,
          'ERR_BAD_OR_MISSING_FIELD',
        ],
        ['alice', 'POST', `/apps/${alices}/communities`, { raw: '{' }, 400, ''],
        ['alice', 'POST', `/apps/${randomUUID()}/communities`, body, 404, 'ERR_NOT_FOUND'],
        ['alice', 'POST', '/apps/not-a-uuid/communities', body, 400, ''],
        ['bob', 'GET', `/admin/apps/communities/${community}/apps`, {}, 403, ''],
      ];
      for (const [user, method, route, options, status, code] of cases) {
        const answer = await gw.call(user, method, route, options as object);
        assert.equal(answer.status, status, `${method} ${route}: ${answer.text}`);
        assert.equal(typeof answer.body.error_code, 'string', `${method} ${route}`);
        if (code) assert.equal(answer.body.error_code, code, `${method} ${route}`);
      }
      assert.equal((await gw.ok('alice', 'GET', `/apps/${alices}/metadata`)).avus.length, 0);
    });

    test("a community's administrators tag others' apps into it; its members do not", async () => {
      const community = `Proteomics ${randomUUID().slice(0, 8)}`;
      await gw.ok('bob', 'POST', '/communities', { json: { name: community } });
      await gw.ok('carol', 'POST', `/communities/${encodeURIComponent(community)}/join`);
      const alices = await insertApp('alice', 'Mass spec', true);
      const body = { json: { avus: [tag(community)] } };
      const refused = await gw.call('carol', 'POST', `/apps/${alices}/communities`, body);
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.body.error_code, 'ERR_FORBIDDEN');
      const tagged = await gw.ok('bob', 'POST', `/apps/${alices}/communities`, body);
      assert.deepEqual(
        tagged.avus.map((avu: { value: string }) => avu.value),
        [community],
      );
      const listed = await gw.ok(
        'carol',
        'GET',
        `/apps/communities/${encodeURIComponent(community)}/apps`,
      );
      assert.deepEqual(idsOf(listed), [alices]);
    });

    test('a store that held the built-in apps before keeps them featured (migration 018)', async () => {
      const store = gw.running.gateway.store;
      const builtIns = builtInApps.map((app) => app.id).sort();
      // The store as it was before 018: built-in apps installed, no community tags.
      await store.db.deleteFrom('avus').where('attribute', '=', communityAvuAttribute).execute();
      assert.equal((await gw.ok(null, 'GET', '/apps/categories/featured')).total, 0);
      // Run as the migrator runs it on such a store (later migrations make rewinding the record moot).
      await featuredBuiltInApps.up(store.db as never);
      assert.deepEqual(idsOf(await gw.ok(null, 'GET', '/apps/categories/featured')), builtIns);
    });
  });
}

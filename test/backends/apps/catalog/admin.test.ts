// App metadata administration through the gateway (routes.md §10, §16 app metadata, §17 "categorise
// apps") on both engines: public categories kept by an administrator and seen by users, AVUs on
// apps written by their integrator or an administrator, users' workspaces listed and deleted.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../../src/backends/apps/catalog/built-in.ts';
import { requiredInCi } from '../../../support/gateway.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../../support/metadata-gateway.ts';

const uidDomain = 'example.org';
const byName = (a: string, b: string) => a.localeCompare(b, 'en', { sensitivity: 'base' });

interface Node {
  name: string;
  total: number;
  categories: Node[];
}

/** The public part of a category tree as names, totals and children (ids dropped), for comparing with one built here. */
const shape = (entry: any): Node => ({
  name: entry.name,
  total: entry.total,
  categories: (entry.categories ?? []).map(shape),
});

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`app metadata administration (${engine})`, () => {
    let gw: MetadataGateway;
    before(async () => {
      const started = await startMetadataGateway({ engine, env: { UID_DOMAIN: uidDomain } });
      if (!started) return;
      gw = started;
      await gw.ok('alice', 'GET', '/apps'); // the apps service is up with its built-in apps
    });
    after(async () => gw?.close());
    const skip = () => !gw && engine === 'postgres' && !requiredInCi('DATABASE_URL');

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

    test('administrator routes refuse other users', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const someId = randomUUID();
      const routes: [string, string, unknown?][] = [
        ['GET', '/admin/apps/categories'],
        ['GET', '/admin/apps/categories/search?name=x'],
        ['POST', '/admin/apps/categories/de', { name: 'Mine' }],
        ['PATCH', `/admin/apps/categories/de/${someId}`, { name: 'Mine' }],
        ['DELETE', `/admin/apps/categories/de/${someId}`],
        ['POST', '/admin/apps', { categories: [] }],
        ['GET', `/admin/apps/${builtInApps[0]!.id}/metadata`],
        ['POST', `/admin/apps/${builtInApps[0]!.id}/metadata`, { avus: [] }],
        ['PUT', `/admin/apps/${builtInApps[0]!.id}/metadata`, { avus: [] }],
        ['GET', '/admin/apps'],
        ['GET', '/admin/workspaces?username=alice'],
        ['DELETE', '/admin/workspaces?username=alice'],
      ];
      for (const [method, route, json] of routes) {
        const answer = await gw.call('alice', method, route, json === undefined ? {} : { json });
        assert.equal(answer.status, 403, `${method} ${route}: ${answer.text}`);
        assert.equal(answer.body.error_code, 'ERR_FORBIDDEN');
        assert.equal(
          (await gw.call(null, method, route, json === undefined ? {} : { json })).status,
          401,
          `${method} ${route} without credentials`,
        );
      }
    });

    test('public categories: add, search, rename, move (no cycles), place apps, delete only when empty', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const add = async (name: string, parentId?: string) => {
        const made = await gw.ok(admin, 'POST', '/admin/apps/categories/de', {
          json: { name, ...(parentId ? { parent_id: parentId } : {}) },
        });
        assert.equal(made.name, name);
        assert.equal(made.parent_id, parentId ?? null);
        return made.id as string;
      };
      const sequencing = await add('Sequencing');
      const assembly = await add('Assembly', sequencing);
      const text = await add('Text tools');
      const imaging = await add('imaging');

      const duplicate = await gw.call(admin, 'POST', '/admin/apps/categories/de', {
        json: { name: 'ASSEMBLY', parent_id: sequencing },
      });
      assert.equal(duplicate.status, 400, duplicate.text);
      assert.equal(duplicate.body.error_code, 'ERR_EXISTS');
      assert.equal(
        (await gw.call(admin, 'POST', '/admin/apps/categories/de', { json: { name: '' } })).status,
        400,
      );
      const orphan = await gw.call(admin, 'POST', '/admin/apps/categories/de', {
        json: { name: 'Orphan', parent_id: randomUUID() },
      });
      assert.equal(orphan.status, 400, orphan.text);
      assert.equal(
        (
          await gw.call(admin, 'POST', '/admin/apps/categories/other', {
            json: { name: 'Elsewhere' },
          })
        ).status,
        404,
      );

      // Search: any letter case, a part of the name.
      const names = ['Sequencing', 'Assembly', 'Text tools', 'imaging'];
      for (const part of ['ING', 'ss', 'tools', 'nothing like it']) {
        const found = await gw.ok(
          admin,
          'GET',
          `/admin/apps/categories/search?name=${encodeURIComponent(part)}`,
        );
        assert.deepEqual(
          found.categories.map((entry: any) => entry.name),
          names.filter((name) => name.toLowerCase().includes(part.toLowerCase())).sort(byName),
          part,
        );
      }
      assert.equal((await gw.call(admin, 'GET', '/admin/apps/categories/search')).status, 400);

      // Rename, then move Text tools below Assembly; moving Sequencing below its own descendant is refused.
      assert.equal(
        (
          await gw.ok(admin, 'PATCH', `/admin/apps/categories/de/${imaging}`, {
            json: { name: 'Imaging' },
          })
        ).name,
        'Imaging',
      );
      const moved = await gw.ok(admin, 'PATCH', `/admin/apps/categories/de/${text}`, {
        json: { parent_id: assembly },
      });
      assert.equal(moved.parent_id, assembly);
      for (const parent of [sequencing, assembly, text]) {
        const cycle = await gw.call(admin, 'PATCH', `/admin/apps/categories/de/${sequencing}`, {
          json: { parent_id: parent },
        });
        assert.equal(cycle.status, 400, cycle.text);
        assert.equal(cycle.body.error_code, 'ERR_ILLEGAL_ARGUMENT');
      }
      const clash = await gw.call(admin, 'PATCH', `/admin/apps/categories/de/${imaging}`, {
        json: { name: 'sequencing' },
      });
      assert.equal(clash.body.error_code, 'ERR_EXISTS');
      assert.equal(
        (
          await gw.call(admin, 'PATCH', `/admin/apps/categories/de/${randomUUID()}`, {
            json: { name: 'Nowhere' },
          })
        ).status,
        404,
      );

      // Place built-in apps: two in Assembly, one in Text tools and Imaging.
      const [first, second, third] = builtInApps;
      await gw.ok(admin, 'POST', '/admin/apps', {
        json: {
          categories: [
            { app_id: first!.id, category_ids: [assembly] },
            { system_id: 'de', app_id: second!.id, category_ids: [assembly] },
            { app_id: third!.id, category_ids: [text, imaging] },
          ],
        },
      });
      const missingApp = await gw.call(admin, 'POST', '/admin/apps', {
        json: { categories: [{ app_id: randomUUID(), category_ids: [assembly] }] },
      });
      assert.equal(missingApp.status, 404);
      const missingCategory = await gw.call(admin, 'POST', '/admin/apps', {
        json: { categories: [{ app_id: first!.id, category_ids: [randomUUID()] }] },
      });
      assert.equal(missingCategory.status, 404);
      assert.equal(
        (
          await gw.call(admin, 'POST', '/admin/apps', {
            json: { categories: [{ app_id: 'not-an-id', category_ids: [] }] },
          })
        ).status,
        400,
      );

      const expected: Node[] = [
        { name: 'Imaging', total: 1, categories: [] },
        {
          name: 'Sequencing',
          total: 0,
          categories: [
            {
              name: 'Assembly',
              total: 2,
              categories: [{ name: 'Text tools', total: 1, categories: [] }],
            },
          ],
        },
      ];
      const listed = await gw.ok(admin, 'GET', '/admin/apps/categories');
      assert.deepEqual(listed.categories.map(shape), expected);
      assert.deepEqual(
        (await gw.ok(admin, 'GET', '/admin/apps/categories?sort-dir=DESC')).categories.map(shape),
        [...expected].reverse(),
      );
      assert.deepEqual(
        (await gw.ok(admin, 'GET', '/admin/apps/categories?limit=1&offset=1')).categories.map(
          shape,
        ),
        expected.slice(1, 2),
      );
      assert.equal(
        (await gw.call(admin, 'GET', '/admin/apps/categories?sort-field=nonsense')).status,
        400,
      );

      // Users see the public tree among their categories, and the apps in it.
      const mine = await gw.ok('alice', 'GET', '/apps/categories?public=true');
      assert.deepEqual(mine.categories.map(shape), expected);
      const inAssembly = await gw.ok('alice', 'GET', `/apps/categories/de/${assembly}`);
      assert.equal(inAssembly.total, 2);
      assert.deepEqual(
        inAssembly.apps.map((entry: any) => entry.id),
        [first!, second!].sort((a, b) => byName(a.name, b.name)).map((entry) => entry.id),
      );
      const everything = await gw.ok('bob', 'GET', '/apps/categories');
      assert.ok(
        everything.categories.some((entry: any) => entry.name === 'Workspace'),
        'the workspace is still there',
      );
      assert.ok(
        everything.categories.some((entry: any) => entry.id === sequencing),
        'and so is the public tree',
      );

      // Deleting: refused while a category holds subcategories or apps.
      for (const [id, why] of [
        [sequencing, 'subcategories'],
        [text, 'apps'],
        [imaging, 'apps'],
      ] as const) {
        const refused = await gw.call(admin, 'DELETE', `/admin/apps/categories/de/${id}`);
        assert.equal(refused.status, 400, `${why}: ${refused.text}`);
        assert.equal(refused.body.error_code, 'ERR_ILLEGAL_ARGUMENT');
      }
      // Re-placing replaces: the third app leaves Text tools and Imaging for Assembly alone.
      await gw.ok(admin, 'POST', '/admin/apps', {
        json: { categories: [{ app_id: third!.id, category_ids: [assembly] }] },
      });
      assert.deepEqual(await gw.ok(admin, 'DELETE', `/admin/apps/categories/de/${text}`), {
        id: text,
      });
      assert.deepEqual(await gw.ok(admin, 'DELETE', `/admin/apps/categories/de/${imaging}`), {
        id: imaging,
      });
      assert.equal(
        (await gw.call(admin, 'DELETE', `/admin/apps/categories/de/${imaging}`)).status,
        404,
      );
      assert.deepEqual(
        (await gw.ok('alice', 'GET', '/apps/categories?public=true')).categories.map(shape),
        [
          {
            name: 'Sequencing',
            total: 0,
            categories: [{ name: 'Assembly', total: 3, categories: [] }],
          },
        ],
      );
      // Moving to the top level, then emptying and deleting.
      assert.equal(
        (
          await gw.ok(admin, 'PATCH', `/admin/apps/categories/de/${assembly}`, {
            json: { parent_id: null },
          })
        ).parent_id,
        null,
      );
      await gw.ok(admin, 'POST', '/admin/apps', {
        json: {
          categories: [first, second, third].map((entry) => ({
            app_id: entry!.id,
            category_ids: [],
          })),
        },
      });
      await gw.ok(admin, 'DELETE', `/admin/apps/categories/de/${assembly}`);
      await gw.ok(admin, 'DELETE', `/admin/apps/categories/de/${sequencing}`);
      assert.deepEqual((await gw.ok(admin, 'GET', '/admin/apps/categories')).categories, []);
    });

    test('app AVUs: anyone who sees the app reads them, its integrator and administrators write them', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const shared = await insertApp('alice', 'alice shared', true);
      const hidden = await insertApp('alice', 'alice hidden', false);
      const triples = (answer: any) =>
        answer.avus.map((avu: any) => [
          avu.attr,
          avu.value,
          avu.unit,
          avu.created_by,
          avu.modified_by,
        ]);

      const added = await gw.ok('alice', 'POST', `/apps/${shared}/metadata`, {
        json: {
          avus: [
            { attr: 'topic', value: 'genomics', unit: '' },
            { attr: 'size', value: '3', unit: 'GB' },
          ],
        },
      });
      assert.deepEqual(triples(added), [
        ['size', '3', 'GB', 'alice', 'alice'],
        ['topic', 'genomics', '', 'alice', 'alice'],
      ]);
      // The same triple again adds nothing; an id updates that AVU.
      const again = await gw.ok('alice', 'POST', `/apps/${shared}/metadata`, {
        json: { avus: [{ attr: 'topic', value: 'genomics' }] },
      });
      assert.equal(again.avus.length, 2);
      const size = added.avus.find((avu: any) => avu.attr === 'size');
      const updated = await gw.ok('alice', 'POST', `/apps/${shared}/metadata`, {
        json: { avus: [{ id: size.id, attr: 'size', value: '4', unit: 'GB' }] },
      });
      assert.deepEqual(triples(updated), [
        ['size', '4', 'GB', 'alice', 'alice'],
        ['topic', 'genomics', '', 'alice', 'alice'],
      ]);
      assert.equal(updated.avus[0].id, size.id);

      // Others read a public app's AVUs, not a private one's, and write neither.
      assert.deepEqual((await gw.ok('bob', 'GET', `/apps/${shared}/metadata`)).avus, updated.avus);
      assert.equal((await gw.call('bob', 'GET', `/apps/${hidden}/metadata`)).status, 404);
      const notOwner = await gw.call('bob', 'POST', `/apps/${shared}/metadata`, {
        json: { avus: [{ attr: 'x', value: 'y' }] },
      });
      assert.equal(notOwner.status, 403);
      assert.equal(notOwner.body.error_code, 'ERR_NOT_OWNER');
      assert.equal(
        (await gw.call('bob', 'PUT', `/apps/${shared}/metadata`, { json: { avus: [] } })).status,
        403,
      );
      assert.equal(
        (await gw.call('bob', 'POST', `/apps/${hidden}/metadata`, { json: { avus: [] } })).status,
        404,
      );
      const builtIn = builtInApps[0]!.id;
      assert.equal(
        (
          await gw.call('alice', 'POST', `/apps/${builtIn}/metadata`, {
            json: { avus: [{ attr: 'x', value: 'y' }] },
          })
        ).status,
        403,
        'built-in apps belong to the platform',
      );
      const badBody = await gw.call('alice', 'POST', `/apps/${shared}/metadata`, {
        json: { avus: 'topic' },
      });
      assert.equal(badBody.status, 400);
      assert.equal((await gw.call('alice', 'GET', '/apps/not-a-uuid/metadata')).status, 400);

      // PUT replaces the set.
      const replaced = await gw.ok('alice', 'PUT', `/apps/${shared}/metadata`, {
        json: { avus: [{ attr: 'topic', value: 'proteomics', unit: '' }] },
      });
      assert.deepEqual(triples(replaced), [['topic', 'proteomics', '', 'alice', 'alice']]);

      // Administrators read and write any app's, the private and the built-in ones included.
      assert.deepEqual(
        (await gw.ok(admin, 'GET', `/admin/apps/${shared}/metadata`)).avus,
        replaced.avus,
      );
      const byAdmin = await gw.ok(admin, 'POST', `/admin/apps/${hidden}/metadata`, {
        json: { avus: [{ attr: 'reviewed', value: 'yes' }] },
      });
      assert.deepEqual(triples(byAdmin), [['reviewed', 'yes', '', admin, admin]]);
      assert.deepEqual(
        (await gw.ok('alice', 'GET', `/apps/${hidden}/metadata`)).avus,
        byAdmin.avus,
        'the integrator sees them',
      );
      await gw.ok(admin, 'POST', `/admin/apps/${builtIn}/metadata`, {
        json: {
          avus: [
            { attr: 'a', value: '1' },
            { attr: 'b', value: '2' },
          ],
        },
      });
      const emptied = await gw.ok(admin, 'PUT', `/admin/apps/${builtIn}/metadata`, { json: {} });
      assert.deepEqual(emptied.avus, []);
      assert.equal(
        (await gw.call(admin, 'GET', `/admin/apps/${randomUUID()}/metadata`)).status,
        404,
      );

      // The AVUs are the metadata service's: its own route lists the same rows.
      const viaMetadata = await gw.running.gateway.forwarder.call('metadata', {
        method: 'GET',
        path: `/avus/app/${shared}`,
        identity: { username: 'alice', roles: [], groups: [] },
        identityStyle: 'user',
      });
      assert.deepEqual((JSON.parse(await viaMetadata.body.text()) as any).avus, replaced.avus);
    });

    test("the administrators' listing: every app of a subset, with job statistics", async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const marker = 'admin-listed';
      const made = [
        { name: `${marker} b public`, integrator: 'erin', isPublic: true },
        { name: `${marker} a private`, integrator: 'frank', isPublic: false },
        { name: `${marker} c private`, integrator: 'erin', isPublic: false },
      ];
      const ids = new Map<string, string>();
      for (const app of made)
        ids.set(app.name, await insertApp(app.integrator, app.name, app.isPublic));
      const gone = await insertApp('erin', `${marker} deleted`, true);
      await gw.running.gateway.store.db
        .updateTable('apps')
        .set({ deleted: true })
        .where('id', '=', gone)
        .execute();
      const expectedIds = (keep: (app: (typeof made)[number]) => boolean) =>
        made
          .filter(keep)
          .sort((a, b) => byName(a.name, b.name))
          .map((app) => ids.get(app.name));
      for (const [subset, keep] of [
        ['', (app: (typeof made)[number]) => app.isPublic],
        ['&app-subset=public', (app: (typeof made)[number]) => app.isPublic],
        ['&app-subset=private', (app: (typeof made)[number]) => !app.isPublic],
        ['&app-subset=all', () => true],
      ] as const) {
        const listing = await gw.ok(admin, 'GET', `/admin/apps?search=${marker}${subset}`);
        assert.deepEqual(
          listing.apps.map((app: any) => app.id),
          expectedIds(keep),
          subset,
        );
        assert.equal(listing.total, expectedIds(keep).length);
        for (const app of listing.apps)
          assert.deepEqual(app.job_stats, {
            job_count: 0,
            job_count_completed: 0,
            job_count_failed: 0,
          });
      }
      const page = await gw.ok(
        admin,
        'GET',
        `/admin/apps?search=${marker}&app-subset=all&limit=1&offset=1&sort-dir=desc`,
      );
      assert.deepEqual(
        page.apps.map((app: any) => app.id),
        expectedIds(() => true)
          .reverse()
          .slice(1, 2),
      );
      assert.equal((await gw.call(admin, 'GET', '/admin/apps?app-subset=mine')).status, 400);
      // Users see only their own private apps.
      assert.deepEqual(
        (await gw.ok('erin', 'GET', `/apps?search=${marker}`)).apps.map((app: any) => app.id),
        expectedIds((app) => app.integrator === 'erin'),
      );
    });

    test('workspaces: listed and deleted by username; the next request makes a fresh one', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const first = await gw.ok('carol', 'GET', '/apps/categories');
      await gw.ok('dave', 'GET', '/apps/categories');
      const workspaceId = (categories: any) =>
        categories.categories.find((entry: any) => entry.name === 'Workspace').id;

      const listed = await gw.ok(
        admin,
        'GET',
        `/admin/workspaces?username=dave&username=carol@${uidDomain}&username=nobody-here`,
      );
      assert.deepEqual(
        listed.workspaces.map((workspace: any) => workspace.username),
        [`carol@${uidDomain}`, `dave@${uidDomain}`],
      );
      assert.equal(listed.workspaces[0].root_category_id, workspaceId(first));
      assert.equal(listed.workspaces[0].is_public, false);
      const missing = await gw.call(admin, 'GET', '/admin/workspaces');
      assert.equal(missing.status, 400);

      const deleted = await gw.ok(admin, 'DELETE', '/admin/workspaces?username=carol');
      assert.deepEqual(deleted.workspaces, [listed.workspaces[0]]);
      assert.deepEqual(
        (await gw.ok(admin, 'GET', '/admin/workspaces?username=carol&username=dave')).workspaces,
        [listed.workspaces[1]],
      );
      const fresh = await gw.ok('carol', 'GET', '/apps/categories');
      assert.notEqual(workspaceId(fresh), workspaceId(first));
      assert.equal(
        (await gw.ok(admin, 'GET', '/admin/workspaces?username=carol')).workspaces[0]
          .root_category_id,
        workspaceId(fresh),
      );
    });
  });
}

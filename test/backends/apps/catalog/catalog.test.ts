// The embedded apps service's catalog through the gateway — a fresh platform lists its built-in
// apps with every required AppListingDetail field; search, sort and paging against an order
// computed here; who sees which app; launch view and details.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../../src/backends/apps/catalog/built-in.ts';
import { requiredInCi } from '../../../support/gateway.ts';
import { startMetadataGateway, type MetadataGateway } from '../../../support/metadata-gateway.ts';

const requiredListingFields: Record<string, string> = {
  id: 'string',
  name: 'string',
  description: 'string',
  app_type: 'string',
  integrator_name: 'string',
  integrator_email: 'string',
  deleted: 'boolean',
  disabled: 'boolean',
  is_public: 'boolean',
  can_favor: 'boolean',
  can_rate: 'boolean',
  can_run: 'boolean',
  step_count: 'number',
  permission: 'string',
  pipeline_eligibility: 'object',
  rating: 'object',
};

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`app catalog (${engine})`, () => {
    let gw: MetadataGateway;
    const privateApp = {
      id: randomUUID(),
      name: 'alice private aligner',
      description: 'aligns reads privately',
    };
    before(async () => {
      const started = await startMetadataGateway({ engine });
      if (!started) return;
      gw = started;
      await gw.ok('alice', 'GET', '/apps'); // the service is up and has installed its apps
      const db = gw.running.gateway.store.db;
      const now = Date.now();
      await db
        .insertInto('apps')
        .values({
          ...privateApp,
          integrator: 'alice',
          integrator_name: 'Alice',
          integrator_email: 'alice@example.org',
          integration_date: now,
          edited_date: now,
        })
        .execute();
      await db
        .insertInto('app_versions')
        .values({
          id: randomUUID(),
          app_id: privateApp.id,
          version: '0.1',
          version_order: 1,
          definition: JSON.stringify({
            steps: [{ id: randomUUID(), name: 'align', tool_id: null }],
            groups: [],
          }),
          created_by: 'alice',
          created_on: now,
        })
        .execute();
      const gone = randomUUID();
      await db
        .insertInto('apps')
        .values({
          id: gone,
          name: 'deleted public app',
          description: '',
          integrator: 'carol',
          is_public: true,
          deleted: true,
          integration_date: now,
          edited_date: now,
        })
        .execute();
      await db
        .insertInto('app_ratings')
        .values([
          {
            username: 'alice',
            app_id: builtInApps[1]!.id,
            rating: 5,
            comment_id: null,
            rated_on: now,
          },
          {
            username: 'bob',
            app_id: builtInApps[1]!.id,
            rating: 2,
            comment_id: null,
            rated_on: now,
          },
          {
            username: 'bob',
            app_id: builtInApps[3]!.id,
            rating: 4,
            comment_id: null,
            rated_on: now,
          },
        ])
        .execute();
      await db
        .insertInto('app_favorites')
        .values({ username: 'alice', app_id: builtInApps[2]!.id, created_on: now })
        .execute();
    });
    after(async () => gw?.close());
    const skip = () => !gw && engine === 'postgres' && !requiredInCi('DATABASE_URL');

    test('a fresh platform lists its built-in apps with every required listing field', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const listing = await gw.ok('bob', 'GET', '/apps');
      assert.equal(listing.total, builtInApps.length);
      assert.deepEqual(
        listing.apps.map((app: any) => app.name),
        builtInApps.map((app) => app.name).sort((a, b) => a.localeCompare(b)),
      );
      for (const app of listing.apps) {
        for (const [field, type] of Object.entries(requiredListingFields))
          assert.equal(typeof app[field], type, `${app.name}.${field}`);
        assert.equal(app.can_run, true);
        assert.equal(app.step_count, 1);
        assert.equal(app.permission, 'read');
        assert.deepEqual(app.limitChecks, { canRun: true, results: [] });
        assert.deepEqual(app.pipeline_eligibility, { is_valid: true, reason: '' });
        assert.match(app.integration_date, /^\d{4}-\d{2}-\d{2}T/);
      }
      // Anonymous visitors see the public catalog but may not favour or rate.
      const anonymous = await gw.ok(null, 'GET', '/apps');
      assert.equal(anonymous.total, builtInApps.length);
      assert.equal(
        anonymous.apps.every((app: any) => !app.can_favor && !app.can_rate),
        true,
      );
    });

    test('ratings and favourites show per user', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const byName = (listing: any) =>
        Object.fromEntries(listing.apps.map((app: any) => [app.name, app]));
      const alice = byName(await gw.ok('alice', 'GET', '/apps'));
      assert.deepEqual(alice['Word count'].rating, { average: 3.5, total: 2, user: 5 });
      assert.deepEqual(alice['Checksum'].rating, { average: 4, total: 1 });
      assert.deepEqual(alice['URL import'].rating, { average: 0, total: 0 });
      assert.equal(alice['Concatenate'].is_favorite, true);
      assert.equal(byName(await gw.ok('bob', 'GET', '/apps'))['Concatenate'].is_favorite, false);
    });

    test('a user sees their own private apps, others do not; deleted apps are hidden', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const alice = await gw.ok('alice', 'GET', '/apps?search=aligner');
      assert.equal(alice.total, 1);
      assert.equal(alice.apps[0].permission, 'own');
      assert.equal(alice.apps[0].can_run, false, 'a step without a tool cannot run');
      assert.equal(alice.apps[0].pipeline_eligibility.is_valid, false);
      assert.equal((await gw.ok('bob', 'GET', '/apps?search=aligner')).total, 0);
      assert.equal((await gw.ok('alice', 'GET', '/apps?search=deleted')).total, 0);
      assert.equal((await gw.call('bob', 'GET', `/apps/de/${privateApp.id}`)).status, 404);
    });

    test('search, sort fields, directions and paging against a computed order', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const all = (await gw.ok('alice', 'GET', '/apps')).apps as any[];
      assert.equal(all.length, builtInApps.length + 1);
      const compare: Record<string, (a: any, b: any) => number> = {
        name: (a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()),
        average_rating: (a, b) => a.rating.average - b.rating.average,
      };
      for (const field of Object.keys(compare)) {
        for (const dir of ['ASC', 'desc']) {
          const expected = [...all].sort(
            (a, b) =>
              (compare[field]!(a, b) || a.id.localeCompare(b.id)) * (dir === 'desc' ? -1 : 1),
          );
          const sorted = await gw.ok('alice', 'GET', `/apps?sort-field=${field}&sort-dir=${dir}`);
          assert.deepEqual(
            sorted.apps.map((app: any) => app.id),
            expected.map((app) => app.id),
            `${field} ${dir}`,
          );
          for (const [limit, offset] of [
            [2, 0],
            [2, 2],
            [3, 4],
            [10, 1],
          ] as const) {
            const page = await gw.ok(
              'alice',
              'GET',
              `/apps?sort-field=${field}&sort-dir=${dir}&limit=${limit}&offset=${offset}`,
            );
            assert.equal(page.total, all.length);
            assert.deepEqual(
              page.apps.map((app: any) => app.id),
              expected.slice(offset, offset + limit).map((app) => app.id),
              `${field} ${dir} ${limit}@${offset}`,
            );
          }
        }
      }
      const search = async (term: string) =>
        (await gw.ok('alice', 'GET', `/apps?search=${encodeURIComponent(term)}`)).apps
          .map((app: any) => app.name)
          .sort();
      assert.deepEqual(await search('COUNT'), ['Word count']);
      assert.deepEqual(await search('sha-256'), ['Checksum'], 'descriptions are searched too');
      assert.deepEqual(await search('100%'), []);
      assert.equal((await gw.ok('alice', 'GET', '/apps?app-type=DE')).total, all.length);
      assert.equal((await gw.ok('alice', 'GET', '/apps?app-type=External')).total, 0);
      for (const bad of ['sort-field=colour', 'sort-dir=sideways', 'limit=-1', 'offset=x']) {
        const answer = await gw.call('alice', 'GET', `/apps?${bad}`);
        assert.equal(answer.status, 400, bad);
        assert.equal(answer.body.error_code, 'ERR_BAD_QUERY_PARAMETER');
      }
    });

    test('favourites and ratings through the gateway', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const wordCount = builtInApps[1]!;
      const route = `/apps/de/${wordCount.id}`;
      const favorite = async (user: string) =>
        (await gw.ok(user, 'GET', `${route}/listing`)).apps[0].is_favorite;
      await gw.ok('dora', 'PUT', `${route}/favorite`);
      await gw.ok('dora', 'PUT', `${route}/favorite`);
      assert.equal(await favorite('dora'), true);
      assert.equal(await favorite('ed'), false);
      await gw.ok('dora', 'DELETE', `${route}/favorite`);
      assert.equal(await favorite('dora'), false);

      const before = (await gw.ok('dora', 'GET', `${route}/listing`)).apps[0].rating;
      const rated = await gw.ok('dora', 'POST', `${route}/rating`, { json: { rating: 1 } });
      assert.deepEqual(rated, {
        average: Number(((before.average * before.total + 1) / (before.total + 1)).toFixed(2)),
        total: before.total + 1,
      });
      const changed = await gw.ok('dora', 'POST', `${route}/rating`, { json: { rating: 3 } });
      assert.equal(changed.total, before.total + 1, 'rating again replaces the rating');
      assert.equal((await gw.ok('dora', 'GET', `${route}/listing`)).apps[0].rating.user, 3);
      assert.deepEqual(await gw.ok('dora', 'DELETE', `${route}/rating`), before);
      for (const rating of [0, 6, 2.5, '4', null]) {
        const answer = await gw.call('dora', 'POST', `${route}/rating`, { json: { rating } });
        assert.equal(answer.status, 400, String(rating));
        assert.equal(answer.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      }
      assert.equal(
        (await gw.call('dora', 'PUT', `/apps/de/${privateApp.id}/favorite`)).status,
        404,
        "another user's private app",
      );
      assert.equal((await gw.call(null, 'PUT', `${route}/favorite`)).status, 401);
    });

    test("categories: the caller's workspace, the virtual ones and the public ones, each listing its apps", async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const db = gw.running.gateway.store.db;
      const utilities = randomUUID();
      await db
        .insertInto('app_categories')
        .values({ id: utilities, name: 'Data utilities', is_public: true, created_on: Date.now() })
        .execute();
      await db
        .insertInto('app_category_apps')
        .values(
          [builtInApps[2]!.id, builtInApps[3]!.id].map((app_id) => ({
            category_id: utilities,
            app_id,
          })),
        )
        .execute();

      const { categories } = await gw.ok('alice', 'GET', '/apps/categories');
      const flat = (list: any[]): any[] =>
        list.flatMap((category) => [category, ...flat(category.categories ?? [])]);
      const byName = Object.fromEntries(
        flat(categories).map((category) => [category.name, category]),
      );
      assert.deepEqual(
        categories.map((category: any) => category.name),
        ['Workspace', 'My public apps', 'Shared with me', 'Featured Apps', 'Data utilities'],
      );
      assert.deepEqual(
        byName['Workspace'].categories.map((category: any) => category.name),
        ['Apps under development', 'Favorite Apps'],
      );
      assert.equal(byName['Apps under development'].total, 1);
      assert.equal(byName['Favorite Apps'].total, 1);
      assert.equal(byName['Workspace'].total, 2);
      assert.equal(byName['My public apps'].total, 0);
      assert.equal(byName['Shared with me'].total, 0);
      assert.equal(byName['Featured Apps'].total, builtInApps.length);
      assert.equal(byName['Data utilities'].total, 2);

      const listed = async (user: string, id: string, query = '') =>
        gw.ok(user, 'GET', `/apps/categories/de/${id}${query}`);
      assert.deepEqual(
        (await listed('alice', byName['Apps under development'].id)).apps.map((app: any) => app.id),
        [privateApp.id],
      );
      assert.deepEqual(
        (await listed('alice', byName['Favorite Apps'].id)).apps.map((app: any) => app.id),
        [builtInApps[2]!.id],
      );
      const page = await listed(
        'alice',
        utilities,
        '?sort-field=name&sort-dir=desc&limit=1&offset=1',
      );
      assert.equal(page.total, 2);
      assert.deepEqual(
        page.apps.map((app: any) => app.name),
        ['Checksum'],
      );
      assert.equal(page.name, 'Data utilities');

      // Workspaces are per user; public categories are everyone's.
      const bob = await gw.ok('bob', 'GET', '/apps/categories');
      assert.notEqual(bob.categories[0].id, categories[0].id);
      assert.equal(
        (await gw.call('bob', 'GET', `/apps/categories/de/${byName['Apps under development'].id}`))
          .status,
        404,
      );
      assert.deepEqual(
        (await gw.ok('bob', 'GET', '/apps/categories?public=true')).categories.map(
          (category: any) => category.name,
        ),
        ['Data utilities'],
      );
      assert.equal(
        (await gw.call('bob', 'GET', `/apps/categories/de/${randomUUID()}`)).status,
        404,
      );
    });

    test('element types: every parameter type the built-in apps use is offered', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const all = await gw.ok('bob', 'GET', '/apps/elements');
      const offered = new Set(all.parameter_types.map((type: any) => type.name));
      for (const app of builtInApps)
        for (const group of app.definition.groups)
          for (const parameter of group.parameters)
            assert.ok(offered.has(parameter.type), parameter.type);
      assert.deepEqual(
        (await gw.ok('bob', 'GET', '/apps/elements/tool-types')).tool_types.map(
          (type: any) => type.name,
        ),
        all.tool_types.map((type: any) => type.name),
      );
      const unknown = await gw.call('bob', 'GET', '/apps/elements/colours');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error_code, 'ERR_NOT_FOUND');
    });

    test('the launch view and the details of a built-in app', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const checksum = builtInApps[3]!;
      const view = await gw.ok('bob', 'GET', `/apps/de/${checksum.id}`);
      assert.equal(view.label, view.name);
      assert.equal(view.version_id, checksum.versionId);
      assert.deepEqual(view.versions, [{ version: '1.0', version_id: checksum.versionId }]);
      const stepId = checksum.definition.steps[0]!.id;
      assert.deepEqual(
        view.groups.flatMap((group: any) =>
          group.parameters.map((parameter: any) => [
            group.step_number,
            parameter.id,
            parameter.type,
            parameter.required,
          ]),
        ),
        checksum.definition.groups.flatMap((group) =>
          group.parameters.map((parameter) => [
            1,
            `${stepId}_${parameter.id}`,
            parameter.type,
            parameter.required,
          ]),
        ),
      );
      const details = await gw.ok('bob', 'GET', `/apps/de/${checksum.id}/details`);
      assert.deepEqual(
        details.tools.map((tool: any) => tool.name),
        ['checksum'],
      );
      assert.deepEqual(details.references, []);
      assert.equal(details.rating.total, 1);
      const listing = await gw.ok('bob', 'GET', `/apps/de/${checksum.id}/listing`);
      assert.deepEqual(
        listing.apps.map((app: any) => app.id),
        [checksum.id],
      );
      assert.equal((await gw.call('bob', 'GET', `/apps/de/${randomUUID()}`)).status, 404);
      assert.equal((await gw.call('bob', 'GET', `/apps/extapi/${checksum.id}`)).status, 404);

      // Administrators see any app's details, a private one too, with all job statistics and the documentation.
      const admin = await gw.ok('root', 'GET', `/admin/apps/de/${privateApp.id}/details`);
      assert.equal(admin.name, privateApp.name);
      assert.deepEqual(admin.job_stats, {
        job_count: 0,
        job_count_completed: 0,
        job_count_failed: 0,
      });
      assert.deepEqual(admin.documentation.documentation, '');
      assert.deepEqual(admin.extra, {});
      assert.equal(
        (await gw.call('bob', 'GET', `/admin/apps/de/${privateApp.id}/details`)).status,
        403,
      );
      assert.equal(
        (await gw.call('root', 'GET', `/admin/apps/de/${randomUUID()}/details`)).status,
        404,
      );
    });
  });
}

// Subscriptions and usage on the embedded QMS, through the gateway on each engine, with the calls
// and fields of the web UI and the command-line client (clients.md §6): plans and resource types,
// a user's plan (Basic on first sight), add-ons created, listed, updated and deleted, subscriptions
// listed (search, sort, paging) and created in the request's order (unknown users refusing the
// whole request), add-ons applied to a subscription raising its quota (then changed and removed),
// quotas set (the CLI's number, or a numeric string), plans changed (names in any letter case),
// usages added and set, and the usage summary and current data usage answering from those records;
// a user asked about by several requests at once is given one subscription.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engines, skipWithout } from '../support/postgres.ts';
import type { DataStoreGateway } from '../support/data-store.ts';
import { admin, startQmsGateway } from '../support/qms.ts';

for (const engine of engines) {
  describe(`subscriptions and usage (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: DataStoreGateway;
    before(async () => {
      gw = (await startQmsGateway({ engine }))!;
      // Users the platform has seen (their first authenticated call).
      for (const user of ['alice', 'bob', 'carol', 'dave', admin])
        await gw.ok(user, 'GET', '/qms/resource-types');
    });
    after(async () => gw?.close());

    const quotaOf = (plan: any, name: string) =>
      plan.quotas.find((each: any) => each.resource_type.name === name)?.quota;

    test("plans, resource types and a user's plan, as the web UI and CLI read them", async () => {
      const plans = await gw.ok(null, 'GET', '/qms/plans');
      assert.deepEqual(
        plans.result.map((each: any) => each.name),
        ['Basic', 'Commercial', 'Pro', 'Regular'],
      );
      const basic = plans.result.find((each: any) => each.name === 'Basic');
      assert.deepEqual(
        basic.plan_quota_defaults.map((each: any) => each.resource_type.name),
        ['cpu.hours', 'data.size'],
      );
      assert.equal((await gw.ok(null, 'GET', `/qms/plans/${basic.id}`)).result.name, 'Basic');
      assert.equal((await gw.ok(null, 'GET', '/qms/plans/basic')).result.id, basic.id);
      const missing = await gw.call(null, 'GET', '/qms/plans/no-such-plan');
      assert.equal(missing.status, 404, missing.text);
      assert.equal(missing.body.error_code, 'ERR_NOT_FOUND');

      const types = await gw.ok('alice', 'GET', '/qms/resource-types');
      assert.deepEqual(
        types.result.map((each: any) => [each.name, each.unit]),
        [
          ['cpu.hours', 'cpu hours'],
          ['data.size', 'bytes'],
        ],
      );

      const mine = await gw.ok('alice', 'GET', '/qms/user/plan');
      assert.equal(mine.result.plan.name, 'Basic');
      assert.equal(mine.result.user.username, 'alice');
      assert.ok(Date.parse(mine.result.effective_start_date) <= Date.now());
      assert.ok(Date.parse(mine.result.effective_end_date) > Date.now());
      assert.equal(quotaOf(mine.result, 'cpu.hours'), 20);
      assert.deepEqual(mine.result.usages, []);
      // The same subscription, asked again.
      assert.equal((await gw.ok('alice', 'GET', '/qms/user/plan')).result.id, mine.result.id);
      const listed = await gw.ok('alice', 'GET', '/qms/user/subscriptions');
      assert.deepEqual(
        listed.result.subscriptions.map((each: any) => each.id),
        [mine.result.id],
      );
      assert.equal(
        (await gw.ok(admin, 'GET', '/admin/qms/users/alice/plan')).result.plan.name,
        'Basic',
      );
      const notAdmin = await gw.call('alice', 'GET', '/admin/qms/users/alice/plan');
      assert.equal(notAdmin.status, 403, notAdmin.text);
      const anonymous = await gw.call(null, 'GET', '/qms/user/plan');
      assert.equal(anonymous.status, 401, anonymous.text);
    });

    test('a user asked about many times at once gets one subscription', async () => {
      await gw.ok('erin', 'GET', '/qms/resource-types');
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          gw.ok('erin', 'GET', index % 2 ? '/qms/user/plan' : '/resource-usage/summary'),
        ),
      );
      const ids = answers.map((answer) => (answer.result ?? answer.subscription).id);
      assert.equal(new Set(ids).size, 1, JSON.stringify(ids));
      assert.equal(
        (await gw.ok('erin', 'GET', '/qms/user/subscriptions')).result.subscriptions.length,
        1,
      );
    });

    test("the CLI: a user's plan changed and a quota set", async () => {
      const changed = await gw.ok(admin, 'PUT', '/admin/qms/users/bob/plan/pro');
      assert.equal(changed.result.plan.name, 'Pro');
      assert.equal(changed.result.paid, true);
      assert.equal((await gw.ok('bob', 'GET', '/qms/user/plan')).result.plan.name, 'Pro');
      const back = await gw.ok(admin, 'PUT', '/admin/qms/users/bob/plan/Basic');
      assert.equal(back.result.plan.name, 'Basic');
      assert.equal(
        (await gw.ok(admin, 'GET', '/admin/qms/users/bob/subscriptions')).result.subscriptions
          .length,
        2,
      );

      const set = await gw.ok(admin, 'POST', '/admin/qms/users/bob/plan/cpu.hours/quota', {
        json: { quota: 42 },
      });
      assert.equal(set.result.quota, 42);
      assert.equal(set.result.resource_type.name, 'cpu.hours');
      const asText = await gw.ok(admin, 'POST', '/admin/qms/users/bob/plan/data.size/quota', {
        json: { quota: '1000' },
      });
      assert.equal(asText.result.quota, 1000);
      const plan = (await gw.ok('bob', 'GET', '/qms/user/plan')).result;
      assert.equal(quotaOf(plan, 'cpu.hours'), 42);
      assert.equal(quotaOf(plan, 'data.size'), 1000);

      for (const [route, body, status] of [
        ['/admin/qms/users/bob/plan/cpu.hours/quota', { quota: 'lots' }, 400],
        ['/admin/qms/users/bob/plan/gpu.hours/quota', { quota: 1 }, 404],
        ['/admin/qms/users/nobody/plan/cpu.hours/quota', { quota: 1 }, 404],
      ] as const) {
        const refused = await gw.call(admin, 'POST', route, { json: body });
        assert.equal(refused.status, status, `${route}: ${refused.text}`);
        assert.ok(refused.body.error_code, refused.text);
      }
      const noPlan = await gw.call(admin, 'PUT', '/admin/qms/users/bob/plan/Platinum');
      assert.equal(noPlan.status, 404, noPlan.text);
    });

    test('add-ons: created, listed, updated, applied to a subscription, changed, removed, deleted', async () => {
      const created = await gw.ok(admin, 'POST', '/admin/qms/addons', {
        json: {
          name: '1000 CPU hours',
          description: 'More CPU',
          resource_type: { name: 'cpu.hours', unit: 'cpu hours' },
          default_amount: 1000,
          default_paid: true,
        },
      });
      const uuid = created.addon.uuid;
      assert.ok(uuid);
      assert.equal(created.addon.resource_type.name, 'cpu.hours');
      const again = await gw.call(admin, 'POST', '/admin/qms/addons', {
        json: { ...created.addon, uuid: undefined, addon_rates: [] },
      });
      assert.equal(again.status, 400, again.text);
      assert.equal(again.body.error_code, 'ERR_EXISTS');

      const updated = await gw.ok(admin, 'PUT', '/admin/qms/addons', {
        json: { uuid, description: 'Much more CPU' },
      });
      assert.equal(updated.addon.description, 'Much more CPU');
      assert.equal(updated.addon.name, '1000 CPU hours');
      assert.equal(updated.addon.default_amount, 1000);
      const listed = await gw.ok(admin, 'GET', '/admin/qms/addons');
      assert.deepEqual(
        listed.addons.map((each: any) => [each.uuid, each.description]),
        [[uuid, 'Much more CPU']],
      );

      const subscription = (await gw.ok(admin, 'GET', '/admin/qms/users/carol/plan')).result;
      const applied = await gw.ok(
        admin,
        'POST',
        `/admin/qms/subscriptions/${subscription.id}/addons`,
        { json: { uuid } },
      );
      const appliedId = applied.subscription_addon.uuid;
      assert.equal(applied.subscription_addon.amount, 1000);
      assert.equal(applied.subscription_addon.paid, true);
      assert.equal(
        quotaOf((await gw.ok('carol', 'GET', '/qms/user/plan')).result, 'cpu.hours'),
        1020,
      );
      const onIt = await gw.ok(admin, 'GET', `/admin/qms/subscriptions/${subscription.id}/addons`);
      assert.deepEqual(
        onIt.subscription_addons.map((each: any) => each.addon.uuid),
        [uuid],
      );
      const summary = await gw.ok('carol', 'GET', '/resource-usage/summary');
      assert.deepEqual(
        summary.subscription.addons.map((each: any) => each.addon.resource_type.name),
        ['cpu.hours'],
      );

      const changed = await gw.ok(
        admin,
        'PUT',
        `/admin/qms/subscriptions/${subscription.id}/addons/${appliedId}`,
        { json: { amount: 500, paid: false } },
      );
      assert.equal(changed.subscription_addon.amount, 500);
      assert.equal(changed.subscription_addon.paid, false);
      assert.equal(
        quotaOf((await gw.ok('carol', 'GET', '/qms/user/plan')).result, 'cpu.hours'),
        520,
      );
      assert.equal(
        (
          await gw.ok(
            admin,
            'GET',
            `/admin/qms/subscriptions/${subscription.id}/addons/${appliedId}`,
          )
        ).subscription_addon.amount,
        500,
      );

      const inUse = await gw.call(admin, 'DELETE', `/admin/qms/addons/${uuid}`);
      assert.equal(inUse.status, 400, inUse.text);
      await gw.ok(
        admin,
        'DELETE',
        `/admin/qms/subscriptions/${subscription.id}/addons/${appliedId}`,
      );
      assert.equal(
        quotaOf((await gw.ok('carol', 'GET', '/qms/user/plan')).result, 'cpu.hours'),
        20,
      );
      const gone = await gw.call(
        admin,
        'GET',
        `/admin/qms/subscriptions/${subscription.id}/addons/${appliedId}`,
      );
      assert.equal(gone.status, 404, gone.text);
      await gw.ok(admin, 'DELETE', `/admin/qms/addons/${uuid}`);
      assert.deepEqual((await gw.ok(admin, 'GET', '/admin/qms/addons')).addons, []);
      const unknown = await gw.call(
        admin,
        'POST',
        `/admin/qms/subscriptions/${subscription.id}/addons`,
        {
          json: { uuid },
        },
      );
      assert.equal(unknown.status, 404, unknown.text);
    });

    test('subscriptions: created in the request order, unknown users refusing all; listed, searched, sorted, paged', async () => {
      const refused = await gw.call(admin, 'POST', '/admin/qms/subscriptions', {
        json: {
          subscriptions: [
            { username: 'dave', plan_name: 'Regular' },
            { username: 'nobody-here', plan_name: 'Pro' },
          ],
        },
      });
      assert.equal(refused.status, 400, refused.text);
      assert.deepEqual(refused.body.users, ['nobody-here']);
      assert.equal((await gw.ok('dave', 'GET', '/qms/user/plan')).result.plan.name, 'Basic');

      const created = await gw.ok(admin, 'POST', '/admin/qms/subscriptions', {
        json: {
          subscriptions: [
            { username: 'dave', plan_name: 'Regular', paid: false },
            { username: 'alice', plan_name: 'commercial' },
            { username: 'carol', plan_name: 'Pro' },
          ],
        },
      });
      assert.deepEqual(
        created.result.subscriptions.map((each: any) => [
          each.user.username,
          each.plan.name,
          each.paid,
        ]),
        [
          ['dave', 'Regular', false],
          ['alice', 'Commercial', true],
          ['carol', 'Pro', true],
        ],
      );
      assert.equal((await gw.ok('alice', 'GET', '/qms/user/plan')).result.plan.name, 'Commercial');

      const searched = await gw.ok(admin, 'GET', '/admin/qms/subscriptions?search=DAV');
      assert.ok(searched.result.subscriptions.length >= 2);
      assert.ok(searched.result.subscriptions.every((each: any) => each.user.username === 'dave'));
      const all = await gw.ok(
        admin,
        'GET',
        '/admin/qms/subscriptions?sort-field=username&sort-dir=desc&limit=100&offset=0',
      );
      const names = all.result.subscriptions.map((each: any) => each.user.username);
      assert.deepEqual(names, [...names].sort().reverse());
      assert.equal(all.result.total, names.length);
      const page = await gw.ok(
        admin,
        'GET',
        '/admin/qms/subscriptions?sort-field=username&sort-dir=desc&limit=2&offset=1',
      );
      assert.deepEqual(
        page.result.subscriptions.map((each: any) => each.id),
        all.result.subscriptions.slice(1, 3).map((each: any) => each.id),
      );
      assert.equal(page.result.total, all.result.total);
      const badSort = await gw.call(admin, 'GET', '/admin/qms/subscriptions?sort-field=colour');
      assert.equal(badSort.status, 400, badSort.text);
    });

    test('usages added and set; the summary and current data usage answer from them', async () => {
      await gw.ok(admin, 'POST', '/admin/qms/usages', {
        json: {
          username: 'dave',
          resource_name: 'cpu.hours',
          usage_value: 1.5,
          update_type: 'ADD',
        },
      });
      const added = await gw.ok(admin, 'POST', '/admin/qms/usages', {
        json: { username: 'dave', resource_name: 'cpu.hours', usage_value: 2, update_type: 'ADD' },
      });
      assert.equal(added.result.usage, 3.5);
      await gw.ok(admin, 'POST', '/admin/qms/usages', {
        json: {
          username: 'dave',
          resource_name: 'data.size',
          usage_value: 999,
          update_type: 'SET',
        },
      });
      await gw.ok(admin, 'POST', '/admin/qms/usages', {
        json: {
          username: 'dave',
          resource_name: 'data.size',
          usage_value: 4096,
          update_type: 'SET',
        },
      });
      const usages = await gw.ok('dave', 'GET', '/qms/user/usages');
      assert.deepEqual(
        usages.result.map((each: any) => [each.resource_type.name, each.usage]),
        [
          ['cpu.hours', 3.5],
          ['data.size', 4096],
        ],
      );
      assert.deepEqual(
        (await gw.ok(admin, 'GET', '/admin/qms/users/dave/usages')).result,
        usages.result,
      );
      const summary = await gw.ok('dave', 'GET', '/resource-usage/summary');
      assert.equal(summary.cpu_usage.total, 3.5);
      assert.equal(summary.data_usage.total, 4096);
      assert.equal(summary.subscription.plan.name, 'Regular');
      assert.ok(summary.subscription.quotas.every((each: any) => typeof each.quota === 'number'));
      assert.ok(
        summary.subscription.quotas.some((each: any) => each.resource_type.name === 'data.size'),
      );
      assert.deepEqual(summary.errors, []);
      const current = await gw.ok('dave', 'GET', '/resource-usage/data/current');
      assert.equal(current.total, 4096);
      assert.equal(current.unit, 'bytes');

      for (const body of [
        { username: 'dave', resource_name: 'cpu.hours', usage_value: 1, update_type: 'MULTIPLY' },
        { username: 'dave', resource_name: 'cpu.hours', usage_value: -1, update_type: 'ADD' },
        { username: 'dave', resource_name: 'cpu.hours', update_type: 'ADD' },
      ]) {
        const bad = await gw.call(admin, 'POST', '/admin/qms/usages', { json: body });
        assert.equal(bad.status, 400, bad.text);
      }
      const unknownType = await gw.call(admin, 'POST', '/admin/qms/usages', {
        json: { username: 'dave', resource_name: 'gpu.hours', usage_value: 1, update_type: 'ADD' },
      });
      assert.equal(unknownType.status, 404, unknownType.text);
    });
  });
}

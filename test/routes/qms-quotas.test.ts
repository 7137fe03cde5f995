// Quotas that hold, on each engine, with SUBSCRIPTIONS_ENFORCE=true: an upload through the gateway
// is recorded as the user's data.size usage (the bytes of their data), which the usage summary and
// current data usage report; a user whose data.size quota is reached is refused uploads and saves
// with ERR_QUOTA_EXCEEDED until an add-on applied to their subscription raises it; a finished
// analysis is recorded as cpu.hours usage, and a user whose cpu.hours quota is reached is refused
// launches with ERR_QUOTA_EXCEEDED until an add-on raises it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../src/backends/apps/catalog/built-in.ts';
import { endedAnalysis } from '../support/analyses.ts';
import type { DataStoreGateway } from '../support/data-store.ts';
import { eventually } from '../support/fileio.ts';
import { engines, skipWithout } from '../support/postgres.ts';
import { admin, startQmsGateway } from '../support/qms.ts';

const wordCount = builtInApps[1]!;
const inputKey = (() => {
  const parameter = wordCount.definition.groups
    .flatMap((group) => group.parameters)
    .find((candidate) => candidate.name === 'input')!;
  return `${wordCount.definition.steps[0]!.id}_${parameter.id}`;
})();

for (const engine of engines) {
  describe(`quotas enforced (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: DataStoreGateway;
    before(async () => {
      gw = (await startQmsGateway({ engine, env: { SUBSCRIPTIONS_ENFORCE: 'true' } }))!;
    });
    after(async () => gw?.close());

    const usageOf = async (user: string, name: string) =>
      (await gw.ok(user, 'GET', '/qms/user/usages')).result.find(
        (each: any) => each.resource_type.name === name,
      )?.usage;
    const setQuota = (user: string, name: string, quota: number) =>
      gw.ok(admin, 'POST', `/admin/qms/users/${user}/plan/${name}/quota`, { json: { quota } });
    /** Applies a new add-on of `amount` of `name` to the user's subscription. */
    const addOn = async (user: string, name: string, amount: number) => {
      const { addon } = await gw.ok(admin, 'POST', '/admin/qms/addons', {
        json: {
          name: `${user} ${name}`,
          description: `More ${name}`,
          resource_type: name,
          default_amount: amount,
          default_paid: false,
        },
      });
      const subscription = (await gw.ok(admin, 'GET', `/admin/qms/users/${user}/plan`)).result;
      await gw.ok(admin, 'POST', `/admin/qms/subscriptions/${subscription.id}/addons`, {
        json: { uuid: addon.uuid },
      });
    };

    test('data.size: an upload recorded, the quota reached refusing uploads and saves, an add-on lifting it', async () => {
      const home = gw.home('alice');
      const first = await gw.uploadThroughGateway('alice', home, 'first.txt', 'x'.repeat(300));
      assert.equal(first.status, 200, first.text);
      // Recorded once the upload has been answered.
      assert.equal(
        await eventually(async () => (await usageOf('alice', 'data.size')) === 300 && 300),
        300,
      );
      const summary = await gw.ok('alice', 'GET', '/resource-usage/summary');
      assert.equal(summary.data_usage.total, 300);
      assert.equal((await gw.ok('alice', 'GET', '/resource-usage/data/current')).total, 300);

      await setQuota('alice', 'data.size', 250);
      const refused = await gw.uploadThroughGateway('alice', home, 'second.txt', 'more');
      assert.equal(refused.body?.error_code, 'ERR_QUOTA_EXCEEDED', refused.text);
      assert.equal(refused.body.resource_type, 'data.size');
      assert.equal(await gw.stat('alice', `${home}/second.txt`), undefined);
      const save = await gw.call('alice', 'POST', '/secured/fileio/save', {
        json: { dest: `${home}/first.txt`, content: 'shorter' },
      });
      assert.equal(save.body?.error_code, 'ERR_QUOTA_EXCEEDED', save.text);
      const saveAs = await gw.call('alice', 'POST', '/secured/fileio/saveas', {
        json: { dest: `${home}/third.txt`, content: 'new' },
      });
      assert.equal(saveAs.body?.error_code, 'ERR_QUOTA_EXCEEDED', saveAs.text);

      await addOn('alice', 'data.size', 10_000);
      const plan = (await gw.ok('alice', 'GET', '/qms/user/plan')).result;
      assert.equal(
        plan.quotas.find((each: any) => each.resource_type.name === 'data.size').quota,
        10_250,
      );
      const lifted = await gw.uploadThroughGateway('alice', home, 'second.txt', 'more');
      assert.equal(lifted.status, 200, lifted.text);
      assert.ok(await gw.stat('alice', `${home}/second.txt`));
      await eventually(async () => (await usageOf('alice', 'data.size')) === 304);
      assert.equal((await gw.ok('alice', 'GET', '/resource-usage/data/current')).total, 304);
      // Another user is not held back by alice's quota.
      const other = await gw.uploadThroughGateway('bob', gw.home('bob'), 'b.txt', 'bob');
      assert.equal(other.status, 200, other.text);
    });

    test('cpu.hours: a finished analysis recorded, the quota reached refusing launches, an add-on lifting it', async () => {
      const home = gw.home('carol');
      await gw.upload('carol', home, 'words.txt', 'one two three');
      const launch = () =>
        gw.call('carol', 'POST', '/analyses', {
          json: {
            system_id: 'de',
            app_id: wordCount.id,
            name: 'carol counts',
            output_dir: home,
            config: { [inputKey]: `${home}/words.txt` },
          },
        });
      const first = await launch();
      assert.equal(first.status, 200, first.text);
      assert.equal((await endedAnalysis(gw, 'carol', first.body.id)).status, 'Completed');
      const used = await eventually(() => usageOf('carol', 'cpu.hours'));
      assert.ok(used > 0 && used < 1, String(used));
      const summary = await gw.ok('carol', 'GET', '/resource-usage/summary');
      assert.equal(summary.cpu_usage.total, used);

      await setQuota('carol', 'cpu.hours', used / 2);
      const refused = await launch();
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.body.error_code, 'ERR_QUOTA_EXCEEDED');
      assert.equal(refused.body.resource_type, 'cpu.hours');
      const relaunch = await gw.call('carol', 'POST', '/analyses/relauncher', {
        json: { analyses: [first.body.id] },
      });
      assert.equal(relaunch.body?.error_code, 'ERR_QUOTA_EXCEEDED', relaunch.text);
      assert.equal((await gw.ok('carol', 'GET', '/analyses')).total, 1);

      await addOn('carol', 'cpu.hours', 10);
      const lifted = await launch();
      assert.equal(lifted.status, 200, lifted.text);
      assert.equal((await endedAnalysis(gw, 'carol', lifted.body.id)).status, 'Completed');
      await eventually(async () => (await usageOf('carol', 'cpu.hours')) > used);
    });
  });
}

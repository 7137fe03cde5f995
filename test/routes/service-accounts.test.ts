// The service-account routes (routes.md §25) through the gateway on each engine: each allowed to a
// service token (only `preferred_username` and `realm_access`) holding its configured role and
// refused (403) to other service accounts, users and administrators; the QMS ones answered by the
// embedded QMS (a plan changed paid by default, add-ons applied and changed); `/service/users/{u}`
// answered from the users the platform has seen; and, against a remote QMS, no `user` forwarded of
// the service account's own, with role names taken from configuration.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { DataStoreGateway } from '../support/data-store.ts';
import { engines, skipWithout } from '../support/postgres.ts';
import { admin, startQmsGateway } from '../support/qms.ts';

const billing = 'service-account-billing';
const mailer = 'service-account-mailer';
const directory = 'service-account-directory';

for (const engine of engines) {
  describe(`service-account routes (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: DataStoreGateway;
    before(async () => {
      gw = (await startQmsGateway({ engine }))!;
      await gw.ok('alice', 'GET', '/qms/user/plan');
    });
    after(async () => gw?.close());

    test('QMS routes: allowed with subscription-updater, refused without it', async () => {
      const plan = await gw.ok(billing, 'GET', '/service/qms/users/alice/plan');
      assert.equal(plan.result.plan.name, 'Basic');
      assert.equal(plan.result.user.username, 'alice');
      const changed = await gw.ok(billing, 'PUT', '/service/qms/users/alice/plan/Pro');
      assert.equal(changed.result.plan.name, 'Pro');
      assert.equal(changed.result.paid, true);
      const unpaid = await gw.ok(
        billing,
        'PUT',
        '/service/qms/users/alice/plan/Regular?paid=false',
      );
      assert.equal(unpaid.result.paid, false);
      const subscriptions = await gw.ok(billing, 'GET', '/service/qms/users/alice/subscriptions');
      assert.equal(subscriptions.result.subscriptions[0].id, unpaid.result.id);

      const { addon } = await gw.ok(admin, 'POST', '/admin/qms/addons', {
        json: {
          name: 'More data',
          description: '1 GiB',
          resource_type: 'data.size',
          default_amount: 1024 ** 3,
          default_paid: true,
        },
      });
      assert.deepEqual(
        (await gw.ok(billing, 'GET', '/service/qms/addons')).addons.map((each: any) => each.uuid),
        [addon.uuid],
      );
      const base = `/service/qms/subscriptions/${unpaid.result.id}/addons`;
      const applied = await gw.ok(billing, 'POST', base, { json: { uuid: addon.uuid } });
      const id = applied.subscription_addon.uuid;
      assert.equal(
        (await gw.ok(billing, 'GET', base)).subscription_addons[0].addon.name,
        'More data',
      );
      const changedAddon = await gw.ok(billing, 'PUT', `${base}/${id}`, { json: { paid: false } });
      assert.equal(changedAddon.subscription_addon.paid, false);
      assert.equal(changedAddon.subscription_addon.amount, 1024 ** 3);
      assert.equal((await gw.ok(billing, 'GET', `${base}/${id}`)).subscription_addon.paid, false);
      await gw.ok(billing, 'DELETE', `${base}/${id}`);
      assert.deepEqual((await gw.ok(billing, 'GET', base)).subscription_addons, []);

      for (const caller of [mailer, directory, 'alice', admin]) {
        for (const [method, route] of [
          ['GET', '/service/qms/users/alice/plan'],
          ['PUT', '/service/qms/users/alice/plan/Pro'],
          ['GET', '/service/qms/addons'],
          ['GET', base],
        ] as const) {
          const refused = await gw.call(caller, method, route);
          assert.equal(refused.status, 403, `${caller} ${method} ${route}: ${refused.text}`);
          assert.equal(refused.body.error_code, 'ERR_FORBIDDEN');
        }
      }
      const anonymous = await gw.call(null, 'GET', '/service/qms/addons');
      assert.equal(anonymous.status, 401, anonymous.text);
    });

    test('email with emailer; user details with ldap-reader', async () => {
      const mail = {
        to: 'alice@example.org',
        from_addr: 'billing@example.org',
        from_name: 'Billing',
        subject: 'Your plan',
        template: 'plan_changed',
        values: { plan: 'Pro' },
      };
      assert.deepEqual(await gw.ok(mailer, 'POST', '/service/email', { json: mail }), {
        status: 'OK',
      });
      const notMailer = await gw.call(billing, 'POST', '/service/email', { json: mail });
      assert.equal(notMailer.status, 403, notMailer.text);

      const details = await gw.ok(directory, 'GET', '/service/users/alice');
      assert.deepEqual(details, {
        id: 'alice',
        username: 'alice',
        email: 'alice@example.org',
        first_name: 'Alice',
        last_name: 'Tester',
        name: 'Alice Tester',
      });
      const unknown = await gw.call(directory, 'GET', '/service/users/nobody');
      assert.equal(unknown.status, 404, unknown.text);
      for (const caller of [billing, 'alice']) {
        const refused = await gw.call(caller, 'GET', '/service/users/alice');
        assert.equal(refused.status, 403, refused.text);
      }
    });
  });
}

describe('service-account routes against a remote QMS', () => {
  let gw: DataStoreGateway;
  let remote: Server;
  const seen: { method: string; url: string; body: string }[] = [];
  before(async () => {
    remote = createServer((request: IncomingMessage, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        seen.push({ method: request.method!, url: request.url!, body });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ result: {} }));
      });
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
    gw = (await startQmsGateway({
      env: {
        QMS_URL: `${origin}/qms`,
        SUBSCRIPTIONS_URL: `${origin}/subs`,
        SERVICE_ROLE_SUBSCRIPTION_UPDATER: 'qms-writer',
      },
    }))!;
  });
  after(async () => {
    await gw?.close();
    remote?.close();
  });

  test('the configured role is required, and no user of its own is forwarded', async () => {
    const custom = 'service-account-custom';
    const refused = await gw.call(billing, 'GET', '/service/qms/users/alice/plan');
    assert.equal(refused.status, 403, refused.text);
    await gw.ok(custom, 'GET', '/service/qms/users/alice/plan');
    await gw.ok(custom, 'PUT', '/service/qms/users/alice/plan/Pro');
    await gw.ok(custom, 'GET', '/service/qms/users/alice/subscriptions');
    await gw.ok(custom, 'GET', '/service/qms/addons');
    await gw.ok(custom, 'POST', '/service/qms/subscriptions/s-1/addons', { json: { uuid: 'a-1' } });
    await gw.ok(custom, 'PUT', '/service/qms/subscriptions/s-1/addons/sa-1', {
      json: { amount: 5 },
    });
    await gw.ok(custom, 'DELETE', '/service/qms/subscriptions/s-1/addons/sa-1');
    assert.deepEqual(
      seen.map((each) => `${each.method} ${each.url}`),
      [
        'GET /qms/v1/users/alice/plan',
        'PUT /qms/v1/users/alice/Pro',
        'GET /qms/v1/users/alice/subscriptions',
        'GET /subs/addons',
        'PUT /subs/subscriptions/s-1/addons/a-1',
        'POST /subs/subscriptions/s-1/addons/sa-1',
        'DELETE /subs/subscriptions/s-1/addons/sa-1',
      ],
    );
    assert.deepEqual(JSON.parse(seen[5]!.body), { amount: 5, update_mask: 'amount' });
    assert.ok(seen.every((each) => !/[?&]user=/.test(each.url)));
  });
});

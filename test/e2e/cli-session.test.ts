// The command-line admin client's session, call for call as clients.md §6 lists it, on both
// engines and the embedded platform alone: users added as `npm run user add` does (alice, and root
// an administrator) — known to the platform before they ever sign in —, a sign-in with HTTP Basic
// at `/token/keycloak` whose access_token carries every later call; the plans and resource types;
// the caller's own plan; an administrator reading alice's plan, moving her to another plan and back
// to Basic, and setting her cpu.hours quota; alice then seeing the change with her own token and
// refused the admin routes; and a wrong password refused without a token.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startGateway, noRateLimits, type RunningGateway } from '../support/gateway.ts';
import { engineDatabase, engines, skipWithout } from '../support/postgres.ts';
import { addUser, basic } from '../support/identity.ts';

interface Named {
  name: string;
}
interface Plan {
  plan: Named;
  quotas: { quota: number; resource_type: Named }[];
}

for (const engine of engines) {
  describe(`the command-line client's session (${engine})`, { skip: skipWithout(engine) }, () => {
    let running: RunningGateway;
    let drop: () => Promise<void>;
    before(async () => {
      const database = await engineDatabase(engine);
      drop = database.drop;
      running = await startGateway({ ...noRateLimits, ...database.env });
      await addUser(running, 'alice', 'alice-password');
      await addUser(running, 'root', 'root-password', { admin: true });
    });
    after(async () => {
      await running?.close();
      await drop?.();
    });

    const signIn = async (user: string, password: string) => {
      const answer = await fetch(`${running.url}/token/keycloak`, {
        headers: basic(user, password),
      });
      assert.equal(answer.status, 200, await answer.clone().text());
      return (await answer.json()) as { access_token: string; refresh_token: string };
    };
    const call = async (token: string, method: string, path: string, json?: unknown) => {
      const answer = await fetch(`${running.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
      const text = await answer.text();
      assert.equal(answer.status, 200, `${method} ${path}: ${text}`);
      return text === '' ? undefined : JSON.parse(text);
    };
    const quotaOf = (plan: Plan, resource: string) =>
      plan.quotas.find((quota) => quota.resource_type.name === resource)?.quota;

    test('sign-in to subscription changes, as the CLI calls them', async () => {
      const refused = await fetch(`${running.url}/token/keycloak`, {
        headers: basic('root', 'not-the-password'),
      });
      assert.equal(refused.status, 401);
      assert.equal(((await refused.json()) as { access_token?: string }).access_token, undefined);

      const { access_token: root } = await signIn('root', 'root-password');

      const plans = (await call(root, 'GET', '/qms/plans')).result as Named[];
      assert.ok(plans.some((plan) => plan.name === 'Basic'));
      const types = (await call(root, 'GET', '/qms/resource-types')).result as (Named & {
        unit: string;
      })[];
      assert.deepEqual(types.map((type) => type.name).sort(), ['cpu.hours', 'data.size']);
      assert.ok(types.every((type) => type.unit));
      assert.equal((await call(root, 'GET', '/qms/user/plan')).result.plan.name, 'Basic');

      // alice has not signed in yet: added as a user, she is already one of the platform's.
      const before = (await call(root, 'GET', '/admin/qms/users/alice/plan')).result as Plan;
      assert.equal(before.plan.name, 'Basic');
      const moved = await call(root, 'PUT', '/admin/qms/users/alice/plan/Regular');
      assert.equal(moved.result.plan.name, 'Regular');
      await call(root, 'PUT', '/admin/qms/users/alice/plan/Basic');
      const set = await call(root, 'POST', '/admin/qms/users/alice/plan/cpu.hours/quota', {
        quota: 250,
      });
      assert.equal(set.result.quota, 250);
      const after = (await call(root, 'GET', '/admin/qms/users/alice/plan')).result as Plan;
      assert.equal(after.plan.name, 'Basic');
      assert.equal(quotaOf(after, 'cpu.hours'), 250);

      const alice = await signIn('alice', 'alice-password');
      const own = (await call(alice.access_token, 'GET', '/qms/user/plan')).result as Plan;
      assert.equal(own.plan.name, 'Basic');
      assert.equal(quotaOf(own, 'cpu.hours'), 250);
      // Not an administrator: the admin routes refuse her token.
      const denied = await fetch(`${running.url}/admin/qms/users/root/plan`, {
        headers: { authorization: `Bearer ${alice.access_token}` },
      });
      assert.equal(denied.status, 403);
      assert.ok(((await denied.json()) as { error_code?: string }).error_code);
    });
  });
}

// VICE access requests on the embedded platform, through the gateway on each engine: a user files
// one (a second is refused while it stands), lists and reads it, and no one else can read it; an
// administrator lists the open requests, marks one in progress and approves it with a number of
// concurrent jobs, which becomes the requester's concurrent-job limit; a rejection sets the limit
// to 0; the requester is notified of each status; the `vice` request type is listed, and
// administrators may change its limits; finished requests are refused further changes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engines, skipWithout } from '../support/postgres.ts';
import { admin, startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';

const asking = { intended_use: 'Jupyter notebooks for a course', concurrent_jobs: 4 };

for (const engine of engines) {
  describe(`VICE access requests (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: MetadataGateway;
    before(async () => {
      gw = (await startMetadataGateway({ engine }))!;
    });
    after(async () => gw?.close());

    const requestNotices = async (user: string) =>
      (await gw.ok(user, 'GET', '/secured/notifications/messages?sortDir=asc')).messages.filter(
        (each: any) => each.type === 'requests',
      );
    const jobLimit = async (user: string) =>
      (await gw.ok(admin, 'GET', `/admin/settings/concurrent-job-limits/${user}`)).concurrent_jobs;

    test('filed, listed, read by its requester only, approved with a job limit', async () => {
      const filed = await gw.ok('alice', 'POST', '/requests/vice', {
        json: { ...asking, name: 'Alice A', email: 'alice@example.org' },
      });
      assert.equal(filed.request_type, 'vice');
      assert.equal(filed.requesting_user, 'alice');
      assert.equal(filed.status, 'submitted');
      assert.equal(filed.details.intended_use, asking.intended_use);
      assert.equal(filed.details.concurrent_jobs, 4);
      assert.deepEqual(
        filed.updates.map((each: any) => each.status),
        ['submitted'],
      );

      const again = await gw.call('alice', 'POST', '/requests/vice', { json: asking });
      assert.equal(again.status, 400, again.text);
      assert.equal(again.body.error_code, 'ERR_LIMIT_REACHED');

      const bad = await gw.call('alice', 'POST', '/requests/vice', {
        json: { intended_use: 'x', concurrent_jobs: 'many' },
      });
      assert.equal(bad.status, 400, bad.text);

      const mine = await gw.ok('alice', 'GET', '/requests/vice');
      assert.deepEqual(
        mine.requests.map((each: any) => each.id),
        [filed.id],
      );
      assert.deepEqual((await gw.ok('bob', 'GET', '/requests/vice')).requests, []);
      assert.equal((await gw.ok('alice', 'GET', `/requests/vice/${filed.id}`)).id, filed.id);
      const others = await gw.call('bob', 'GET', `/requests/vice/${filed.id}`);
      assert.equal(others.status, 404, others.text);
      assert.equal(others.body.error_code, 'ERR_NOT_FOUND');
      const none = await gw.call('alice', 'GET', '/requests/vice/no-such-request');
      assert.equal(none.status, 404, none.text);

      const refused = await gw.call('alice', 'POST', `/admin/requests/${filed.id}/approved/vice`, {
        json: { concurrent_jobs: 50 },
      });
      assert.equal(refused.status, 403, refused.text);
      const open = await gw.ok(admin, 'GET', '/admin/requests?request-type=vice');
      assert.ok(open.requests.some((each: any) => each.id === filed.id));

      const inProgress = await gw.ok(admin, 'POST', `/admin/requests/${filed.id}/in-progress`, {
        json: { message: 'Looking at it' },
      });
      assert.equal(inProgress.status, 'in-progress');
      const approved = await gw.ok(admin, 'POST', `/admin/requests/${filed.id}/approved/vice`, {
        json: { message: 'Enjoy', concurrent_jobs: 6 },
      });
      assert.equal(approved.status, 'approved');
      assert.deepEqual(
        approved.updates.map((each: any) => [each.status, each.message]),
        [
          ['submitted', ''],
          ['in-progress', 'Looking at it'],
          ['approved', 'Enjoy'],
        ],
      );
      assert.equal(approved.updates[2].updating_user, admin);
      assert.equal(await jobLimit('alice'), 6);

      const notices = await requestNotices('alice');
      assert.deepEqual(
        notices.map((each: any) => each.payload.status),
        ['submitted', 'in-progress', 'approved'],
      );
      assert.ok(notices.every((each: any) => each.payload.request_id === filed.id));
      assert.deepEqual(await requestNotices('bob'), []);

      // Completed: no longer among the open ones, refused further changes, still listed with include-completed.
      const after = await gw.ok(admin, 'GET', '/admin/requests?request-type=vice');
      assert.ok(!after.requests.some((each: any) => each.id === filed.id));
      const all = await gw.ok(admin, 'GET', '/admin/requests?include-completed=true');
      assert.ok(all.requests.some((each: any) => each.id === filed.id));
      const late = await gw.call(admin, 'POST', `/admin/requests/${filed.id}/rejected`, {
        json: { message: 'Changed my mind' },
      });
      assert.equal(late.status, 400, late.text);
      assert.equal(late.body.error_code, 'ERR_ILLEGAL_ARGUMENT');
      assert.equal(await jobLimit('alice'), 6);
    });

    test('a rejection sets the job limit to 0; approval without a number grants the one asked for', async () => {
      const carol = await gw.ok('carol', 'POST', '/requests/vice', { json: asking });
      const rejected = await gw.ok(admin, 'POST', `/admin/requests/${carol.id}/rejected`, {
        json: { message: 'Not this term' },
      });
      assert.equal(rejected.status, 'rejected');
      assert.equal(await jobLimit('carol'), 0);
      assert.deepEqual(
        (await requestNotices('carol')).map((each: any) => each.payload.status),
        ['submitted', 'rejected'],
      );

      const dave = await gw.ok('dave', 'POST', '/requests/vice', { json: asking });
      await gw.ok(admin, 'POST', `/admin/requests/${dave.id}/approved`, { json: {} });
      assert.equal(await jobLimit('dave'), asking.concurrent_jobs);
    });

    test('request types are listed and administrators change their limits', async () => {
      await gw.ok('erin', 'POST', '/requests/vice', { json: asking });
      const types = await gw.ok(admin, 'GET', '/admin/request-types');
      const vice = types.request_types.find((each: any) => each.name === 'vice');
      assert.deepEqual(
        [vice.maximum_requests_per_user, vice.maximum_concurrent_requests_per_user],
        [1, 10],
      );
      assert.equal((await gw.call('erin', 'GET', '/admin/request-types')).status, 403);
      const changed = await gw.ok(
        admin,
        'PATCH',
        '/admin/request-types/vice?maximum-requests-per-user=2',
      );
      assert.equal(changed.maximum_requests_per_user, 2);
      // Registering again keeps what is there.
      const kept = await gw.ok(
        admin,
        'POST',
        '/admin/request-types/vice?maximum-requests-per-user=1',
      );
      assert.equal(kept.maximum_requests_per_user, 2);
      // erin's first request is still open, and a user may have 10 open: a second is now allowed.
      await gw.ok('erin', 'POST', '/requests/vice', { json: asking });
      const missing = await gw.call(admin, 'GET', '/admin/request-types/no-such-type');
      assert.equal(missing.status, 404, missing.text);
    });
  });
}

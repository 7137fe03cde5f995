// Who may change a team's members: only a holder of its `admin` or `update` privilege. A member
// who joined (view and optout only) and a user who is no member at all are refused 403 both when
// adding members (POST /teams/{name}/members) and when removing them (POST
// /teams/{name}/members/deleter), and the members stay as they were; a holder of `update` alone
// may do both. Each refusal is a guard whose removal this test notices.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startMetadataGateway, type MetadataGateway } from '../../support/metadata-gateway.ts';

let gw: MetadataGateway;
const team = '/teams/alice:guarded';
const memberIds = async () =>
  ((await gw.ok('alice', 'GET', `${team}/members`)).members as { id: string }[])
    .map((member) => member.id)
    .sort();

before(async () => {
  gw = (await startMetadataGateway({ engine: 'sqlite' }))!;
  // Every user signs in once, so the platform has seen them (members must be known subjects).
  for (const user of ['alice', 'bob', 'carol', 'dave'])
    await gw.ok(user, 'GET', '/subjects?search=nobody-matches-this');
  await gw.ok('alice', 'POST', '/teams', {
    json: { name: 'guarded', public_privileges: ['view', 'optin'] },
  });
  // Carol joins by the public optin: a member, with view and optout only.
  assert.equal((await gw.ok('carol', 'POST', `${team}/join`)).results[0].success, true);
  await gw.ok('alice', 'POST', `${team}/members`, { json: { members: ['bob'] } });
  await gw.ok('alice', 'POST', `${team}/privileges`, {
    json: { updates: [{ subject_id: 'bob', privileges: ['update'] }] },
  });
});

after(async () => gw?.close());

test('a member without admin or update, and a stranger, may neither add nor remove members', async () => {
  assert.deepEqual(await memberIds(), ['alice', 'bob', 'carol']);
  for (const caller of ['carol', 'dave']) {
    const add = await gw.call(caller, 'POST', `${team}/members`, { json: { members: ['dave'] } });
    assert.equal(add.status, 403, `${caller} adding: ${add.text}`);
    assert.equal(add.body.error_code, 'ERR_FORBIDDEN');
    const remove = await gw.call(caller, 'POST', `${team}/members/deleter`, {
      json: { members: ['alice', 'bob'] },
    });
    assert.equal(remove.status, 403, `${caller} removing: ${remove.text}`);
    assert.equal(remove.body.error_code, 'ERR_FORBIDDEN');
  }
  assert.deepEqual(await memberIds(), ['alice', 'bob', 'carol']);
});

test('a holder of update alone may add and remove members', async () => {
  await gw.ok('bob', 'POST', `${team}/members`, { json: { members: ['dave'] } });
  assert.deepEqual(await memberIds(), ['alice', 'bob', 'carol', 'dave']);
  await gw.ok('bob', 'POST', `${team}/members/deleter`, { json: { members: ['dave'] } });
  assert.deepEqual(await memberIds(), ['alice', 'bob', 'carol']);
});

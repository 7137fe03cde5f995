// The DE user portal's calls, served from the platform's user records, on both engines, so that the
// web UI's `user_portal_url` may point at the platform. Its server (sonora src/server/api/user.js,
// src/server/api/cyverseRealm.js) calls them with the signed-in user's token: every page asks
// `GET /api/users/{user}/status` and reads `warning_required`, `update_required`, `update_url`
// (src/components/layout/UserPortalUpdatePrompts.js); the administrators' subscriptions page asks
// `GET /api/users/{username}` and reads `id` (src/components/subscriptions/listing/Listing.js).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { noRateLimits, startGateway, type RunningGateway } from '../support/gateway.ts';
import { engineDatabase, engines, skipWithout } from '../support/postgres.ts';
import {
  bearer,
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
  type JwksServer,
  type SigningKey,
} from '../support/tokens.ts';

let key: SigningKey;
let jwks: JwksServer;

before(async () => {
  key = await createSigningKey('ES256', 'user-portal-key');
  jwks = await startJwksServer([key]);
});
after(async () => jwks.close());

for (const engine of engines) {
  describe(`the user portal's routes (${engine})`, { skip: skipWithout(engine) }, () => {
    let running: RunningGateway;
    let database: Awaited<ReturnType<typeof engineDatabase>>;
    before(async () => {
      database = await engineDatabase(engine);
      running = await startGateway({ ...noRateLimits, AUTH_JWKS_URL: jwks.url, ...database.env });
    });
    after(async () => {
      await running?.close();
      await database?.drop();
    });

    const call = async (username: string | undefined, path: string, roles: string[] = []) => {
      const headers = username
        ? bearer(await signToken(key, userClaims(username, { realm_access: { roles } })))
        : {};
      const response = await fetch(`${running.url}${path}`, { headers });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : {} };
    };

    test('status: the user themselves, never asked to renew', async () => {
      const { status, body } = await call('alice', '/api/users/alice/status');
      assert.equal(status, 200);
      assert.deepEqual(body, {
        username: 'alice',
        update_required: false,
        warning_required: false,
      });
    });

    test("details: the user's record, `id` included; an administrator may read anyone's", async () => {
      await call('bob', '/secured/sessions'); // bob signs in once: the platform has seen him
      const own = await call('bob', '/api/users/bob');
      assert.equal(own.status, 200);
      assert.deepEqual(own.body, {
        id: 'bob',
        username: 'bob',
        first_name: 'Bob',
        last_name: 'Tester',
        email: 'bob@example.org',
        institution: '',
      });
      const asAdmin = await call('root', '/api/users/bob', ['de-admin']);
      assert.equal(asAdmin.status, 200);
      assert.equal(asAdmin.body.id, 'bob');
      const statusAsAdmin = await call('root', '/api/users/bob/status', ['de-admin']);
      assert.equal(statusAsAdmin.status, 200);
      assert.equal(statusAsAdmin.body.update_required, false);
    });

    test('others are refused, unknown users are 404, no token is 401', async () => {
      for (const path of ['/api/users/bob', '/api/users/bob/status']) {
        const other = await call('carol', path);
        assert.equal(other.status, 403, path);
        assert.equal(other.body.error_code, 'ERR_FORBIDDEN');
        const anonymous = await call(undefined, path);
        assert.equal(anonymous.status, 401, path);
      }
      for (const path of ['/api/users/nobody', '/api/users/nobody/status']) {
        const unknown = await call('root', path, ['de-admin']);
        assert.equal(unknown.status, 404, path);
        assert.equal(unknown.body.error_code, 'ERR_NOT_FOUND');
      }
    });
  });
}

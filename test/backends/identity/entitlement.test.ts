// The `entitlement` claim of the embedded identity provider's tokens, on both engines: the web UI
// (sonora src/server/auth.js reads `entitlement` from the access token into the profile's
// `attributes`; src/components/layout/AppBar.js finds administrators by its `admin.groups` in
// `attributes[admin.group_attribute_name]`, default `entitlement`) needs the administrators' group
// there, ADMIN_GROUP (default `de_admins`), and the DE lists the user's groups there too: here the
// teams and communities the user is a member of. Access token, ID token and userinfo alike, from
// the password grant, `/token`, a refresh and the authorization-code flow; `npm run token --admin`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { noRateLimits, startGateway, type RunningGateway } from '../../support/gateway.ts';
import { engineDatabase, engines, skipWithout } from '../../support/postgres.ts';
import { addUser, basic, CookieJar, signInThroughPage } from '../../support/identity.ts';

const projectDir = path.resolve(import.meta.dirname, '../../..');
const payloadOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

for (const engine of engines) {
  describe(
    `entitlement in the embedded provider's tokens (${engine})`,
    {
      skip: skipWithout(engine),
    },
    () => {
      let running: RunningGateway;
      let drop: () => Promise<void>;
      let realm: string;
      const redirect = 'http://127.0.0.1:9/app/callback';

      const passwordGrant = async (username: string, password: string) => {
        const response = await fetch(`${realm}/protocol/openid-connect/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'password',
            client_id: 'de-ui',
            username,
            password,
            scope: 'openid',
          }).toString(),
        });
        assert.equal(response.status, 200);
        return (await response.json()) as Record<string, string>;
      };
      const userinfo = async (accessToken: string) =>
        (await (
          await fetch(`${realm}/protocol/openid-connect/userinfo`, {
            headers: { authorization: `Bearer ${accessToken}` },
          })
        ).json()) as Record<string, unknown>;

      before(async () => {
        const database = await engineDatabase(engine);
        drop = database.drop;
        running = await startGateway({
          ...noRateLimits,
          ...database.env,
          EMBEDDED_BACKENDS: 'groups',
          IDP_CLIENTS: 'de-ui',
          IDP_CLIENT_DE_UI_REDIRECT_URIS: 'http://127.0.0.1:9/app/*',
        });
        realm = `${running.url}/realms/platform`;
        await addUser(running, 'alice', 'alice-password');
        await addUser(running, 'bob', 'bob-password');
        await addUser(running, 'root', 'root-password', { admin: true });
      });

      after(async () => {
        await running?.close();
        await drop?.();
      });

      test("an administrator's tokens name de_admins; another user's name none of it", async () => {
        const root = await passwordGrant('root', 'root-password');
        for (const token of [root.access_token!, root.id_token!])
          assert.deepEqual(payloadOf(token).entitlement, ['de_admins']);
        assert.deepEqual((await userinfo(root.access_token!)).entitlement, ['de_admins']);
        const viaGateway = (await (
          await fetch(`${running.url}/token`, { headers: basic('root', 'root-password') })
        ).json()) as Record<string, string>;
        assert.deepEqual(payloadOf(viaGateway.access_token!).entitlement, ['de_admins']);

        const bob = await passwordGrant('bob', 'bob-password');
        assert.deepEqual(payloadOf(bob.access_token!).entitlement, []);
        assert.deepEqual((await userinfo(bob.access_token!)).entitlement, []);
      });

      test('the teams and communities a user is a member of follow, from the next token on', async () => {
        const alice = await passwordGrant('alice', 'alice-password');
        assert.deepEqual(payloadOf(alice.access_token!).entitlement, []);
        const made = await fetch(`${running.url}/teams`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${alice.access_token}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ name: 'lab' }),
        });
        assert.equal(made.status, 200, await made.clone().text());
        const list = await fetch(`${running.url}/collaborator-lists`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${alice.access_token}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ name: 'friends' }),
        });
        assert.equal(list.status, 200, 'a collaborator list is not a group she belongs to');

        const refreshed = await fetch(`${realm}/protocol/openid-connect/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            client_id: 'de-ui',
            refresh_token: alice.refresh_token!,
          }).toString(),
        });
        assert.equal(refreshed.status, 200);
        const tokens = (await refreshed.json()) as Record<string, string>;
        assert.deepEqual(payloadOf(tokens.access_token!).entitlement, ['alice:lab']);
        assert.deepEqual((await userinfo(tokens.access_token!)).entitlement, ['alice:lab']);
        // The gateway reads the claim back as the caller's groups; it still answers her calls.
        const teams = await fetch(`${running.url}/teams?member=alice`, {
          headers: { authorization: `Bearer ${tokens.access_token}` },
        });
        assert.equal(teams.status, 200);
      });

      test('the authorization-code flow (what the web UI signs in with) carries it too', async () => {
        const jar = new CookieJar();
        const verifier = randomBytes(32).toString('base64url');
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        const params = {
          client_id: 'de-ui',
          redirect_uri: redirect,
          response_type: 'code',
          scope: 'openid',
          state: 's1',
          code_challenge: challenge,
          code_challenge_method: 'S256',
        };
        const signedIn = await signInThroughPage(
          jar,
          `${realm}/protocol/openid-connect/auth?${new URLSearchParams(params)}`,
          'root',
          'root-password',
        );
        assert.equal(signedIn.status, 302);
        const code = new URL(signedIn.headers.get('location')!).searchParams.get('code')!;
        const exchanged = await fetch(`${realm}/protocol/openid-connect/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            client_id: 'de-ui',
            code,
            redirect_uri: redirect,
            code_verifier: verifier,
          }).toString(),
        });
        assert.equal(exchanged.status, 200);
        const tokens = (await exchanged.json()) as Record<string, string>;
        assert.deepEqual(payloadOf(tokens.access_token!).entitlement, ['de_admins']);
        assert.deepEqual(payloadOf(tokens.id_token!).entitlement, ['de_admins']);
      });
    },
  );
}

describe('ADMIN_GROUP names the group; npm run token --admin names it too', () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'entitlement-cli-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  const tokenCli = (args: string[], env: Record<string, string> = {}) =>
    new Promise<string>((resolve, reject) => {
      execFile(
        'npm',
        ['run', '-s', 'token', '--', ...args],
        {
          cwd: projectDir,
          env: {
            ...process.env,
            GATEWAY_DATA_DIR: dataDir,
            DATABASE_URL: '',
            AUTH_JWKS_URL: '',
            AUTH_PUBLIC_KEYS: '',
            AUTH_TOKEN_URL: '',
            ...env,
          },
        },
        (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(stdout.trim())),
      );
    });

  test('--admin: ADMIN_GROUP (default de_admins); --group adds more; none for others', async () => {
    assert.deepEqual(payloadOf(await tokenCli(['root', '--admin'])).entitlement, ['de_admins']);
    assert.deepEqual(
      payloadOf(await tokenCli(['root', '--admin', '--group', 'lab'], { ADMIN_GROUP: 'ops' }))
        .entitlement,
      ['ops', 'lab'],
    );
    assert.deepEqual(payloadOf(await tokenCli(['alice'])).entitlement, []);
  });

  test('the embedded provider names ADMIN_GROUP when set', async (t) => {
    const database = await engineDatabase('sqlite');
    const running = await startGateway({ ...noRateLimits, ...database.env, ADMIN_GROUP: 'ops' });
    t.after(async () => {
      await running.close();
      await database.drop();
    });
    await addUser(running, 'root', 'root-password', { admin: true });
    const answer = (await (
      await fetch(`${running.url}/token`, { headers: basic('root', 'root-password') })
    ).json()) as Record<string, string>;
    assert.deepEqual(payloadOf(answer.access_token!).entitlement, ['ops']);
  });
});

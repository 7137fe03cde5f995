// The embedded identity provider over HTTP, on both engines (users in the database): `/token` and
// `/admin/token` with its users (RS256 tokens the gateway accepts, refresh tokens rotated, a
// wrong password 401, no Basic a 401 with a Basic challenge and an error_code), its OpenID Connect endpoints under /realms/platform
// (discovery, certs against which jose verifies the ID token, userinfo, the sign-in form, the
// silent check `prompt=none`, end-session), and the `/oidc/*` browser flow with cookies.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { noRateLimits, startGateway, type RunningGateway } from '../support/gateway.ts';
import { engineDatabase, engines, skipWithout } from '../support/postgres.ts';
import { addUser, basic, CookieJar, hiddenFields, setCookies } from '../support/identity.ts';

const payloadOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

for (const engine of engines) {
  describe(`the embedded identity provider (${engine})`, { skip: skipWithout(engine) }, () => {
    let running: RunningGateway;
    let drop: () => Promise<void>;
    let realm: string;
    const clientRedirect = 'http://127.0.0.1:9/app/callback';

    const tokenForm = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${realm}/protocol/openid-connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(form).toString(),
      });

    before(async () => {
      const database = await engineDatabase(engine);
      drop = database.drop;
      running = await startGateway({
        ...noRateLimits,
        ...database.env,
        EMBEDDED_BACKENDS: 'user-info',
        IDP_CLIENTS: 'de-ui,backend-app',
        IDP_CLIENT_DE_UI_REDIRECT_URIS: 'http://127.0.0.1:9/app/*',
        IDP_CLIENT_BACKEND_APP_SECRET: 'backend-app-secret-0123456789',
        IDP_CLIENT_BACKEND_APP_REDIRECT_URIS: 'http://127.0.0.1:9/backend/callback',
      });
      realm = `${running.url}/realms/platform`;
      await addUser(running, 'alice', 'alice-password', { email: 'alice@example.org' });
      await addUser(running, 'root', 'root-password', { admin: true });
    });

    after(async () => {
      await running?.close();
      await drop?.();
    });

    test('GET /token: a password grant with the embedded users; RS256 tokens the gateway accepts', async () => {
      const response = await fetch(`${running.url}/token/keycloak`, {
        headers: basic('alice', 'alice-password'),
      });
      assert.equal(response.status, 200);
      const body = (await response.json()) as any;
      assert.equal(body.token_type, 'Bearer');
      assert.equal(typeof body.expires_in, 'number');
      assert.equal(typeof body.refresh_expires_in, 'number');
      assert.equal(body['not-before-policy'], 0);
      assert.equal(typeof body.session_state, 'string');
      assert.equal(decodeProtectedHeader(body.access_token).alg, 'RS256');
      const claims = payloadOf(body.access_token);
      assert.equal(claims.preferred_username, 'alice');
      assert.equal(claims.email, 'alice@example.org');
      assert.equal(claims.given_name, 'Alice');
      assert.equal(claims.family_name, 'Tester');
      assert.equal(claims.name, 'Alice Tester');
      assert.deepEqual(claims.realm_access, { roles: [] });
      assert.equal(claims.iss, realm);
      const sessions = await fetch(`${running.url}/secured/sessions`, {
        headers: { authorization: `Bearer ${body.access_token}` },
      });
      assert.equal(sessions.status, 200);

      const admin = (await (
        await fetch(`${running.url}/token`, { headers: basic('root', 'root-password') })
      ).json()) as any;
      assert.deepEqual(payloadOf(admin.access_token).realm_access.roles, [
        'de-admin',
        'super-admin',
      ]);
    });

    test('wrong password or unknown user: 401 relayed with an error_code; no Basic: 401 with a Basic challenge', async () => {
      for (const credentials of [
        basic('alice', 'wrong-password'),
        basic('nobody', 'whatever-it-is'),
      ]) {
        const response = await fetch(`${running.url}/token`, { headers: credentials });
        assert.equal(response.status, 401);
        const body = (await response.json()) as any;
        assert.equal(body.error_code, 'ERR_NOT_AUTHORIZED');
        assert.equal(body.error, 'invalid_grant');
      }
      const bare = await fetch(`${running.url}/token`);
      assert.equal(bare.status, 401);
      assert.match(bare.headers.get('www-authenticate')!, /^Basic realm="[^"]+"/);
      assert.equal(((await bare.json()) as any).error_code, 'ERR_NOT_AUTHORIZED');
    });

    test('refresh tokens work once: each refresh rotates the token, a reused one is refused', async () => {
      const first = (await (
        await fetch(`${running.url}/token`, { headers: basic('alice', 'alice-password') })
      ).json()) as any;
      const refreshed = await tokenForm({
        grant_type: 'refresh_token',
        client_id: 'platform-gateway',
        refresh_token: first.refresh_token,
      });
      assert.equal(refreshed.status, 200);
      const second = (await refreshed.json()) as any;
      assert.notEqual(second.refresh_token, first.refresh_token);
      assert.equal(payloadOf(second.access_token).preferred_username, 'alice');
      assert.equal(second.session_state, first.session_state);
      const reused = await tokenForm({
        grant_type: 'refresh_token',
        client_id: 'platform-gateway',
        refresh_token: first.refresh_token,
      });
      assert.equal(reused.status, 400);
      assert.equal(((await reused.json()) as any).error, 'invalid_grant');
      // Another client may not use it.
      const foreign = await tokenForm({
        grant_type: 'refresh_token',
        client_id: 'de-ui',
        refresh_token: second.refresh_token,
      });
      assert.equal(foreign.status, 400);
      // Keycloak's back-channel logout: the session of a refresh token ends, and the token with it.
      const logout = await fetch(`${realm}/protocol/openid-connect/logout`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: 'platform-gateway',
          refresh_token: second.refresh_token,
        }).toString(),
      });
      assert.equal(logout.status, 204);
      const ended = await tokenForm({
        grant_type: 'refresh_token',
        client_id: 'platform-gateway',
        refresh_token: second.refresh_token,
      });
      assert.equal(ended.status, 400);
    });

    test('GET /admin/token: an administrator gets a token for another user; others are refused', async () => {
      const response = await fetch(`${running.url}/admin/token/keycloak?username=alice`, {
        headers: basic('root', 'root-password'),
      });
      assert.equal(response.status, 200);
      const body = (await response.json()) as any;
      assert.equal(payloadOf(body.access_token).preferred_username, 'alice');
      const notAdmin = await fetch(`${running.url}/admin/token?username=root`, {
        headers: basic('alice', 'alice-password'),
      });
      assert.equal(notAdmin.status, 403);
      assert.equal(((await notAdmin.json()) as any).error_code, 'ERR_FORBIDDEN');
      const unknown = await fetch(`${running.url}/admin/token?username=nobody`, {
        headers: basic('root', 'root-password'),
      });
      assert.equal(unknown.status, 400);
      // Over HTTP the exchange needs a confidential client.
      const direct = await tokenForm({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        client_id: 'de-ui',
        subject_token: body.access_token,
        requested_subject: 'root',
      });
      assert.equal(direct.status, 403);
    });

    test('discovery, certs and an ID token jose verifies as RS256; userinfo', async () => {
      const discovery = (await (
        await fetch(`${realm}/.well-known/openid-configuration`)
      ).json()) as any;
      assert.equal(discovery.issuer, realm);
      assert.equal(discovery.jwks_uri, `${realm}/protocol/openid-connect/certs`);
      assert.equal(discovery.authorization_endpoint, `${realm}/protocol/openid-connect/auth`);
      assert.deepEqual(discovery.id_token_signing_alg_values_supported, ['RS256']);
      const response = await tokenForm({
        grant_type: 'password',
        client_id: 'de-ui',
        username: 'alice',
        password: 'alice-password',
        scope: 'openid',
      });
      assert.equal(response.status, 200);
      const tokens = (await response.json()) as any;
      const keys = createRemoteJWKSet(new URL(discovery.jwks_uri));
      const { payload, protectedHeader } = await jwtVerify(tokens.id_token, keys, {
        algorithms: ['RS256'],
        issuer: realm,
        audience: 'de-ui',
      });
      assert.equal(protectedHeader.alg, 'RS256');
      assert.equal(payload.preferred_username, 'alice');
      assert.equal(payload.typ, 'ID');
      const userinfo = await fetch(`${realm}/protocol/openid-connect/userinfo`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      assert.equal(userinfo.status, 200);
      assert.equal(((await userinfo.json()) as any).email, 'alice@example.org');
      assert.equal(
        (
          await fetch(`${realm}/protocol/openid-connect/userinfo`, {
            headers: { authorization: 'Bearer x.y.z' },
          })
        ).status,
        401,
      );
    });

    test('CORS for the web origins of the clients, as a browser client (keycloak-js) needs it', async () => {
      const fromClient = await tokenForm(
        {
          grant_type: 'password',
          client_id: 'de-ui',
          username: 'alice',
          password: 'alice-password',
        },
        { origin: 'http://127.0.0.1:9' },
      );
      assert.equal(fromClient.status, 200);
      assert.equal(fromClient.headers.get('access-control-allow-origin'), 'http://127.0.0.1:9');
      const preflight = await fetch(`${realm}/protocol/openid-connect/userinfo`, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://127.0.0.1:9',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      });
      assert.equal(preflight.status, 204);
      assert.match(preflight.headers.get('access-control-allow-headers')!, /Authorization/);
      const stranger = await fetch(`${realm}/protocol/openid-connect/userinfo`, {
        method: 'OPTIONS',
        headers: { origin: 'http://evil.example', 'access-control-request-method': 'GET' },
      });
      assert.equal(stranger.headers.get('access-control-allow-origin'), null);
    });

    test('confidential clients need their secret', async () => {
      const form = { grant_type: 'password', username: 'alice', password: 'alice-password' };
      const without = await tokenForm({ ...form, client_id: 'backend-app' });
      assert.equal(without.status, 401);
      const wrong = await tokenForm(form, basic('backend-app', 'not-the-secret-at-all'));
      assert.equal(wrong.status, 401);
      const right = await tokenForm(form, basic('backend-app', 'backend-app-secret-0123456789'));
      assert.equal(right.status, 200);
      const unknown = await tokenForm({ ...form, client_id: 'stranger' });
      assert.equal(unknown.status, 401);
      assert.equal(((await unknown.json()) as any).error, 'invalid_client');
    });

    test('authorize: sign-in form, SSO cookie, PKCE, fragment mode, prompt=none, redirect URIs checked, logout', async () => {
      const jar = new CookieJar();
      const verifier = randomBytes(32).toString('base64url');
      const params = {
        client_id: 'de-ui',
        redirect_uri: clientRedirect,
        response_type: 'code',
        response_mode: 'fragment',
        scope: 'openid',
        state: 'state-1',
        nonce: 'nonce-1',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      };
      const authorizeUrl = (extra: Record<string, string> = {}) =>
        `${realm}/protocol/openid-connect/auth?${new URLSearchParams({ ...params, ...extra })}`;

      // Signed out, the silent check answers login_required (with the state), in the fragment.
      const silent = await jar.fetch(authorizeUrl({ prompt: 'none' }));
      assert.equal(silent.status, 302);
      const silentTarget = new URL(silent.headers.get('location')!);
      assert.equal(silentTarget.origin + silentTarget.pathname, clientRedirect);
      const silentAnswer = new URLSearchParams(silentTarget.hash.slice(1));
      assert.equal(silentAnswer.get('error'), 'login_required');
      assert.equal(silentAnswer.get('state'), 'state-1');

      // A redirect URI the client does not have is shown, never redirected to.
      const evil = await jar.fetch(authorizeUrl({ redirect_uri: 'http://evil.example/' }), {
        headers: { accept: 'text/html' },
      });
      assert.equal(evil.status, 400);
      assert.match(evil.headers.get('content-type')!, /text\/html/);

      const page = await jar.fetch(authorizeUrl());
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
      const html = await page.text();
      assert.match(html, /<form method="post"/);
      assert.doesNotMatch(html, /<script|<link|src="http/);
      const { form_token } = hiddenFields(html);

      const post = (password: string) =>
        jar.fetch(`${realm}/protocol/openid-connect/auth`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            ...params,
            form_token: form_token!,
            username: 'alice',
            password,
          }).toString(),
        });
      const refused = await post('wrong-password');
      assert.equal(refused.status, 200);
      assert.match(await refused.text(), /Invalid username or password/);
      const signedIn = await post('alice-password');
      assert.equal(signedIn.status, 302);
      const sso = setCookies(signedIn).get('IDP_SESSION')!;
      assert.match(sso, /HttpOnly/);
      assert.match(sso, /SameSite=Lax/);
      assert.match(sso, /Path=\/realms\/platform\//);
      const answer = new URLSearchParams(new URL(signedIn.headers.get('location')!).hash.slice(1));
      assert.equal(answer.get('state'), 'state-1');
      const code = answer.get('code')!;

      const exchange = (form: Record<string, string>) =>
        tokenForm({
          grant_type: 'authorization_code',
          client_id: 'de-ui',
          redirect_uri: clientRedirect,
          ...form,
        });
      assert.equal((await exchange({ code, code_verifier: 'not-the-verifier' })).status, 400);
      // A failed exchange spends the code too: a fresh one is needed.
      const again = await jar.fetch(authorizeUrl({ prompt: 'none' }));
      const secondCode = new URLSearchParams(
        new URL(again.headers.get('location')!).hash.slice(1),
      ).get('code')!;
      assert.ok(secondCode, 'signed in, the silent check gives a code');
      const tokens = (await (
        await exchange({ code: secondCode, code_verifier: verifier })
      ).json()) as any;
      assert.equal(payloadOf(tokens.id_token).nonce, 'nonce-1');
      assert.equal((await exchange({ code: secondCode, code_verifier: verifier })).status, 400);

      // Query mode puts the answer in the query.
      const query = await jar.fetch(authorizeUrl({ response_mode: 'query', prompt: 'none' }));
      assert.ok(new URL(query.headers.get('location')!).searchParams.get('code'));

      // End-session with the ID token: back to the client, signed out, the refresh token revoked.
      const logout = await jar.fetch(
        `${realm}/protocol/openid-connect/logout?${new URLSearchParams({
          id_token_hint: tokens.id_token,
          post_logout_redirect_uri: 'http://127.0.0.1:9/app/bye',
          state: 'bye',
        })}`,
      );
      assert.equal(logout.status, 302);
      assert.equal(logout.headers.get('location'), 'http://127.0.0.1:9/app/bye?state=bye');
      const after = await jar.fetch(authorizeUrl({ prompt: 'none' }));
      assert.equal(
        new URLSearchParams(new URL(after.headers.get('location')!).hash.slice(1)).get('error'),
        'login_required',
      );
      const refresh = await tokenForm({
        grant_type: 'refresh_token',
        client_id: 'de-ui',
        refresh_token: tokens.refresh_token,
      });
      assert.equal(refresh.status, 400);
    });

    test('/oidc browser flow: sign-in page → callback cookies (HttpOnly, SameSite=Lax) → authenticated call, refresh, logout', async () => {
      const jar = new CookieJar();
      const login = await jar.fetch(`${running.url}/oidc/login`);
      assert.equal(login.status, 302);
      const authorize = login.headers.get('location')!;
      assert.ok(authorize.startsWith(`${realm}/protocol/openid-connect/auth?`));
      const page = await jar.fetch(authorize);
      assert.equal(page.status, 200);
      const fields = hiddenFields(await page.text());
      const signedIn = await jar.fetch(`${realm}/protocol/openid-connect/auth`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          ...fields,
          username: 'alice',
          password: 'alice-password',
        }).toString(),
      });
      assert.equal(signedIn.status, 302);
      const callback = await jar.fetch(signedIn.headers.get('location')!);
      assert.equal(callback.status, 302);
      assert.equal(callback.headers.get('location'), '/docs');
      const cookies = setCookies(callback);
      for (const name of ['gateway_access_token', 'gateway_refresh_token']) {
        assert.match(cookies.get(name)!, /; HttpOnly/);
        assert.match(cookies.get(name)!, /; SameSite=Lax/);
      }
      assert.equal((await jar.fetch(`${running.url}/secured/sessions`)).status, 200);
      // A cross-site request does not get to use the cookie.
      const crossSite = await jar.fetch(`${running.url}/secured/sessions`, {
        method: 'POST',
        headers: { origin: 'http://evil.example', 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(crossSite.status, 401);

      const refreshed = await jar.fetch(`${running.url}/oidc/refresh`, { method: 'POST' });
      assert.equal(refreshed.status, 200);
      assert.deepEqual(Object.keys((await refreshed.json()) as any), ['expires_in']);
      assert.equal((await jar.fetch(`${running.url}/secured/sessions`)).status, 200);

      const refreshToken = jar.values.get('gateway_refresh_token')!;
      const logout = await jar.fetch(`${running.url}/oidc/logout`);
      assert.equal(logout.status, 302);
      const endSession = new URL(logout.headers.get('location')!);
      assert.equal(endSession.pathname, '/realms/platform/protocol/openid-connect/logout');
      const back = await jar.fetch(endSession.toString());
      assert.equal(back.status, 302);
      assert.equal(back.headers.get('location'), `${running.url}/docs`);
      // Only the sign-in form's token is left, which names no one.
      assert.deepEqual([...jar.values.keys()], ['IDP_FORM']);
      const revoked = await tokenForm({
        grant_type: 'refresh_token',
        client_id: 'platform-gateway',
        refresh_token: refreshToken,
      });
      assert.equal(revoked.status, 400);
      assert.equal(
        (await jar.fetch(`${running.url}/oidc/refresh`, { method: 'POST' })).status,
        401,
      );
    });
  });
}

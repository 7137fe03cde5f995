// `/token`, `/admin/token` and the `/oidc/*` browser flow against a configured identity provider
// (routes.md §2): a local token endpoint records the forms the gateway posts (password grant as
// AUTH_CLIENT_ID with its secret, token exchange with requested_subject, authorization_code with
// the PKCE verifier, refresh_token); refusals keep the provider's status; no Basic is a 401 with a Basic challenge and an error_code;
// the access-token cookie (HttpOnly, SameSite=Lax) authenticates calls; the embedded provider's
// sign-in locks answer 501 (the configured provider limits failed passwords itself).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { noRateLimits, startGateway, type RunningGateway } from '../support/gateway.ts';
import {
  basic,
  CookieJar,
  setCookies,
  startTokenServer,
  type TokenServer,
} from '../support/identity.ts';
import {
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
  type JwksServer,
  type SigningKey,
} from '../support/tokens.ts';

const clientSecret = 'gateway-client-secret-0123456789';

describe('token routes against a configured identity provider', () => {
  let server: TokenServer;
  let jwks: JwksServer;
  let key: SigningKey;
  let running: RunningGateway;
  let issued = 0;

  async function tokensFor(username: string) {
    issued++;
    return {
      access_token: await signToken(
        key,
        userClaims(username, username === 'admin' ? { realm_access: { roles: ['de-admin'] } } : {}),
      ),
      expires_in: 300,
      refresh_expires_in: 1800,
      refresh_token: `refresh-${username}-${issued}`,
      token_type: 'Bearer',
      'not-before-policy': 0,
      session_state: `session-${issued}`,
      scope: 'profile email',
    };
  }

  before(async () => {
    key = await createSigningKey('RS256', 'remote-idp');
    jwks = await startJwksServer([key]);
    server = await startTokenServer(async (form) => {
      if (form.grant_type === 'password') {
        if (form.password !== `${form.username}-password`)
          return {
            status: 401,
            body: { error: 'invalid_grant', error_description: 'Invalid user credentials' },
          };
        return { status: 200, body: await tokensFor(form.username!) };
      }
      if (form.grant_type === 'urn:ietf:params:oauth:grant-type:token-exchange')
        return { status: 200, body: await tokensFor(form.requested_subject!) };
      if (form.grant_type === 'authorization_code' && form.code === 'good-code')
        return { status: 200, body: await tokensFor('carol') };
      if (form.grant_type === 'refresh_token' && form.refresh_token?.startsWith('refresh-'))
        return { status: 200, body: await tokensFor('carol') };
      return { status: 400, body: { error: 'invalid_grant' } };
    });
    running = await startGateway({
      ...noRateLimits,
      AUTH_JWKS_URL: jwks.url,
      AUTH_TOKEN_URL: server.url,
      AUTH_AUTHORIZE_URL: 'http://idp.example/realms/test/protocol/openid-connect/auth',
      AUTH_CLIENT_ID: 'gateway-client',
      AUTH_CLIENT_SECRET: clientSecret,
      EMBEDDED_BACKENDS: 'user-info',
    });
  });

  after(async () => {
    await running.close();
    await server.close();
    await jwks.close();
  });

  test('GET /token/keycloak: a password grant as the gateway client, answered as the AccessTokenResponse', async () => {
    const response = await fetch(`${running.url}/token/keycloak`, {
      headers: basic('alice', 'alice-password'),
    });
    assert.equal(response.status, 200);
    const body = (await response.json()) as any;
    assert.deepEqual(Object.keys(body).sort(), [
      'access_token',
      'expires_in',
      'not-before-policy',
      'refresh_expires_in',
      'refresh_token',
      'scope',
      'session_state',
      'token_type',
    ]);
    assert.deepEqual(server.requests.at(-1)!.form, {
      grant_type: 'password',
      client_id: 'gateway-client',
      client_secret: clientSecret,
      username: 'alice',
      password: 'alice-password',
    });
    const plain = await fetch(`${running.url}/token`, {
      headers: basic('alice', 'alice-password'),
    });
    assert.equal(plain.status, 200);
  });

  test('no Basic: 401 with a Basic challenge and an error_code; bad credentials: the provider’s 401 relayed with an error_code', async () => {
    const bare = await fetch(`${running.url}/token/keycloak`);
    assert.equal(bare.status, 401);
    assert.equal(
      bare.headers.get('www-authenticate'),
      'Basic realm="platform-gateway", charset="UTF-8"',
    );
    assert.match(bare.headers.get('content-type')!, /^application\/json/);
    const bareBody = (await bare.json()) as any;
    assert.equal(bareBody.error_code, 'ERR_NOT_AUTHORIZED');
    assert.equal(typeof bareBody.reason, 'string');
    const bearerOnly = await fetch(`${running.url}/token`, {
      headers: { authorization: 'Bearer abc' },
    });
    assert.equal(bearerOnly.status, 401);
    const wrong = await fetch(`${running.url}/token/keycloak`, { headers: basic('alice', 'nope') });
    assert.equal(wrong.status, 401);
    const body = (await wrong.json()) as any;
    assert.equal(body.error_code, 'ERR_NOT_AUTHORIZED');
    assert.equal(body.error, 'invalid_grant');
    assert.match(body.reason, /Invalid user credentials/);
    const other = await fetch(`${running.url}/token/github`, {
      headers: basic('alice', 'alice-password'),
    });
    assert.equal(other.status, 404);
    assert.equal(((await other.json()) as any).error_code, 'ERR_NOT_FOUND');
  });

  test('GET /admin/token: the administrator’s password grant, then a token exchange for `username`', async () => {
    const before = server.requests.length;
    const response = await fetch(`${running.url}/admin/token/keycloak?username=bob`, {
      headers: basic('admin', 'admin-password'),
    });
    assert.equal(response.status, 200);
    const body = (await response.json()) as any;
    const payload = JSON.parse(
      Buffer.from(body.access_token.split('.')[1], 'base64url').toString(),
    );
    assert.equal(payload.preferred_username, 'bob');
    const [grant, exchange] = server.requests.slice(before);
    assert.equal(grant!.form.grant_type, 'password');
    assert.equal(grant!.form.username, 'admin');
    assert.equal(exchange!.form.grant_type, 'urn:ietf:params:oauth:grant-type:token-exchange');
    assert.equal(exchange!.form.requested_subject, 'bob');
    assert.equal(exchange!.form.client_id, 'gateway-client');
    assert.equal(exchange!.form.client_secret, clientSecret);
    assert.match(exchange!.form.subject_token!, /^[\w-]+\.[\w-]+\.[\w-]+$/);

    const missing = await fetch(`${running.url}/admin/token`, {
      headers: basic('admin', 'admin-password'),
    });
    assert.equal(missing.status, 400);
    assert.ok(((await missing.json()) as any).error_code);
    assert.equal((await fetch(`${running.url}/admin/token?username=bob`)).status, 401);
    // Someone the provider signs in but who holds none of ADMIN_ROLES: refused by the gateway,
    // whatever the provider's exchange policy, and before the missing username is noticed.
    for (const query of ['?username=bob', '']) {
      const asked = server.requests.length;
      const notAdmin = await fetch(`${running.url}/admin/token${query}`, {
        headers: basic('alice', 'alice-password'),
      });
      assert.equal(notAdmin.status, 403);
      assert.equal(((await notAdmin.json()) as any).error_code, 'ERR_FORBIDDEN');
      assert.deepEqual(
        server.requests.slice(asked).map((request) => request.form.grant_type),
        ['password'],
        'no exchange asked for',
      );
    }
  });

  test('/oidc: login redirects with state and PKCE, callback sets HttpOnly SameSite=Lax cookies that authenticate, refresh, logout', async () => {
    const jar = new CookieJar();
    const login = await jar.fetch(`${running.url}/oidc/login`);
    assert.equal(login.status, 302);
    const authorize = new URL(login.headers.get('location')!);
    assert.equal(
      authorize.origin + authorize.pathname,
      'http://idp.example/realms/test/protocol/openid-connect/auth',
    );
    assert.equal(authorize.searchParams.get('client_id'), 'gateway-client');
    assert.equal(authorize.searchParams.get('response_type'), 'code');
    assert.equal(authorize.searchParams.get('redirect_uri'), `${running.url}/oidc/callback`);
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    const state = authorize.searchParams.get('state')!;
    const stateCookie = setCookies(login).get('gateway_oidc_state')!;
    assert.match(stateCookie, /HttpOnly/);
    assert.match(stateCookie, /Max-Age=300/);
    assert.match(stateCookie, /SameSite=Lax/);

    // A forged state is refused, and nothing is asked of the provider.
    const asked = server.requests.length;
    const forged = await jar.fetch(`${running.url}/oidc/callback?code=good-code&state=forged`);
    assert.equal(forged.status, 400);
    assert.equal(((await forged.json()) as any).error_code, 'ERR_BAD_QUERY_PARAMETER');
    assert.equal(server.requests.length, asked);

    const callback = await jar.fetch(`${running.url}/oidc/callback?code=good-code&state=${state}`);
    assert.equal(callback.status, 302);
    assert.equal(callback.headers.get('location'), '/docs');
    const exchange = server.requests.at(-1)!.form;
    assert.equal(exchange.grant_type, 'authorization_code');
    assert.equal(exchange.redirect_uri, `${running.url}/oidc/callback`);
    assert.equal(
      createHash('sha256').update(exchange.code_verifier!).digest('base64url'),
      authorize.searchParams.get('code_challenge'),
    );
    const cookies = setCookies(callback);
    for (const name of ['gateway_access_token', 'gateway_refresh_token']) {
      assert.match(cookies.get(name)!, /; HttpOnly/, name);
      assert.match(cookies.get(name)!, /; SameSite=Lax/, name);
    }
    assert.match(cookies.get('gateway_oidc_state')!, /Max-Age=0/);

    const sessions = await jar.fetch(`${running.url}/secured/sessions`);
    assert.equal(sessions.status, 200);

    const refreshed = await jar.fetch(`${running.url}/oidc/refresh`, { method: 'POST' });
    assert.equal(refreshed.status, 200);
    assert.deepEqual((await refreshed.json()) as any, { expires_in: 300 });
    assert.equal(server.requests.at(-1)!.form.grant_type, 'refresh_token');

    const logout = await jar.fetch(`${running.url}/oidc/logout`);
    assert.equal(logout.status, 302);
    assert.equal(logout.headers.get('location'), '/docs');
    assert.equal(jar.values.size, 0);
    assert.equal((await jar.fetch(`${running.url}/secured/sessions`)).status, 401);
    assert.equal((await jar.fetch(`${running.url}/oidc/refresh`, { method: 'POST' })).status, 401);
  });

  test('the embedded provider’s sign-in locks are not there: 501 to an administrator', async () => {
    const admin = { authorization: `Bearer ${(await tokensFor('admin')).access_token}` };
    for (const [method, path] of [
      ['GET', '/admin/sign-in-locks'],
      ['DELETE', '/admin/sign-in-locks/users/bob'],
      ['DELETE', '/admin/sign-in-locks/addresses/192.0.2.1'],
    ] as const) {
      const response = await fetch(`${running.url}${path}`, { method, headers: admin });
      assert.equal(response.status, 501, path);
      assert.equal(((await response.json()) as any).error_code, 'ERR_NOT_IMPLEMENTED', path);
    }
  });
});

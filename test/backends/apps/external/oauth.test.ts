// The apps service's OAuth routes (backends.md §5.4) over real HTTP on both engines, against a
// real token endpoint: authorization requests, the code exchange and its refusals, sealed storage,
// token info, refresh on expiry (and what a refused or failed refresh does), login's auth_redirect.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { backendSecretHeader, buildBackendHost } from '../../../../src/embedded/host.ts';
import { loadConfig } from '../../../../src/config/index.ts';
import { tokenKeyPath } from '../../../../src/backends/apps/external/token-cipher.ts';
import { refreshMarginMs } from '../../../../src/backends/apps/external/oauth-tokens.ts';
import { hostEngines, type BackendHost } from '../../../support/backend-host.ts';
import {
  closedPortUrl,
  startOAuthServer,
  tokenLifetimeSeconds,
  type OAuthServer,
} from '../../../support/oauth-server.ts';

const authorizeUrl = 'https://provider.example/oauth/authorize?audience=jobs';
const clientId = 'gateway-client';
const clientSecret = 'se:cret/with&chars';
const start = 1_700_000_000_000;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const extapiEnv = (tokenUrl: string) => ({
  EXTAPI_AUTHORIZE_URL: authorizeUrl,
  EXTAPI_TOKEN_URL: tokenUrl,
  EXTAPI_CLIENT_ID: clientId,
  EXTAPI_CLIENT_SECRET: clientSecret,
});

const q = encodeURIComponent;

for (const engine of hostEngines) {
  describe(`apps OAuth routes (${engine.name})`, () => {
    let host: BackendHost | undefined;
    let provider: OAuthServer;
    let clock = start;

    before(async () => {
      provider = await startOAuthServer();
      host = await engine.open({
        names: ['apps'],
        env: () => extapiEnv(provider.tokenUrl),
        now: () => clock,
      });
    });
    after(async () => {
      await host?.close();
      await provider.close();
    });

    const get = async (url: string) => {
      const answer = await host!.request('GET', `/apps${url}`);
      return { status: answer.status, body: answer.text ? answer.json() : undefined };
    };
    const remove = async (url: string) => {
      const answer = await host!.request('DELETE', `/apps${url}`);
      return { status: answer.status, body: answer.text ? answer.json() : undefined };
    };
    const pendingOf = (user: string) =>
      host!.store.db
        .selectFrom('oauth_authorization_requests')
        .selectAll()
        .where('username', '=', user)
        .execute();
    const tokenRow = (user: string) =>
      host!.store.db
        .selectFrom('oauth_access_tokens')
        .selectAll()
        .where('username', '=', user)
        .where('webapp', '=', 'extapi')
        .executeTakeFirst();
    /** A fresh authorization request for `user`, answering its state. */
    const newState = async (user: string) => {
      const { body } = await get(`/oauth/redirect-uris?user=${user}`);
      return new URL(body.extapi).searchParams.get('state')!;
    };
    /** Alice authorizes: a code the provider grants, exchanged with her state. */
    const authorize = async (user: string, code = `code-${randomUUID()}`) => {
      provider.grantCode(code);
      return get(
        `/oauth/access-code/extapi?user=${user}&code=${q(code)}&state=${await newState(user)}`,
      );
    };

    test('redirect-uris stores an authorization request and answers the provider URL with its state', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set');
      clock = start;
      const { status, body } = await get('/oauth/redirect-uris?user=alice');
      assert.equal(status, 200);
      assert.deepEqual(Object.keys(body), ['extapi']);
      const url = new URL(body.extapi);
      const configured = new URL(authorizeUrl);
      assert.equal(url.origin + url.pathname, configured.origin + configured.pathname);
      assert.equal(
        url.searchParams.get('audience'),
        'jobs',
        "the authorize URL's own parameters are kept",
      );
      assert.equal(url.searchParams.get('response_type'), 'code');
      assert.equal(url.searchParams.get('client_id'), clientId);
      assert.equal(
        url.searchParams.get('redirect_uri'),
        'http://localhost:8080/oauth/callback/extapi',
        'the default redirect URI is the gateway callback',
      );
      const state = url.searchParams.get('state')!;
      assert.match(state, uuidPattern);
      assert.deepEqual(await pendingOf('alice'), [
        {
          id: state,
          username: 'alice',
          state_info: JSON.stringify({ api_name: 'extapi' }),
          created_on: start,
        },
      ]);

      const login = await host.request('POST', '/apps/users/login?user=alice', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ 'login-time': start }),
      });
      assert.equal(login.status, 200);
      const loginState = new URL(login.json().auth_redirect.extapi).searchParams.get('state');
      assert.notEqual(loginState, state, 'each prompt is a request of its own');
      assert.equal((await pendingOf('alice')).length, 2);
      assert.equal(provider.requests.length, 0, 'nothing reaches the token endpoint before a code');
    });

    test('an authorization request older than a day is dropped when the user gets a new one', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set');
      clock = start;
      const old = await newState('dora');
      clock = start + 24 * 60 * 60_000 + 1;
      const fresh = await newState('dora');
      assert.deepEqual(
        (await pendingOf('dora')).map((row) => row.id),
        [fresh],
      );
      const answer = await get(`/oauth/access-code/extapi?user=dora&code=x&state=${old}`);
      assert.equal(answer.status, 400);
    });

    test('access-code refuses unknown APIs, missing parameters, unknown states and states of other users', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set');
      clock = start;
      const aliceState = await newState('alice');
      const before = provider.requests.length;

      const unknownApi = await get(
        `/oauth/access-code/otherapi?user=alice&code=c&state=${aliceState}`,
      );
      assert.equal(unknownApi.status, 404);
      assert.equal(unknownApi.body.error_code, 'ERR_NOT_FOUND');
      assert.equal(unknownApi.body.reason, 'unknown API name: otherapi (configured: extapi)');

      const noCode = await get(`/oauth/access-code/extapi?user=alice&state=${aliceState}`);
      assert.equal(noCode.status, 400);
      assert.equal(noCode.body.error_code, 'ERR_MISSING_QUERY_PARAMETER');
      const noState = await get('/oauth/access-code/extapi?user=alice&code=c');
      assert.equal(noState.status, 400);
      assert.equal(noState.body.error_code, 'ERR_MISSING_QUERY_PARAMETER');

      const unknown = randomUUID();
      const unknownState = await get(
        `/oauth/access-code/extapi?user=alice&code=c&state=${unknown}`,
      );
      assert.equal(unknownState.status, 400);
      assert.equal(unknownState.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      assert.equal(unknownState.body.reason, `authorization request ${unknown} not found`);

      const pendingBefore = await pendingOf('alice');
      const stolen = await get(`/oauth/access-code/extapi?user=bob&code=c&state=${aliceState}`);
      assert.equal(stolen.status, 400);
      assert.equal(stolen.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      assert.equal(stolen.body.reason, `wrong user for authorization request ${aliceState}`);
      assert.deepEqual(
        await pendingOf('alice'),
        pendingBefore,
        "another user's attempt leaves the state as it was",
      );
      assert.equal(provider.requests.length, before, 'no refused call reaches the token endpoint');
      assert.equal(await tokenRow('bob'), undefined);
    });

    test("access-code exchanges the code, stores the token sealed, uses up the user's requests and answers state_info", async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set');
      clock = start;
      const state = await newState('alice');
      assert.ok((await pendingOf('alice')).length >= 2, 'alice has other pending requests too');
      provider.grantCode('code-alice');
      const before = provider.requests.length;
      const { status, body } = await get(
        `/oauth/access-code/extapi?user=alice&code=code-alice&state=${state}`,
      );
      assert.equal(status, 200);
      assert.deepEqual(body, { state_info: JSON.stringify({ api_name: 'extapi' }) });

      assert.equal(provider.requests.length, before + 1);
      const sent = provider.requests.at(-1)!;
      assert.deepEqual(sent.form, {
        grant_type: 'authorization_code',
        code: 'code-alice',
        redirect_uri: 'http://localhost:8080/oauth/callback/extapi',
        client_id: clientId,
      });
      assert.deepEqual(sent.basic, { id: clientId, secret: clientSecret });

      assert.deepEqual(await pendingOf('alice'), [], "every pending request of alice's is gone");
      const issued = provider.issued.at(-1)!;
      const row = await tokenRow('alice');
      assert.ok(row);
      assert.equal(row.expires_at, start + tokenLifetimeSeconds * 1000);
      const stored = JSON.stringify(row);
      for (const secret of [issued.access_token, issued.refresh_token]) {
        assert.ok(!stored.includes(secret), 'the token is not stored in the clear');
        assert.ok(!stored.includes(Buffer.from(secret).toString('base64')), 'nor merely encoded');
      }
      assert.notEqual(row.token, row.refresh_token);

      const again = await get(
        `/oauth/access-code/extapi?user=alice&code=code-alice&state=${state}`,
      );
      assert.equal(again.status, 400, 'a state is used once');
      assert.equal(again.body.reason, `authorization request ${state} not found`);
    });

    test('token-info answers expires_at and webapp for a stored token and 404 otherwise; the admin route shows the token', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set');
      clock = start;
      const none = await get('/oauth/token-info/extapi?user=erin');
      assert.equal(none.status, 404);
      assert.deepEqual(none.body, {
        error_code: 'ERR_NOT_FOUND',
        reason: 'access token not found',
        api_name: 'extapi',
      });
      const unknownApi = await get('/oauth/token-info/otherapi?user=erin');
      assert.equal(unknownApi.status, 404);
      assert.match(unknownApi.body.reason, /^unknown API name: otherapi/);

      assert.equal((await authorize('erin')).status, 200);
      const issued = provider.issued.at(-1)!;
      const info = await get('/oauth/token-info/extapi?user=erin');
      assert.equal(info.status, 200);
      assert.deepEqual(info.body, {
        expires_at: start + tokenLifetimeSeconds * 1000,
        webapp: 'extapi',
      });

      const admin = await get('/admin/oauth/token-info/extapi?user=root&proxy-user=erin');
      assert.deepEqual(admin.body, {
        access_token: issued.access_token,
        expires_at: start + tokenLifetimeSeconds * 1000,
        refresh_token: issued.refresh_token,
        webapp: 'extapi',
      });
      const adminOwn = await get('/admin/oauth/token-info/extapi?user=root');
      assert.equal(
        adminOwn.status,
        404,
        'without proxy-user the administrator is asking about themself',
      );

      assert.deepEqual(
        (await get('/oauth/redirect-uris?user=erin')).body,
        {},
        'nothing to authorize with a token',
      );
      const login = await host.request('POST', '/apps/users/login?user=erin', {
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      assert.deepEqual(login.json().auth_redirect, {});
      assert.deepEqual(await pendingOf('erin'), [], 'and no request is stored');
    });

    test('DELETE token-info removes the token (404 when there is none), as the user or an administrator', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set');
      clock = start;
      await authorize('fred');
      assert.equal((await remove('/oauth/token-info/extapi?user=fred')).status, 200);
      assert.equal(await tokenRow('fred'), undefined);
      const again = await remove('/oauth/token-info/extapi?user=fred');
      assert.equal(again.status, 404);
      assert.equal(again.body.error_code, 'ERR_NOT_FOUND');
      assert.ok((await get('/oauth/redirect-uris?user=fred')).body.extapi, 'fred is asked again');

      await authorize('fred');
      assert.equal(
        (await remove('/admin/oauth/token-info/extapi?user=root&proxy-user=fred')).status,
        200,
      );
      assert.equal((await get('/oauth/token-info/extapi?user=fred')).status, 404);
    });

    test('an expired token is refreshed with its refresh token when read, once for concurrent readers', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set');
      clock = start;
      await authorize('gina');
      const first = provider.issued.at(-1)!;
      const expiresAt = start + tokenLifetimeSeconds * 1000;

      clock = expiresAt - refreshMarginMs - 1;
      const before = provider.requests.length;
      assert.equal(
        (await get('/oauth/token-info/extapi?user=gina')).body.expires_at,
        expiresAt,
        'still good: no refresh',
      );
      assert.equal(provider.requests.length, before);

      clock = expiresAt + 5_000;
      const [one, two] = await Promise.all([
        get('/oauth/token-info/extapi?user=gina'),
        get('/oauth/token-info/extapi?user=gina'),
      ]);
      assert.equal(provider.requests.length, before + 1, 'one refresh for both readers');
      const sent = provider.requests.at(-1)!;
      assert.deepEqual(sent.form, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: clientId,
      });
      assert.deepEqual(sent.basic, { id: clientId, secret: clientSecret });
      const refreshedAt = clock + tokenLifetimeSeconds * 1000;
      assert.deepEqual(one.body, { expires_at: refreshedAt, webapp: 'extapi' });
      assert.deepEqual(two.body, one.body);
      const second = provider.issued.at(-1)!;
      const admin = await get('/admin/oauth/token-info/extapi?user=root&proxy-user=gina');
      assert.equal(admin.body.access_token, second.access_token);
      assert.equal(
        admin.body.refresh_token,
        second.refresh_token,
        'a rotated refresh token replaces the old one',
      );
      assert.equal((await tokenRow('gina'))?.expires_at, refreshedAt);
    });

    test('a refused refresh drops the token, so the user is asked to authorize again', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set');
      clock = start;
      await authorize('hank');
      await host.store.db
        .updateTable('oauth_access_tokens')
        .set({ expires_at: start - 1 })
        .where('username', '=', 'hank')
        .execute();
      provider.failWith({
        status: 400,
        body: { error: 'invalid_grant', error_description: 'refresh token revoked' },
      });
      try {
        const info = await get('/oauth/token-info/extapi?user=hank');
        assert.equal(info.status, 404);
        assert.equal(provider.requests.at(-1)!.form.grant_type, 'refresh_token');
      } finally {
        provider.failWith(undefined);
      }
      assert.equal(await tokenRow('hank'), undefined);
      assert.ok((await get('/oauth/redirect-uris?user=hank')).body.extapi);
    });

    test('a token endpoint outage during a refresh keeps the token and answers 502; login does not prompt for it', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set');
      clock = start;
      await authorize('ivy');
      clock = start + tokenLifetimeSeconds * 1000;
      provider.failWith({ status: 503, body: { error: 'temporarily_unavailable' } });
      try {
        const info = await get('/oauth/token-info/extapi?user=ivy');
        assert.equal(info.status, 502);
        assert.equal(info.body.error_code, 'ERR_OAUTH_SERVER');
        assert.equal(info.body.provider_status, 503);
        const login = await host.request('POST', '/apps/users/login?user=ivy', {
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        assert.equal(login.status, 200);
        assert.deepEqual(
          login.json().auth_redirect,
          {},
          'authorizing again would not help during an outage',
        );
      } finally {
        provider.failWith(undefined);
      }
      assert.ok(await tokenRow('ivy'));
      assert.equal(
        (await get('/oauth/token-info/extapi?user=ivy')).status,
        200,
        'refreshed once the provider is back',
      );
    });

    test('a token without a refresh token is dropped once it expires', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set');
      clock = start;
      await authorize('jack');
      await host.store.db
        .updateTable('oauth_access_tokens')
        .set({ refresh_token: null, expires_at: start })
        .where('username', '=', 'jack')
        .execute();
      const before = provider.requests.length;
      assert.equal((await get('/oauth/token-info/extapi?user=jack')).status, 404);
      assert.equal(provider.requests.length, before);
      assert.equal(await tokenRow('jack'), undefined);
    });

    test("a sealed token copied into another user's row does not open there, and is dropped", async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set');
      clock = start;
      await authorize('kate');
      const row = (await tokenRow('kate'))!;
      await host.store.db
        .insertInto('oauth_access_tokens')
        .values({ ...row, username: 'mallory' })
        .execute();
      assert.equal((await get('/oauth/token-info/extapi?user=mallory')).status, 404);
      assert.equal(await tokenRow('mallory'), undefined);
      assert.equal((await get('/oauth/token-info/extapi?user=kate')).status, 200);
    });

    test('a token endpoint error or an unreachable one answers 502 ERR_OAUTH_SERVER, storing nothing', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set');
      clock = start;
      provider.failWith({
        status: 500,
        body: { error: 'server_error', error_description: 'database down' },
      });
      try {
        const failed = await get(
          `/oauth/access-code/extapi?user=lena&code=c&state=${await newState('lena')}`,
        );
        assert.equal(failed.status, 502);
        assert.equal(failed.body.error_code, 'ERR_OAUTH_SERVER');
        assert.equal(failed.body.provider_status, 500);
        assert.equal(failed.body.provider_error, 'server_error');
        assert.equal(failed.body.api_name, 'extapi');
      } finally {
        provider.failWith(undefined);
      }
      const refused = await get(
        `/oauth/access-code/extapi?user=lena&code=never-granted&state=${await newState('lena')}`,
      );
      assert.equal(refused.status, 502, 'a code the provider refuses');
      assert.equal(refused.body.provider_error, 'invalid_grant');
      assert.equal(await tokenRow('lena'), undefined);

      const state = await newState('lena');
      await provider.close();
      const unreachable = await get(`/oauth/access-code/extapi?user=lena&code=c&state=${state}`);
      assert.equal(unreachable.status, 502);
      assert.equal(unreachable.body.error_code, 'ERR_OAUTH_SERVER');
      assert.match(unreachable.body.reason, /could not be reached/);
      assert.equal(await tokenRow('lena'), undefined);
    });
  });
}

describe('apps OAuth without an extapi client', () => {
  let host: BackendHost | undefined;
  before(async () => {
    host = await hostEngines[0]!.open({ names: ['apps'] });
  });
  after(async () => host?.close());

  test('nothing to authorize, and access-code says extapi is not configured', async () => {
    assert.deepEqual(
      (await host!.request('GET', '/apps/oauth/redirect-uris?user=alice')).json(),
      {},
    );
    const login = await host!.request('POST', '/apps/users/login?user=alice', {
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.deepEqual(login.json().auth_redirect, {});
    const code = await host!.request(
      'GET',
      `/apps/oauth/access-code/extapi?user=alice&code=c&state=${randomUUID()}`,
    );
    assert.equal(code.status, 404);
    assert.equal(code.json().error_code, 'ERR_NOT_FOUND');
    assert.match(
      code.json().reason,
      /^unknown API name: extapi \(configured: none; see OAUTH_APIS\)/,
    );
  });

  test('the token encryption key is made once in the data directory, readable by its owner only', () => {
    const file = tokenKeyPath(host!.dir);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').length, 32);
  });
});

describe('the token encryption key survives a restart', () => {
  test('a second service instance on the same data directory opens the tokens the first stored', async () => {
    const provider = await startOAuthServer();
    const first = await hostEngines[0]!.open({
      names: ['apps'],
      env: () => extapiEnv(provider.tokenUrl),
    });
    let second: FastifyInstance | undefined;
    try {
      assert.ok(first);
      const state = new URL(
        (await first.request('GET', '/apps/oauth/redirect-uris?user=alice')).json().extapi,
      ).searchParams.get('state');
      provider.grantCode('c1');
      assert.equal(
        (
          await first.request(
            'GET',
            `/apps/oauth/access-code/extapi?user=alice&code=c1&state=${state}`,
          )
        ).status,
        200,
      );
      // A new instance reads the key from the data directory: it has nothing in memory from the first.
      second = await buildBackendHost({
        names: ['apps'],
        context: {
          store: first.store,
          config: loadConfig({ GATEWAY_DATA_DIR: first.dir, ...extapiEnv(await closedPortUrl()) }),
          notify: async () => true,
        },
        secret: 'restart-secret',
        logger: pino({ level: 'silent' }),
        bodyLimitBytes: 1024,
        logRequests: false,
      });
      const answer = await second.inject({
        method: 'GET',
        url: '/apps/admin/oauth/token-info/extapi?user=root&proxy-user=alice',
        headers: { [backendSecretHeader]: 'restart-secret' },
      });
      assert.equal(answer.statusCode, 200);
      assert.equal(answer.json().access_token, provider.issued.at(-1)!.access_token);
    } finally {
      await second?.close();
      await first?.close();
      await provider.close();
    }
  });
});

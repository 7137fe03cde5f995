// OAuth for the third-party job API through the gateway (routes.md §8, spec "OAuth authorization
// code callback"), on both engines with a real token endpoint: bootstrap's auth_redirect, the
// provider's browser callback redirecting to the UI, the access-code exchange, token info.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startBackend, type TestBackend } from '../support/backend.ts';
import { rawRequest } from '../support/fileio.ts';
import { admin, startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';
import {
  startOAuthServer,
  tokenLifetimeSeconds,
  type OAuthServer,
} from '../support/oauth-server.ts';

const uiBaseUrl = 'https://ui.example/de/?tab=home';
const authorizeUrl = 'https://provider.example/authorize';
const q = encodeURIComponent;

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`OAuth through the gateway (${engine})`, () => {
    let gateway: MetadataGateway | undefined;
    let provider: OAuthServer;

    before(async () => {
      provider = await startOAuthServer();
      gateway = await startMetadataGateway({
        engine,
        env: {
          EXTAPI_AUTHORIZE_URL: authorizeUrl,
          EXTAPI_TOKEN_URL: provider.tokenUrl,
          EXTAPI_CLIENT_ID: 'gw',
          EXTAPI_CLIENT_SECRET: 'gw-secret',
          UI_BASE_URL: uiBaseUrl,
        },
      });
    });
    after(async () => {
      await gateway?.close();
      await provider.close();
    });

    /** The provider's side of step 4: the browser comes back to the gateway callback, which sends it on to the UI. */
    const browserReturns = async (query: Record<string, string>) => {
      const response = await fetch(
        `${gateway!.url}/oauth/callback/extapi?${new URLSearchParams(query)}`,
        { redirect: 'manual' },
      );
      await response.body?.cancel();
      return { status: response.status, location: response.headers.get('location') };
    };

    const bootstrapRedirect = async (user: string) =>
      (await gateway!.ok(user, 'GET', '/secured/bootstrap')).session.auth_redirect;

    test('the callback sends the browser to the UI with the code and state, or with the error', async (t) => {
      if (!gateway) return t.skip('DATABASE_URL is not set');
      const granted = await browserReturns({ code: 'the-code', state: 'the-state' });
      assert.equal(granted.status, 302);
      const expected = new URL(uiBaseUrl);
      for (const [name, value] of Object.entries({
        type: 'oauth',
        api: 'extapi',
        code: 'the-code',
        state: 'the-state',
      }))
        expected.searchParams.set(name, value);
      assert.equal(granted.location, expected.toString());
      assert.equal(
        new URL(granted.location!).searchParams.get('tab'),
        'home',
        "the UI address's own query is kept",
      );

      const denied = await browserReturns({
        error: 'access_denied',
        error_description: 'The user said no',
        error_uri: 'https://provider.example/help',
        state: 'the-state',
      });
      assert.equal(denied.status, 302);
      const deniedAt = new URL(denied.location!);
      assert.equal(deniedAt.origin + deniedAt.pathname, 'https://ui.example/de/');
      assert.deepEqual(Object.fromEntries(deniedAt.searchParams), {
        tab: 'home',
        type: 'oauth',
        api: 'extapi',
        error: 'access_denied',
        error_description: 'The user said no',
        error_uri: 'https://provider.example/help',
        state: 'the-state',
      });

      const neither = await fetch(`${gateway.url}/oauth/callback/extapi?state=s`, {
        redirect: 'manual',
      });
      assert.equal(neither.status, 400);
      assert.equal(
        ((await neither.json()) as { error_code: string }).error_code,
        'ERR_MISSING_QUERY_PARAMETER',
      );
      const noState = await fetch(`${gateway.url}/oauth/callback/extapi?code=c`, {
        redirect: 'manual',
      });
      assert.equal(noState.status, 400);
      assert.equal(
        ((await noState.json()) as { error_code: string }).error_code,
        'ERR_MISSING_QUERY_PARAMETER',
      );
    });

    test('the whole flow: bootstrap prompts, the provider grants, the UI exchanges the code, bootstrap stops prompting', async (t) => {
      if (!gateway) return t.skip('DATABASE_URL is not set');
      const prompt = await bootstrapRedirect('alice');
      assert.deepEqual(Object.keys(prompt), ['extapi']);
      const authorize = new URL(prompt.extapi);
      assert.equal(authorize.origin + authorize.pathname, authorizeUrl);
      assert.equal(authorize.searchParams.get('client_id'), 'gw');
      const redirectUri = `http://localhost:${gateway.running.gateway.config.port}/oauth/callback/extapi`;
      assert.equal(authorize.searchParams.get('redirect_uri'), redirectUri);
      const state = authorize.searchParams.get('state')!;

      provider.grantCode('alice-code');
      const back = await browserReturns({ code: 'alice-code', state });
      const atUi = new URL(back.location!).searchParams;
      // The web UI calls the unprefixed route (clients.md §3.6) with a `{}` body (§3.1); a client-sent user is not believed.
      const exchanged = await rawRequest(
        `${gateway.url}/oauth/access-code/extapi?code=${q(atUi.get('code')!)}&state=${q(atUi.get('state')!)}&user=mallory&extra=1`,
        {
          method: 'GET',
          headers: {
            ...(await gateway.authHeaders('alice')),
            'content-type': 'application/json',
            'content-length': '2',
          },
        },
        (request) => void request.end('{}'),
      );
      assert.equal(exchanged.status, 200, exchanged.body);
      assert.deepEqual(JSON.parse(exchanged.body), {
        state_info: JSON.stringify({ api_name: 'extapi' }),
      });
      const sent = provider.requests.at(-1)!;
      assert.deepEqual(sent.form, {
        grant_type: 'authorization_code',
        code: 'alice-code',
        redirect_uri: redirectUri,
        client_id: 'gw',
      });
      assert.deepEqual(sent.basic, { id: 'gw', secret: 'gw-secret' });

      assert.deepEqual(await bootstrapRedirect('alice'), {});
      assert.deepEqual(await gateway.ok('alice', 'GET', '/secured/oauth/redirect-uris'), {});
      const info = await gateway.ok('alice', 'GET', '/secured/oauth/token-info/extapi');
      assert.deepEqual(Object.keys(info).sort(), ['expires_at', 'webapp']);
      assert.equal(info.webapp, 'extapi');
      assert.ok(Math.abs(info.expires_at - (Date.now() + tokenLifetimeSeconds * 1000)) < 60_000);
      assert.equal(
        (await gateway.call('mallory', 'GET', '/secured/oauth/token-info/extapi')).status,
        404,
        'the token is alice’s, not the user the client named',
      );

      const seen = await gateway.ok(
        admin,
        'GET',
        '/admin/oauth/token-info/extapi?proxy-user=alice',
      );
      assert.equal(seen.access_token, provider.issued.at(-1)!.access_token);
      assert.equal(
        (await gateway.call('bob', 'GET', '/admin/oauth/token-info/extapi?proxy-user=alice'))
          .status,
        403,
      );

      assert.equal(
        (await gateway.call('alice', 'DELETE', '/secured/oauth/token-info/extapi')).status,
        200,
      );
      const gone = await gateway.call('alice', 'GET', '/oauth/token-info/extapi');
      assert.equal(gone.status, 404);
      assert.equal(gone.body.error_code, 'ERR_NOT_FOUND');
      assert.ok((await bootstrapRedirect('alice')).extapi, 'prompted again once the token is gone');
    });

    test("access-code refuses missing parameters, unknown APIs and another user's state; the owner can still use it", async (t) => {
      if (!gateway) return t.skip('DATABASE_URL is not set');
      const state = new URL(
        (await gateway.ok('carol', 'GET', '/oauth/redirect-uris')).extapi,
      ).searchParams.get('state')!;
      const missing = await gateway.call(
        'carol',
        'GET',
        `/secured/oauth/access-code/extapi?state=${state}`,
      );
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error_code, 'ERR_MISSING_QUERY_PARAMETER');
      const unknownApi = await gateway.call(
        'carol',
        'GET',
        `/secured/oauth/access-code/otherapi?code=c&state=${state}`,
      );
      assert.equal(unknownApi.status, 404);
      assert.equal(unknownApi.body.error_code, 'ERR_NOT_FOUND');
      const stolen = await gateway.call(
        'dave',
        'GET',
        `/secured/oauth/access-code/extapi?code=c&state=${state}`,
      );
      assert.equal(stolen.status, 400);
      assert.equal(stolen.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      const anonymous = await gateway.call(
        null,
        'GET',
        `/oauth/access-code/extapi?code=c&state=${state}`,
      );
      assert.equal(anonymous.status, 401);

      provider.grantCode('carol-code');
      const own = await gateway.call(
        'carol',
        'GET',
        `/secured/oauth/access-code/extapi?code=carol-code&state=${state}`,
      );
      assert.equal(own.status, 200);
      assert.equal((await gateway.call('carol', 'GET', '/oauth/token-info/extapi')).status, 200);
    });

    test('a token endpoint failure reaches the client as 502 ERR_OAUTH_SERVER', async (t) => {
      if (!gateway) return t.skip('DATABASE_URL is not set');
      const state = new URL((await bootstrapRedirect('erin')).extapi).searchParams.get('state')!;
      provider.failWith({ status: 500, body: { error: 'server_error' } });
      try {
        const failed = await gateway.call(
          'erin',
          'GET',
          `/oauth/access-code/extapi?code=c&state=${state}`,
        );
        assert.equal(failed.status, 502);
        assert.equal(failed.body.error_code, 'ERR_OAUTH_SERVER');
      } finally {
        provider.failWith(undefined);
      }
      assert.ok((await bootstrapRedirect('erin')).extapi, 'still no token: prompted again');
    });
  });
}

describe('the access-code route forwards only code, state and the identity', () => {
  let apps: TestBackend;
  let gateway: MetadataGateway | undefined;
  before(async () => {
    apps = await startBackend();
    gateway = await startMetadataGateway({ env: { APPS_URL: apps.url } });
  });
  after(async () => {
    await gateway?.close();
    await apps.close();
  });

  test('client parameters beyond code and state, a client-sent user included, stay behind', async () => {
    const answer = await gateway!.call(
      'alice',
      'GET',
      '/oauth/access-code/extapi?code=c%26d&state=s1&user=mallory&extra=1&proxy-user=bob',
    );
    assert.equal(answer.status, 200);
    const sent = apps.requests.at(-1)!;
    assert.equal(sent.path, '/oauth/access-code/extapi');
    assert.deepEqual([...new Set(sent.query.keys())].sort(), [
      'code',
      'email',
      'first-name',
      'last-name',
      'state',
      'user',
    ]);
    assert.deepEqual(sent.query.getAll('user'), ['alice']);
    assert.equal(sent.query.get('code'), 'c&d');
    assert.equal(sent.query.get('state'), 's1');
  });
});

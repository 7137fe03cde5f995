// Several OAuth APIs from configuration (OAUTH_APIS) through the gateway, on both engines: `extapi`
// under its former EXTAPI_* variables and `tapis` under TAPIS_OAUTH_*, each with its own token
// endpoint. Bootstrap prompts for both; each is authorized with its own state (granting one leaves
// the other's state usable, and a state of one is refused for the other); token info answers for
// both, to users and administrators; an API not configured is 404 ERR_NOT_FOUND everywhere.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { admin, startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';
import { startOAuthServer, type OAuthServer } from '../support/oauth-server.ts';

const q = encodeURIComponent;

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`OAuth APIs from configuration (${engine})`, () => {
    let gateway: MetadataGateway | undefined;
    let extapi: OAuthServer;
    let tapis: OAuthServer;

    before(async () => {
      extapi = await startOAuthServer();
      tapis = await startOAuthServer();
      gateway = await startMetadataGateway({
        engine,
        env: {
          OAUTH_APIS: 'extapi,tapis',
          EXTAPI_AUTHORIZE_URL: 'https://extapi.example/authorize',
          EXTAPI_TOKEN_URL: extapi.tokenUrl,
          EXTAPI_CLIENT_ID: 'gw-extapi',
          TAPIS_OAUTH_AUTHORIZE_URL: 'https://tapis.example/authorize',
          TAPIS_OAUTH_TOKEN_URL: tapis.tokenUrl,
          TAPIS_OAUTH_CLIENT_ID: 'gw-tapis',
          TAPIS_OAUTH_CLIENT_SECRET: 'tapis-secret',
        },
      });
    });
    after(async () => {
      await gateway?.close();
      await extapi.close();
      await tapis.close();
    });

    const exchange = (user: string, api: string, code: string, state: string) =>
      gateway!.call(user, 'GET', `/oauth/access-code/${api}?code=${q(code)}&state=${q(state)}`);

    test('both APIs are prompted for, authorized and answered; each state is its own API’s', async (t) => {
      if (!gateway) return t.skip('DATABASE_URL is not set');
      const prompt = (await gateway.ok('alice', 'GET', '/secured/bootstrap')).session.auth_redirect;
      assert.deepEqual(Object.keys(prompt).sort(), ['extapi', 'tapis']);
      const stateOf = (api: string) => new URL(prompt[api]).searchParams.get('state')!;
      const tapisAuthorize = new URL(prompt.tapis);
      assert.equal(tapisAuthorize.origin, 'https://tapis.example');
      assert.equal(tapisAuthorize.searchParams.get('client_id'), 'gw-tapis');
      assert.match(tapisAuthorize.searchParams.get('redirect_uri')!, /\/oauth\/callback\/tapis$/);

      const callback = await fetch(
        `${gateway.url}/oauth/callback/tapis?code=c&state=${stateOf('tapis')}`,
        { redirect: 'manual' },
      );
      await callback.body?.cancel();
      assert.equal(callback.status, 302);
      assert.equal(new URL(callback.headers.get('location')!).searchParams.get('api'), 'tapis');

      const crossed = await exchange('alice', 'tapis', 'c', stateOf('extapi'));
      assert.equal(crossed.status, 400, crossed.text);
      assert.equal(crossed.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');

      extapi.grantCode('extapi-code');
      const first = await exchange('alice', 'extapi', 'extapi-code', stateOf('extapi'));
      assert.equal(first.status, 200, first.text);
      tapis.grantCode('tapis-code');
      const second = await exchange('alice', 'tapis', 'tapis-code', stateOf('tapis'));
      assert.equal(second.status, 200, second.text);
      assert.deepEqual(second.body, { state_info: JSON.stringify({ api_name: 'tapis' }) });
      assert.deepEqual(tapis.requests.at(-1)!.basic, { id: 'gw-tapis', secret: 'tapis-secret' });
      assert.equal(extapi.requests.at(-1)!.form.client_id, 'gw-extapi');

      for (const api of ['extapi', 'tapis']) {
        const info = await gateway.ok('alice', 'GET', `/secured/oauth/token-info/${api}`);
        assert.equal(info.webapp, api);
      }
      const seen = await gateway.ok(admin, 'GET', '/admin/oauth/token-info/tapis?proxy-user=alice');
      assert.equal(seen.access_token, tapis.issued.at(-1)!.access_token);
      assert.deepEqual(await gateway.ok('alice', 'GET', '/secured/oauth/redirect-uris'), {});
    });

    test('an API not configured is 404 ERR_NOT_FOUND', async (t) => {
      if (!gateway) return t.skip('DATABASE_URL is not set');
      const refusals = [
        await gateway.call('bob', 'GET', '/oauth/access-code/agave?code=c&state=s'),
        await gateway.call('bob', 'GET', '/secured/oauth/token-info/agave'),
        await gateway.call('bob', 'DELETE', '/oauth/token-info/agave'),
        await gateway.call(admin, 'GET', '/admin/oauth/token-info/agave?proxy-user=bob'),
      ];
      for (const refused of refusals) {
        assert.equal(refused.status, 404, refused.text);
        assert.equal(refused.body.error_code, 'ERR_NOT_FOUND');
        assert.match(refused.body.reason, /unknown API name: agave \(configured: extapi, tapis\)/);
      }
      const callback = await fetch(`${gateway.url}/oauth/callback/agave?code=c&state=s`, {
        redirect: 'manual',
      });
      assert.equal(callback.status, 404);
      assert.equal(((await callback.json()) as { error_code: string }).error_code, 'ERR_NOT_FOUND');
    });
  });
}

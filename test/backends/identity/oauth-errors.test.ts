// The embedded identity provider answers bad input as OAuth 2.0 and OpenID Connect clients expect
// (RFC 6749 §5.2): a JSON `{error, error_description}` from the token, userinfo, logout and
// authorization endpoints, whatever is wrong (a JSON or text body where a form is due, no body, a
// repeated parameter, a query of the wrong shape), never Fastify's `"[object Object]"` nor the
// gateway's own `{error_code}`; the authorization endpoint's error page only to a browser asking
// for HTML, and a signed-out page to a browser alone. A code is bound to the redirect URI given at
// authorize: exchanged with another (even one the client has), it is `invalid_grant`.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { noRateLimits, startGateway, type RunningGateway } from '../../support/gateway.ts';
import { addUser, CookieJar, signInThroughPage } from '../../support/identity.ts';

let running: RunningGateway;
let oidc: string;

before(async () => {
  running = await startGateway({
    ...noRateLimits,
    EMBEDDED_BACKENDS: 'user-info',
    IDP_CLIENTS: 'de-ui',
    IDP_CLIENT_DE_UI_REDIRECT_URIS: 'http://127.0.0.1:9/app/*',
  });
  oidc = `${running.url}/realms/platform/protocol/openid-connect`;
  await addUser(running, 'alice', 'alice-password');
});

after(async () => {
  await running?.close();
});

const form = 'application/x-www-form-urlencoded';

/** The answer, checked to be an RFC 6749 §5.2 error of `status` and `error` in JSON. */
async function oauthError(
  response: Response,
  status: number,
  error: string,
  label: string,
): Promise<string> {
  const text = await response.text();
  assert.equal(response.status, status, `${label}: ${text}`);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/, label);
  const body = JSON.parse(text);
  assert.equal(body.error, error, `${label}: ${text}`);
  assert.equal(typeof body.error_description, 'string', `${label}: ${text}`);
  assert.equal(body.error_code, undefined, label);
  return body.error_description;
}

test('the token endpoint: invalid_request for a body that is not one form of single parameters', async () => {
  const post = (headers: Record<string, string>, body?: string) =>
    fetch(`${oidc}/token`, { method: 'POST', headers, ...(body === undefined ? {} : { body }) });
  const cases: [string, Response][] = [
    ['JSON body', await post({ 'content-type': 'application/json' }, '{"grant_type":"password"}')],
    ['bad JSON body', await post({ 'content-type': 'application/json' }, '{')],
    ['text body', await post({ 'content-type': 'text/plain' }, 'grant_type=password')],
    ['no body', await post({})],
    [
      'a repeated parameter',
      await post({ 'content-type': form }, 'grant_type=password&grant_type=refresh_token'),
    ],
  ];
  for (const [label, response] of cases) await oauthError(response, 400, 'invalid_request', label);
  await oauthError(
    await post({ 'content-type': form }, 'grant_type=magic&client_id=de-ui'),
    400,
    'unsupported_grant_type',
    'an unknown grant',
  );
});

test('the authorization endpoint: JSON errors to clients, its error page to a browser, never [object Object]', async () => {
  const cases: [string, Response][] = [
    [
      'POST with a JSON body',
      await fetch(`${oidc}/auth`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"client_id":"de-ui"}',
      }),
    ],
    [
      'POST with a text body',
      await fetch(`${oidc}/auth`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'hello',
      }),
    ],
    ['POST with no body', await fetch(`${oidc}/auth`, { method: 'POST' })],
    ['GET with a repeated client_id', await fetch(`${oidc}/auth?client_id=a&client_id=b`)],
  ];
  for (const [label, response] of cases) await oauthError(response, 400, 'invalid_request', label);
  await oauthError(await fetch(`${oidc}/auth`), 400, 'invalid_client', 'GET with no client');
  await oauthError(
    await fetch(`${oidc}/auth?client_id=de-ui&redirect_uri=http://evil.example/`),
    400,
    'invalid_request',
    'a redirect URI the client does not have',
  );

  // A browser is shown the page (no script, not framable), for a bad query as for a bad client.
  for (const url of [`${oidc}/auth?client_id=a&client_id=b`, `${oidc}/auth`]) {
    const page = await fetch(url, { headers: { accept: 'text/html,application/xhtml+xml' } });
    assert.equal(page.status, 400);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.match(page.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
    const html = await page.text();
    assert.match(html, /Sign-in error/);
    assert.doesNotMatch(html, /object Object/);
  }
});

test('userinfo and logout: OAuth errors in JSON; the signed-out page to a browser only', async () => {
  await oauthError(
    await fetch(`${oidc}/userinfo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    }),
    400,
    'invalid_request',
    'userinfo with a broken JSON body',
  );
  const userinfo = await fetch(`${oidc}/userinfo`);
  await oauthError(userinfo, 401, 'invalid_token', 'userinfo without a token');

  for (const [label, init] of [
    ['a JSON body', { headers: { 'content-type': 'application/json' }, body: '{}' }],
    ['a text body', { headers: { 'content-type': 'text/plain' }, body: 'x' }],
  ] as const)
    await oauthError(
      await fetch(`${oidc}/logout`, { method: 'POST', ...init }),
      400,
      'invalid_request',
      `logout with ${label}`,
    );
  await oauthError(
    await fetch(`${oidc}/logout?state=a&state=b`),
    400,
    'invalid_request',
    'logout with a repeated state',
  );

  const script = await fetch(`${oidc}/logout`, { headers: { accept: 'application/json' } });
  assert.equal(script.status, 204);
  const browser = await fetch(`${oidc}/logout`, { headers: { accept: 'text/html' } });
  assert.equal(browser.status, 200);
  assert.match(await browser.text(), /signed out/);
});

test('a code exchanged with another redirect_uri than at authorize is invalid_grant', async () => {
  const redirectUri = 'http://127.0.0.1:9/app/callback';
  /** Signs alice in at the authorization endpoint (no PKCE) and answers the code it gives. */
  const code = async () => {
    const signedIn = await signInThroughPage(
      new CookieJar(),
      `${oidc}/auth?${new URLSearchParams({
        client_id: 'de-ui',
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid',
      })}`,
      'alice',
      'alice-password',
    );
    assert.equal(signedIn.status, 302, await signedIn.text());
    return new URL(signedIn.headers.get('location')!).searchParams.get('code')!;
  };
  const exchange = (code: string, redirect: string) =>
    fetch(`${oidc}/token`, {
      method: 'POST',
      headers: { 'content-type': form },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: 'de-ui',
        code,
        redirect_uri: redirect,
      }).toString(),
    });

  // Another of the client's own redirect URIs, and none at all: both refused.
  for (const other of ['http://127.0.0.1:9/app/elsewhere', '']) {
    const description = await oauthError(
      await exchange(await code(), other),
      400,
      'invalid_grant',
      `redirect_uri ${JSON.stringify(other)}`,
    );
    assert.match(description, /redirect_uri/);
  }
  // The same flow with the redirect URI of the authorization request gives tokens.
  const right = await exchange(await code(), redirectUri);
  assert.equal(right.status, 200, await right.clone().text());
  assert.equal(typeof ((await right.json()) as any).access_token, 'string');
});

test('the sign-in form over its rate limit: 429 temporarily_unavailable with Retry-After, in JSON', async () => {
  const limited = await startGateway({
    RATE_LIMIT_ANON_PER_MIN: '1',
    EMBEDDED_BACKENDS: 'user-info',
    IDP_CLIENTS: 'de-ui',
    IDP_CLIENT_DE_UI_REDIRECT_URIS: 'http://127.0.0.1:9/app/*',
  });
  try {
    const post = () =>
      fetch(`${limited.url}/realms/platform/protocol/openid-connect/auth`, {
        method: 'POST',
        headers: { 'content-type': form },
        body: 'client_id=de-ui',
      });
    await (await post()).arrayBuffer();
    const refused = await post();
    await oauthError(refused, 429, 'temporarily_unavailable', 'the second sign-in in a minute');
    assert.ok(refused.headers.get('retry-after'));
  } finally {
    await limited.close();
  }
});

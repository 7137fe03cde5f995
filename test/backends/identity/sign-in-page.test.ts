// The embedded identity provider's sign-in page against cross-site request forgery and framing:
// its form carries a token equal to the browser's IDP_FORM cookie (HttpOnly, SameSite=Lax, kept
// across pages), and a POST without it, with another, or without the cookie (as a cross-site
// form's would arrive) is shown the page again with 400, signs no one in and counts no failed
// password; the right one signs in. Every HTML answer (sign-in page, error page, signed-out page,
// keycloak-js's third-party cookie page, the docs page) carries its security headers: a CSP that
// loads only what the page has (by hash) and says who may frame it (no one, but the clients'
// origins for the cookie page and the gateway's own for the docs), nosniff, no Referer,
// X-Frame-Options, no-store on the sign-in pages; the authorize endpoint's redirects, which a
// client's silent check (`prompt=none`) follows in a hidden iframe, forbid no framing; and the
// opaque origin `null` of a native app's redirect URI is never taken for a web origin (CORS).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { noRateLimits, startGateway, type RunningGateway } from '../../support/gateway.ts';
import { addUser, hiddenFields } from '../../support/identity.ts';

const oidc = '/realms/platform/protocol/openid-connect';
const authorizeUrl = (extra: Record<string, string> = {}) =>
  `${oidc}/auth?${new URLSearchParams({
    client_id: 'de-ui',
    redirect_uri: 'http://127.0.0.1:9/app/callback',
    response_type: 'code',
    scope: 'openid',
    state: 's',
    ...extra,
  })}`;

/** The headers every page carries, and its CSP's directives by name. */
function pageHeaders(response: LightMyRequestResponse, label: string): Map<string, string> {
  assert.match(response.headers['content-type'] as string, /^text\/html/, label);
  assert.equal(response.headers['x-content-type-options'], 'nosniff', label);
  assert.equal(response.headers['referrer-policy'], 'no-referrer', label);
  const policy = response.headers['content-security-policy'] as string;
  assert.ok(policy, `${label}: a Content-Security-Policy`);
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => [part.split(/\s+/)[0]!, part.split(/\s+/).slice(1).join(' ')]),
  );
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

describe('the sign-in page: CSRF token, framing and security headers', () => {
  let running: RunningGateway;
  const inject = (options: InjectOptions) => running.gateway.app.inject(options);

  before(async () => {
    running = await startGateway({
      ...noRateLimits,
      EMBEDDED_BACKENDS: 'user-info',
      IDP_CLIENTS: 'de-ui,mobile',
      IDP_CLIENT_DE_UI_REDIRECT_URIS: 'http://127.0.0.1:9/app/*',
      // A native app's redirect URI, whose origin is the opaque `null`.
      IDP_CLIENT_MOBILE_REDIRECT_URIS: 'org.example.app:/callback',
      // One failed password would lock: a forged form must count none.
      SIGNIN_MAX_FAILURES: '1',
    });
    await addUser(running, 'alice', 'alice-password');
  });
  after(() => running?.close());

  test('the form token: equal to the IDP_FORM cookie, which the next page keeps', async () => {
    const page = await inject({ method: 'GET', url: authorizeUrl() });
    assert.equal(page.statusCode, 200);
    const cookie = page.cookies.find((c) => c.name === 'IDP_FORM')!;
    assert.ok(cookie, 'the page gives the browser a form cookie');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Lax');
    assert.equal(cookie.path, '/realms/platform/');
    assert.equal(hiddenFields(page.body).form_token, cookie.value);
    const again = await inject({
      method: 'GET',
      url: authorizeUrl(),
      headers: { cookie: `IDP_FORM=${cookie.value}` },
    });
    assert.equal(again.cookies.length, 0, 'a browser with a token keeps it');
    assert.equal(hiddenFields(again.body).form_token, cookie.value);
  });

  test('a form without the browser’s token is shown again (400), signs no one in and counts nothing', async () => {
    const page = await inject({ method: 'GET', url: authorizeUrl() });
    const token = page.cookies.find((c) => c.name === 'IDP_FORM')!.value;
    const fields = hiddenFields(page.body);
    const post = (form: Record<string, string>, cookie?: string) =>
      inject({
        method: 'POST',
        url: `${oidc}/auth`,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'text/html',
          ...(cookie ? { cookie: `IDP_FORM=${cookie}` } : {}),
        },
        payload: new URLSearchParams(form).toString(),
      });
    const { form_token: _token, ...request } = fields;
    const forged: [string, LightMyRequestResponse][] = [
      [
        'no token',
        await post({ ...request, username: 'alice', password: 'alice-password' }, token),
      ],
      [
        'another token',
        await post(
          { ...request, form_token: 'A'.repeat(43), username: 'alice', password: 'alice-password' },
          token,
        ),
      ],
      [
        'no cookie (a cross-site form)',
        await post({ ...fields, username: 'alice', password: 'alice-password' }),
      ],
      [
        'a wrong password, no token',
        await post({ ...request, username: 'alice', password: 'x' }, token),
      ],
    ];
    for (const [label, response] of forged) {
      assert.equal(response.statusCode, 400, label);
      assert.match(response.body, /This sign-in form has expired/, label);
      assert.match(response.body, /<form method="post"/, label);
      assert.equal(response.headers.location, undefined, label);
      assert.ok(!response.cookies.some((c) => c.name === 'IDP_SESSION'), `${label}: not signed in`);
      pageHeaders(response, label);
    }
    // The page shown again carries a token the browser has: it signs in.
    const retried = forged[2]![1];
    const newToken = retried.cookies.find((c) => c.name === 'IDP_FORM')!.value;
    assert.equal(hiddenFields(retried.body).form_token, newToken);

    // The right token: signed in (the wrong password above was not counted, or this would be 429).
    const signedIn = await post(
      { ...fields, username: 'alice', password: 'alice-password' },
      token,
    );
    assert.equal(signedIn.statusCode, 302, signedIn.body);
    assert.ok(signedIn.cookies.some((c) => c.name === 'IDP_SESSION'));
  });

  test('the sign-in, error and signed-out pages: own style only, framed by no one, never cached', async () => {
    const pages: [string, LightMyRequestResponse][] = [
      ['the sign-in page', await inject({ method: 'GET', url: authorizeUrl() })],
      [
        'the error page',
        await inject({ method: 'GET', url: `${oidc}/auth`, headers: { accept: 'text/html' } }),
      ],
      [
        'the signed-out page',
        await inject({ method: 'GET', url: `${oidc}/logout`, headers: { accept: 'text/html' } }),
      ],
    ];
    for (const [label, response] of pages) {
      const policy = pageHeaders(response, label);
      assert.equal(policy.get('default-src'), "'none'", label);
      assert.equal(policy.get('frame-ancestors'), "'none'", label);
      assert.equal(policy.get('base-uri'), "'none'", label);
      const style = /<style>([^<]*)<\/style>/.exec(response.body)![1]!;
      assert.equal(policy.get('style-src'), sha256(style), `${label}: its style, by hash`);
      assert.doesNotMatch(response.body, /<script/, label);
      assert.equal(response.headers['x-frame-options'], 'DENY', label);
      assert.equal(response.headers['cache-control'], 'no-store', label);
    }
  });

  test('the third-party cookie page: its script by hash, framed by the clients’ origins', async () => {
    const response = await inject({ method: 'GET', url: `${oidc}/3p-cookies/step1.html` });
    const policy = pageHeaders(response, 'step1.html');
    const script = /<script>([^<]*)<\/script>/.exec(response.body)![1]!;
    assert.equal(policy.get('script-src'), sha256(script));
    assert.equal(policy.get('default-src'), "'none'");
    assert.equal(policy.get('frame-ancestors'), "'self' http://127.0.0.1:9");
    assert.equal(response.headers['x-frame-options'], undefined, 'it cannot name an origin');
  });

  test('`Origin: null` (a sandboxed frame, a file) is no client’s web origin, even with a native app registered', async () => {
    for (const origin of ['null', 'http://127.0.0.1:9']) {
      const preflight = await inject({
        method: 'OPTIONS',
        url: `${oidc}/token`,
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      assert.equal(
        preflight.headers['access-control-allow-origin'],
        origin === 'null' ? undefined : origin,
        origin,
      );
    }
  });

  test('the silent check’s redirects forbid no framing and send no Referer', async () => {
    const silent = await inject({ method: 'GET', url: authorizeUrl({ prompt: 'none' }) });
    assert.equal(silent.statusCode, 302);
    assert.match(silent.headers.location as string, /error=login_required/);
    assert.equal(silent.headers['content-security-policy'], undefined);
    assert.equal(silent.headers['x-frame-options'], undefined);
    assert.equal(silent.headers['referrer-policy'], 'no-referrer');
  });

  test('the docs page: swagger-ui’s CSP, framed by the gateway’s own pages, never upgrading to HTTPS', async () => {
    const response = await inject({ method: 'GET', url: '/docs' });
    assert.equal(response.statusCode, 200);
    const policy = pageHeaders(response, 'the docs page');
    assert.equal(policy.get('frame-ancestors'), "'self'");
    assert.equal(policy.get('object-src'), "'none'");
    assert.equal(policy.has('upgrade-insecure-requests'), false);
    assert.equal(response.headers['x-frame-options'], 'SAMEORIGIN');
  });
});

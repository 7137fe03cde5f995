// The embedded identity provider in a real browser (headless Chromium driven by playwright-core):
// a client page signs a user in through the sign-in page (authorization code, PKCE S256, fragment
// response mode, as keycloak-js asks), the silent check `prompt=none` answers login_required when
// signed out and a code when signed in, also in a hidden iframe of the client's page, as
// keycloak-js makes it (while the sign-in page itself refuses to be framed), the pages'
// Content-Security-Policy blocks nothing they do, and the docs page's `/oidc/login` → callback →
// `/docs` leaves the browser able to call authenticated routes.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { chromium, type Browser, type Page } from 'playwright-core';
import { noRateLimits, startGateway, type RunningGateway } from '../support/gateway.ts';
import { addUser } from '../support/identity.ts';

/** Debian's `chromium` package; CI installs it (.ci/install-test-deps). */
const chromiumPath = '/usr/bin/chromium';

function chromiumExecutable(): string | undefined {
  if (existsSync(chromiumPath)) return chromiumPath;
  if (process.env.CI)
    throw new Error(`${chromiumPath} must be installed in CI: the sign-in test may not be skipped`);
  return undefined;
}

describe(
  'signing in with the embedded identity provider in Chromium',
  { skip: chromiumExecutable() ? false : `no ${chromiumPath}` },
  () => {
    let running: RunningGateway;
    let clientServer: Server;
    let clientOrigin: string;
    let browser: Browser;
    let realm: string;

    before(async () => {
      // The client: any page will do, the test reads where the browser lands.
      clientServer = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<!doctype html><title>client</title><p>client page</p>');
      });
      await new Promise<void>((resolve) => clientServer.listen(0, '127.0.0.1', resolve));
      clientOrigin = `http://127.0.0.1:${(clientServer.address() as AddressInfo).port}`;
      running = await startGateway({
        ...noRateLimits,
        EMBEDDED_BACKENDS: 'user-info',
        IDP_CLIENTS: 'test-app',
        IDP_CLIENT_TEST_APP_REDIRECT_URIS: `${clientOrigin}/app/*`,
      });
      realm = `${running.url}/realms/platform`;
      await addUser(running, 'alice', 'alice-password');
      browser = await chromium.launch({
        executablePath: chromiumExecutable(),
        args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update'],
      });
    });

    after(async () => {
      await browser?.close();
      await running?.close();
      await new Promise((resolve) => clientServer?.close(resolve));
    });

    function authorizeRequest(extra: Record<string, string> = {}) {
      const verifier = randomBytes(32).toString('base64url');
      const state = randomBytes(8).toString('hex');
      const params = new URLSearchParams({
        client_id: 'test-app',
        redirect_uri: `${clientOrigin}/app/callback`,
        response_type: 'code',
        response_mode: 'fragment',
        scope: 'openid',
        state,
        nonce: 'browser-nonce',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        ...extra,
      });
      return { url: `${realm}/protocol/openid-connect/auth?${params}`, verifier, state };
    }

    const fragmentOf = (url: string) => new URLSearchParams(new URL(url).hash.slice(1));

    /** What a page's Content-Security-Policy blocked, as the browser's console reports it. */
    const violations: string[] = [];
    const watched = (page: Page) =>
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });

    /** Adds an iframe of `url` to the page and answers it once it has loaded (or failed to). */
    async function framed(page: Page, url: string) {
      const name = `frame-${randomBytes(4).toString('hex')}`;
      // A script for the page (the tests are not type-checked against the DOM).
      await page.evaluate(`new Promise((resolve) => {
        const frame = document.createElement('iframe');
        frame.name = ${JSON.stringify(name)};
        frame.onload = () => resolve();
        frame.src = ${JSON.stringify(url)};
        document.body.append(frame);
      })`);
      return page.frame({ name })!;
    }

    test('authorization code flow through the sign-in page, then the silent check', async () => {
      const context = await browser.newContext();
      const page = watched(await context.newPage());
      const request = authorizeRequest();
      await page.goto(request.url);
      await page.fill('#username', 'alice');
      await page.fill('#password', 'wrong-password');
      await page.click('#sign-in-button');
      assert.match((await page.textContent('#error'))!, /Invalid username or password/);
      await page.fill('#password', 'alice-password');
      await Promise.all([
        page.waitForURL(`${clientOrigin}/app/callback**`),
        page.click('#sign-in-button'),
      ]);
      const answer = fragmentOf(page.url());
      assert.equal(answer.get('state'), request.state);
      const tokens = (await (
        await fetch(`${realm}/protocol/openid-connect/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            client_id: 'test-app',
            code: answer.get('code')!,
            redirect_uri: `${clientOrigin}/app/callback`,
            code_verifier: request.verifier,
          }).toString(),
        })
      ).json()) as any;
      const { payload } = await jwtVerify(
        tokens.id_token,
        createRemoteJWKSet(new URL(`${realm}/protocol/openid-connect/certs`)),
        { algorithms: ['RS256'], issuer: realm, audience: 'test-app' },
      );
      assert.equal(payload.preferred_username, 'alice');
      assert.equal(payload.nonce, 'browser-nonce');

      // Signed in: the silent check comes straight back with a code.
      const silent = authorizeRequest({ prompt: 'none' });
      await page.goto(silent.url);
      await page.waitForURL(`${clientOrigin}/app/callback**`);
      assert.ok(fragmentOf(page.url()).get('code'));
      assert.equal(fragmentOf(page.url()).get('state'), silent.state);
      await context.close();

      // Another browser, signed out: login_required, with the state.
      const signedOut = await browser.newContext();
      const other = await signedOut.newPage();
      const check = authorizeRequest({ prompt: 'none' });
      await other.goto(check.url);
      await other.waitForURL(`${clientOrigin}/app/callback**`);
      assert.equal(fragmentOf(other.url()).get('error'), 'login_required');
      assert.equal(fragmentOf(other.url()).get('state'), check.state);
      assert.equal(fragmentOf(other.url()).get('code'), null);
      await signedOut.close();
      assert.deepEqual(violations, [], 'the Content-Security-Policy blocks nothing of the pages');
    });

    test('the silent check in a hidden iframe of the client’s page; the sign-in page refuses to be framed', async () => {
      const context = await browser.newContext();
      const page = watched(await context.newPage());
      await page.goto(`${clientOrigin}/app/home`);

      // Framed, the sign-in page is refused: the frame shows the browser's error, not the form.
      const signIn = await framed(page, authorizeRequest().url);
      assert.equal(await signIn.locator('#username').count(), 0);
      assert.ok(
        violations.some((text) => /frame-ancestors 'none'/.test(text)),
        `the browser says why: ${JSON.stringify(violations)}`,
      );
      violations.length = 0;

      // Signed out, the silent check comes back to the client's page in the frame.
      const signedOut = authorizeRequest({ prompt: 'none' });
      const first = await framed(page, signedOut.url);
      assert.ok(first.url().startsWith(`${clientOrigin}/app/callback`), first.url());
      assert.equal(fragmentOf(first.url()).get('error'), 'login_required');

      // Signed in (at the top, as a user does), the silent check in a frame gives a code.
      const request = authorizeRequest();
      await page.goto(request.url);
      await page.fill('#username', 'alice');
      await page.fill('#password', 'alice-password');
      await Promise.all([
        page.waitForURL(`${clientOrigin}/app/callback**`),
        page.click('#sign-in-button'),
      ]);
      const silent = authorizeRequest({ prompt: 'none' });
      const frame = await framed(page, silent.url);
      assert.ok(frame.url().startsWith(`${clientOrigin}/app/callback`), frame.url());
      assert.ok(fragmentOf(frame.url()).get('code'), 'a code in the frame');
      assert.equal(fragmentOf(frame.url()).get('state'), silent.state);
      assert.deepEqual(violations, []);
      await context.close();
    });

    test('the docs page sign-in: /oidc/login → sign-in page → /docs, then authenticated calls from the page', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${running.url}/oidc/login`);
      await page.fill('#username', 'alice');
      await page.fill('#password', 'alice-password');
      await Promise.all([page.waitForURL(`${running.url}/docs**`), page.click('#sign-in-button')]);
      const cookies = await context.cookies(running.url);
      const access = cookies.find((cookie) => cookie.name === 'gateway_access_token')!;
      assert.equal(access.httpOnly, true);
      assert.equal(access.sameSite, 'Lax');
      const status = await page.evaluate(async () => (await fetch('/secured/sessions')).status);
      assert.equal(status, 200);
      const refreshed = await page.evaluate(async () => {
        const response = await fetch('/oidc/refresh', { method: 'POST' });
        return { status: response.status, body: (await response.json()) as any };
      });
      assert.equal(refreshed.status, 200);
      assert.equal(typeof refreshed.body.expires_in, 'number');
      await page.goto(`${running.url}/oidc/logout`);
      await page.waitForURL(`${running.url}/docs**`);
      const after = await page.evaluate(async () => (await fetch('/secured/sessions')).status);
      assert.equal(after, 401);
      await context.close();
    });
  },
);

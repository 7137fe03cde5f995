// The interactive docs page in a real browser (headless Chromium driven by playwright-core): it
// loads its API definition on every reload even past the anonymous rate limit, the Authorize
// dialog takes a bare token, and "Try it out" on a secured route sends it as a bearer token; its
// Content-Security-Policy blocks nothing the page does.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startGateway, type RunningGateway } from '../support/gateway.ts';
import {
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
  type JwksServer,
} from '../support/tokens.ts';

/** Debian's `chromium` package; CI installs it (.ci/install-test-deps). */
const chromiumPath = '/usr/bin/chromium';
const anonymousPerMinute = 3;

/** Chromium, or undefined to skip on a developer machine without it; in CI its absence fails. */
function chromiumExecutable(): string | undefined {
  if (existsSync(chromiumPath)) return chromiumPath;
  if (process.env.CI)
    throw new Error(
      `${chromiumPath} must be installed in CI (apt-get install chromium): the docs page test may not be skipped`,
    );
  return undefined;
}

describe(
  'the docs page in Chromium',
  { skip: chromiumExecutable() ? false : `no ${chromiumPath}` },
  () => {
    let jwks: JwksServer;
    let running: RunningGateway;
    let browser: Browser;
    let page: Page;
    let token: string;
    /** What the page's Content-Security-Policy blocked, as the browser's console reports it. */
    const violations: string[] = [];
    const watch = (watched: Page) =>
      watched.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });

    before(async () => {
      const key = await createSigningKey('ES256', 'docs-key');
      jwks = await startJwksServer([key]);
      token = await signToken(key, userClaims('alice'));
      running = await startGateway({
        AUTH_JWKS_URL: jwks.url,
        RATE_LIMIT_ANON_PER_MIN: String(anonymousPerMinute),
        RATE_LIMIT_USER_PER_MIN: '100000',
        RATE_LIMIT_BURST: '100000',
        EMBEDDED_BACKENDS: 'user-info',
      });
      // playwright-core starts the browser on a fresh temporary profile and removes it on close.
      browser = await chromium.launch({
        executablePath: chromiumExecutable(),
        args: [
          '--no-sandbox',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-sync',
        ],
        timeout: 15_000,
      });
      page = await browser.newPage();
      page.setDefaultTimeout(15_000);
      watch(page);
    });

    after(async () => {
      await browser?.close();
      await running?.close();
      await jwks?.close();
    });

    /** Waits for the page to settle on its API definition or on its failure to load one. */
    async function definitionShown(): Promise<string> {
      const outcome = page
        .locator(
          '.information-container .title, .loading-container .errors-wrapper, .errors-wrapper',
        )
        .first();
      await outcome.waitFor();
      return (await outcome.innerText()).trim();
    }

    const reloads = anonymousPerMinute + 1;
    test(`shows the definition on a visit and ${reloads} reloads within a minute (anonymous limit ${anonymousPerMinute}/min)`, async () => {
      const answers: Array<{ path: string; status: number }> = [];
      page.on('response', (response) =>
        answers.push({ path: new URL(response.url()).pathname, status: response.status() }),
      );
      for (let load = 1; load <= 1 + reloads; load++) {
        answers.length = 0;
        // Returns on the load event: the page and its scripts are in; it then fetches the definition.
        if (load === 1) await page.goto(`${running.url}/docs`);
        else await page.reload();
        assert.deepEqual(
          answers.filter((answer) => answer.status >= 400),
          [],
          `load ${load}: no refused file`,
        );
        assert.match(
          await definitionShown(),
          /^Platform Gateway/,
          `load ${load} shows the definition`,
        );
        const definition = answers.find((answer) => answer.path === '/docs/json');
        assert.ok(
          definition && [200, 304].includes(definition.status),
          `load ${load}: the definition answered ${definition?.status}`,
        );
      }
      // The page's own requests were answered from the exempt routes, so the budget is untouched.
      const other = await fetch(`${running.url}/uuid`);
      assert.equal(other.status, 200);
      assert.equal(other.headers.get('ratelimit-remaining'), String(anonymousPerMinute - 1));
      assert.deepEqual(violations, [], 'the Content-Security-Policy blocks nothing of the page');
    });

    test('Authorize takes the bare token; Try it out sends it as a bearer token and shows 200', async () => {
      // A fresh page on a deep link, which opens the operation (the page renders only the
      // operations in view: a hash change alone, or a scroll up to the page's Authorize button,
      // leaves it out of the page).
      page = await browser.newPage();
      page.setDefaultTimeout(15_000);
      watch(page);
      await page.goto(`${running.url}/docs#/misc/get_secured_sessions`);
      await definitionShown();

      // The operation's lock opens the Authorize dialog with the schemes that operation takes.
      const operation = page.locator('#operations-misc-get_secured_sessions');
      await operation.locator('.authorization__btn').click();
      const schemes = page.locator('.dialog-ux .auth-container h4 code');
      await schemes.first().waitFor();
      assert.deepEqual(
        await schemes.allInnerTexts(),
        ['bearer', 'vendorJwt'],
        'HTTP Basic is not offered here',
      );
      const bearerScheme = page
        .locator('.auth-container')
        .filter({ has: page.locator('h4', { hasText: /^bearer\s*\(http, Bearer\)/ }) });
      await bearerScheme.locator('input').fill(token);
      await bearerScheme.getByRole('button', { name: 'Apply credentials' }).click();
      await bearerScheme.locator('button', { hasText: 'Logout' }).waitFor();
      await page.locator('.dialog-ux .close-modal').click();

      await operation.getByRole('button', { name: 'Try it out' }).click();
      const sent = page.waitForRequest(
        (request) => new URL(request.url()).pathname === '/secured/sessions',
      );
      await operation.getByRole('button', { name: 'Execute' }).click();
      assert.equal((await sent).headers().authorization, `Bearer ${token}`);
      const status = operation.locator('.live-responses-table tbody .response-col_status').first();
      await status.waitFor();
      assert.equal((await status.innerText()).trim(), '200');
      assert.deepEqual(violations, [], 'the Content-Security-Policy blocks nothing of the page');
    });
  },
);

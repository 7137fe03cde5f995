// Failed passwords lock a username and a client address at every place the embedded identity
// provider takes a password, on both engines (the counts live in the database): `/token` and
// `/admin/token` (HTTP Basic), the realm token endpoint's password grant and the sign-in form.
// Two failures (SIGNIN_MAX_FAILURES, SIGNIN_ADDRESS_MAX_FAILURES) lock; a locked sign-in answers
// 429 with Retry-After in each place's own shape (the gateway's `error_code`, OAuth's `error`, the
// page again with a message), also for the right password; the lock lifts when its time has
// passed (the provider's clock, moved) or when an administrator lifts it
// (`/admin/sign-in-locks`); each lock is logged; a right password clears the username's count;
// checks side by side get no more tries than one after the other.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { signEmbeddedToken } from '../../../src/http/keys.ts';
import { noRateLimits, startGateway, type RunningGateway } from '../../support/gateway.ts';
import { addUserWithCheapHash, basic, hiddenFields } from '../../support/identity.ts';
import { engineDatabase, engines, skipWithout } from '../../support/postgres.ts';
import { tally, testFile } from '../../support/reliability.ts';

const oidc = '/realms/platform/protocol/openid-connect';
const redirectUri = 'http://127.0.0.1:9/app/callback';
const authorizeQuery = new URLSearchParams({
  client_id: 'de-ui',
  redirect_uri: redirectUri,
  response_type: 'code',
  scope: 'openid',
  state: 's',
}).toString();

for (const engine of engines) {
  describe(`failed sign-ins lock (${engine})`, { skip: skipWithout(engine) }, () => {
    let running: RunningGateway;
    let drop: () => Promise<void>;
    let now = Date.now();
    let adminToken: string;
    let userToken: string;
    const logLines: string[] = [];

    /**
     * The report's row (docs/reliability.md): every password this engine's tests sent, a test's
     * counted as held once all of its assertions have passed.
     */
    const cases = tally(
      { after },
      {
        area: 'sign-in',
        what: "passwords, wrong and right, sent to /token, /admin/token, the realm's password grant and the sign-in form: by one username from several addresses, by several usernames from one address, ten at once; refused (401, or the page again) until the second failure in a row locks (SIGNIN_MAX_FAILURES and SIGNIN_ADDRESS_MAX_FAILURES 2 here), then 429 with Retry-After in each place's own shape whatever the password, nobody signed in; a lock lifted when its time has passed or by an administrator; a right password clears the username's count",
        file: testFile(import.meta.url),
        note: engine,
      },
    );
    let metLock = 0;
    let triedBefore = 0;
    beforeEach(() => {
      triedBefore = cases.tried;
    });
    /** The end of a test: every password it sent was answered as it requires. */
    const held = () => {
      cases.held += cases.tried - triedBefore;
      cases.note = `${engine}: ${metLock} answered 429 while locked`;
    };
    /** Counts one password sent, and whether it met a lock. */
    const sent = async (answer: Promise<LightMyRequestResponse>) => {
      cases.tried += 1;
      const answered = await answer;
      if (answered.statusCode === 429) metLock += 1;
      return answered;
    };

    before(async () => {
      const database = await engineDatabase(engine);
      drop = database.drop;
      running = await startGateway(
        {
          ...noRateLimits,
          ...database.env,
          EMBEDDED_BACKENDS: 'user-info',
          IDP_CLIENTS: 'de-ui',
          IDP_CLIENT_DE_UI_REDIRECT_URIS: 'http://127.0.0.1:9/app/*',
          SIGNIN_MAX_FAILURES: '2',
          SIGNIN_LOCKOUT_SECONDS: '60',
          SIGNIN_ADDRESS_MAX_FAILURES: '2',
          SIGNIN_ADDRESS_LOCKOUT_SECONDS: '600',
          LOG_LEVEL: 'warn',
        },
        { identityClock: () => now, logStream: { write: (line) => void logLines.push(line) } },
      );
      // Cheap hashes (the stored hash names its cost): the test checks some forty passwords.
      const names = [
        'tina',
        'amy',
        'gus',
        'gwen',
        'fred',
        'fay',
        'cora',
        'lee',
        'lou',
        'hal',
        'ivy',
      ];
      await Promise.all(
        names.map((name) => addUserWithCheapHash(running, name, `${name}-password`)),
      );
      const { dataDir } = running;
      const { config } = running.gateway;
      const sign = (username: string, roles: string[]) =>
        signEmbeddedToken(dataDir, { username, roles }, config.keys.authSigningKey);
      adminToken = await sign('root', config.auth.adminRoles);
      userToken = await sign('tina', []);
    });

    after(async () => {
      await running?.close();
      await drop?.();
    });

    const inject = (options: InjectOptions) => running.gateway.app.inject(options);
    const tokenRoute = (username: string, password: string, address: string, path = '/token') =>
      sent(
        inject({
          method: 'GET',
          url: path,
          headers: basic(username, password),
          remoteAddress: address,
        }),
      );
    const passwordGrant = (username: string, password: string, address: string) =>
      sent(
        inject({
          method: 'POST',
          url: `${oidc}/token`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({
            grant_type: 'password',
            client_id: 'de-ui',
            username,
            password,
          }).toString(),
          remoteAddress: address,
        }),
      );
    /** Posts the sign-in form as a browser at `address` would, with the page's form token. */
    const signInForm = async (username: string, password: string, address: string) => {
      const page = await inject({
        method: 'GET',
        url: `${oidc}/auth?${authorizeQuery}`,
        remoteAddress: address,
      });
      const cookie = page.cookies.find((c) => c.name === 'IDP_FORM')!;
      return sent(
        inject({
          method: 'POST',
          url: `${oidc}/auth`,
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            cookie: `IDP_FORM=${cookie.value}`,
          },
          payload: new URLSearchParams({
            ...hiddenFields(page.body),
            username,
            password,
          }).toString(),
          remoteAddress: address,
        }),
      );
    };
    const admin = (method: 'GET' | 'DELETE', url: string, token = adminToken) =>
      inject({ method, url, headers: { authorization: `Bearer ${token}` } });

    test('/token and /admin/token: a username, then an address; 429 ERR_TOO_MANY_REQUESTS with Retry-After, even for the right password', async () => {
      // Failures of one username from two addresses lock the username everywhere.
      for (const address of ['192.0.2.1', '192.0.2.2'])
        assert.equal((await tokenRoute('tina', 'wrong-password', address)).statusCode, 401);
      for (const path of ['/token', '/admin/token?username=amy']) {
        const locked = await tokenRoute('tina', 'tina-password', '192.0.2.3', path);
        assert.equal(locked.statusCode, 429, path);
        assert.equal(locked.headers['retry-after'], '60', path);
        const body = locked.json();
        assert.equal(body.error_code, 'ERR_TOO_MANY_REQUESTS', path);
        assert.equal(body.error, 'temporarily_unavailable', path);
        assert.match(body.reason, /Too many failed sign-ins/, path);
      }
      // Another username from those addresses is not locked (each failed once).
      assert.equal((await tokenRoute('amy', 'amy-password', '192.0.2.1')).statusCode, 200);

      // Failures of two usernames from one address lock the address, for the right password too.
      assert.equal((await tokenRoute('gus', 'wrong-password', '198.51.100.1')).statusCode, 401);
      assert.equal((await tokenRoute('nobody', 'wrong-password', '198.51.100.1')).statusCode, 401);
      const fromThere = await tokenRoute('gwen', 'gwen-password', '198.51.100.1');
      assert.equal(fromThere.statusCode, 429);
      assert.equal(fromThere.headers['retry-after'], '600');
      assert.equal((await tokenRoute('gwen', 'gwen-password', '198.51.100.2')).statusCode, 200);

      // Each lock is logged, naming what it locks and until when.
      const locks = logLines
        .map((line) => JSON.parse(line))
        .filter((entry) => /^failed passwords locked/.test(entry.msg));
      const tina = locks.find((entry) => entry.username === 'tina');
      assert.equal(tina?.msg, 'failed passwords locked the username tina');
      assert.equal(Date.parse(tina.lockedUntil), now + 60_000);
      assert.ok(locks.some((entry) => entry.address === '198.51.100.1'));
      held();
    });

    test('the realm token endpoint (password grant): 429 temporarily_unavailable in OAuth JSON with Retry-After', async () => {
      for (const address of ['192.0.2.11', '192.0.2.12'])
        assert.equal((await passwordGrant('fred', 'wrong-password', address)).statusCode, 401);
      const locked = await passwordGrant('fred', 'fred-password', '192.0.2.13');
      assert.equal(locked.statusCode, 429);
      assert.equal(locked.headers['retry-after'], '60');
      assert.match(locked.headers['content-type'] as string, /^application\/json/);
      const body = locked.json();
      assert.equal(body.error, 'temporarily_unavailable');
      assert.match(body.error_description, /Too many failed sign-ins/);
      assert.equal(body.error_code, undefined);

      for (const username of ['fay', 'someone'])
        assert.equal(
          (await passwordGrant(username, 'wrong-password', '198.51.100.11')).statusCode,
          401,
        );
      const address = await passwordGrant('fay', 'fay-password', '198.51.100.11');
      assert.equal(address.statusCode, 429);
      assert.equal(address.json().error, 'temporarily_unavailable');
      assert.equal((await passwordGrant('fay', 'fay-password', '198.51.100.12')).statusCode, 200);
      held();
    });

    test('the sign-in form: the page again with 429, a message and Retry-After; nobody signed in', async () => {
      for (const address of ['192.0.2.21', '192.0.2.22']) {
        const refused = await signInForm('cora', 'wrong-password', address);
        assert.equal(refused.statusCode, 200);
        assert.match(refused.body, /Invalid username or password/);
      }
      const locked = await signInForm('cora', 'cora-password', '192.0.2.23');
      assert.equal(locked.statusCode, 429);
      assert.equal(locked.headers['retry-after'], '60');
      assert.match(locked.headers['content-type'] as string, /^text\/html/);
      assert.match(locked.body, /Too many failed sign-ins\. Try again in 60 seconds\./);
      assert.match(locked.body, /<form method="post"/);
      assert.equal(locked.headers.location, undefined);
      assert.ok(!locked.cookies.some((c) => c.name === 'IDP_SESSION'), 'not signed in');

      for (const username of ['lee', 'nobody-here'])
        await signInForm(username, 'wrong-password', '198.51.100.21');
      const address = await signInForm('lee', 'lee-password', '198.51.100.21');
      assert.equal(address.statusCode, 429);
      assert.match(address.body, /Try again in 10 minutes\./);
      const elsewhere = await signInForm('lee', 'lee-password', '198.51.100.22');
      assert.equal(elsewhere.statusCode, 302);
      held();
    });

    test('a right password clears the username’s count; the lock lifts when its time has passed', async () => {
      // fail, succeed, fail: two failures, but not in a row, so no lock.
      assert.equal((await tokenRoute('lou', 'wrong-password', '192.0.2.31')).statusCode, 401);
      assert.equal((await tokenRoute('lou', 'lou-password', '192.0.2.32')).statusCode, 200);
      assert.equal((await tokenRoute('lou', 'wrong-password', '192.0.2.33')).statusCode, 401);
      assert.equal((await tokenRoute('lou', 'lou-password', '192.0.2.34')).statusCode, 200);

      assert.equal((await tokenRoute('lou', 'wrong-password', '192.0.2.35')).statusCode, 401);
      assert.equal((await tokenRoute('lou', 'wrong-password', '192.0.2.36')).statusCode, 401);
      assert.equal((await tokenRoute('lou', 'lou-password', '192.0.2.37')).statusCode, 429);
      now += 59_000;
      const later = await tokenRoute('lou', 'lou-password', '192.0.2.37');
      assert.equal(later.statusCode, 429);
      assert.equal(later.headers['retry-after'], '1');
      now += 1_000;
      assert.equal((await tokenRoute('lou', 'lou-password', '192.0.2.37')).statusCode, 200);
      held();
    });

    test('checks side by side get no more tries than checks one after the other', async () => {
      // Ten at once: whatever their order, two are checked and eight refused. (Counting only
      // after the password is compared lets them all through on SQLite, whose one connection
      // counts every check before any password is compared; on PostgreSQL the row's lock spaces
      // the checks out, and only some runs would catch that.)
      const statuses = await Promise.all(
        Array.from(
          { length: 10 },
          async (_, n) =>
            (await passwordGrant('amy', 'wrong-password', `203.0.113.${n + 1}`)).statusCode,
        ),
      );
      assert.deepEqual(
        statuses.sort(),
        [401, 401, ...Array(8).fill(429)],
        'two checks, then the lock',
      );
      held();
    });

    test('an administrator lists the locks and lifts one of a username or of an address', async () => {
      for (const address of ['192.0.2.41', '192.0.2.42'])
        await tokenRoute('hal', 'wrong-password', address);
      for (const username of ['x-one', 'x-two'])
        await tokenRoute(username, 'wrong-password', '2001:db8:7:7::1');
      assert.equal((await tokenRoute('hal', 'hal-password', '192.0.2.43')).statusCode, 429);
      assert.equal((await tokenRoute('ivy', 'ivy-password', '2001:db8:7:7::2')).statusCode, 429);

      assert.equal((await admin('GET', '/admin/sign-in-locks', userToken)).statusCode, 403);
      const listed = await admin('GET', '/admin/sign-in-locks');
      assert.equal(listed.statusCode, 200);
      const locks = listed.json().locks as { kind: string; name: string }[];
      const hal = locks.find((lock) => lock.kind === 'user' && lock.name === 'hal') as any;
      assert.ok(hal, JSON.stringify(locks));
      assert.equal(hal.retry_after_seconds, 60);
      assert.equal(hal.locked_until, now + 60_000);
      const network = locks.find((lock) => lock.name === '2001:db8:7:7::/64') as any;
      assert.equal(network?.kind, 'address');

      assert.equal(
        (await admin('DELETE', '/admin/sign-in-locks/users/hal', userToken)).statusCode,
        403,
      );
      const lifted = await admin('DELETE', '/admin/sign-in-locks/users/hal');
      assert.equal(lifted.statusCode, 200);
      assert.deepEqual(lifted.json(), { kind: 'user', name: 'hal', lifted: true });
      assert.equal((await tokenRoute('hal', 'hal-password', '192.0.2.43')).statusCode, 200);
      assert.deepEqual((await admin('DELETE', '/admin/sign-in-locks/users/hal')).json(), {
        kind: 'user',
        name: 'hal',
        lifted: false,
      });

      // Any address of the /64 names it.
      const address = await admin('DELETE', '/admin/sign-in-locks/addresses/2001:db8:7:7::abcd');
      assert.deepEqual(address.json(), {
        kind: 'address',
        name: '2001:db8:7:7::/64',
        lifted: true,
      });
      assert.equal((await tokenRoute('ivy', 'ivy-password', '2001:db8:7:7::2')).statusCode, 200);
      const bad = await admin('DELETE', '/admin/sign-in-locks/addresses/not-an-address');
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().error_code, 'ERR_BAD_REQUEST');
      held();
    });
  });
}

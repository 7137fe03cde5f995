// Bootstrap and the account routes (user info, logins, sessions, preferences) on the embedded
// platform, on SQLite and PostgreSQL; parts failing or of other shapes; a partial platform.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startBackend, type TestBackend } from '../support/backend.ts';
import { noRateLimits, startGateway, type RunningGateway } from '../support/gateway.ts';
import { engineDatabase, engines, skipWithout } from '../support/postgres.ts';
import {
  bearer,
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
  type JwksServer,
  type SigningKey,
} from '../support/tokens.ts';

type Json = Record<string, any>;

let key: SigningKey;
let jwks: JwksServer;

before(async () => {
  key = await createSigningKey('ES256', 'bootstrap-key');
  jwks = await startJwksServer([key]);
});
after(async () => jwks.close());

async function call(
  running: RunningGateway,
  username: string,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: Json }> {
  const token = await signToken(key, userClaims(username));
  const headers: Record<string, string> = {
    ...bearer(token),
    ...(init.body ? { 'content-type': 'application/json' } : {}),
  };
  const response = await fetch(`${running.url}${path}`, { ...init, headers });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

for (const engine of engines) {
  describe(
    `bootstrap and account routes on the embedded platform (${engine})`,
    { skip: skipWithout(engine) },
    () => {
      let running: RunningGateway;
      let database: Awaited<ReturnType<typeof engineDatabase>>;
      before(async () => {
        database = await engineDatabase(engine);
        running = await startGateway({
          ...noRateLimits,
          AUTH_JWKS_URL: jwks.url,
          DATA_ZONE: 'lab',
          ...database.env,
        });
      });
      after(async () => {
        await running?.close();
        await database?.drop();
      });

      test('bootstrap gathers user info, session, apps info, data paths and preferences', async () => {
        const { status, body } = await call(running, 'alice', '/secured/bootstrap');
        assert.equal(status, 200);
        assert.deepEqual(body.user_info, {
          username: 'alice',
          full_username: 'alice@localhost',
          email: 'alice@example.org',
          first_name: 'Alice',
          last_name: 'Tester',
        });
        assert.equal(typeof body.session.login_time, 'number');
        assert.deepEqual(body.session.auth_redirect, {});
        assert.deepEqual(body.apps_info.system_ids, { de_system_id: 'de', all_system_ids: ['de'] });
        assert.ok(
          Array.isArray(body.apps_info.webhooks),
          'clients read webhooks[0]: it must be an array',
        );
        assert.equal(body.apps_info.workspace.new_workspace, true);
        assert.deepEqual(body.data_info, {
          user_home_path: '/lab/home/alice',
          user_trash_path: '/lab/trash/home/alice',
          base_trash_path: '/lab/trash',
        });
        assert.equal(body.preferences.system_default_output_dir.path, '/lab/home/alice/analyses');
        assert.deepEqual(body.preferences.defaultOutputFolder, {
          id: '/lab/home/alice/analyses',
          path: '/lab/home/alice/analyses',
        });

        const second = await call(running, 'alice', '/secured/bootstrap');
        assert.equal(
          second.body.apps_info.workspace.new_workspace,
          false,
          'the workspace is made once',
        );
        assert.equal(second.body.apps_info.workspace.id, body.apps_info.workspace.id);
      });

      test('each bootstrap records a login, newest first', async () => {
        await call(running, 'carol', '/secured/bootstrap?ip-address=203.0.113.9');
        await call(running, 'carol', '/secured/bootstrap');
        const { status, body } = await call(running, 'carol', '/secured/logins?limit=5');
        assert.equal(status, 200);
        assert.equal(body.logins.length, 2);
        assert.ok(body.logins[0].login_time >= body.logins[1].login_time);
        assert.equal(
          body.logins[1].ip_address,
          '203.0.113.9',
          'a proxy may pass the end user address',
        );
        const missing = await call(running, 'carol', '/secured/logins');
        assert.equal(missing.status, 400);
        assert.equal(missing.body.error_code, 'ERR_MISSING_QUERY_PARAMETER');
      });

      test('user-info describes users the platform has seen and leaves out the rest', async () => {
        await call(running, 'dave', '/secured/sessions');
        const { status, body } = await call(
          running,
          'erin',
          '/secured/user-info?username=dave&username=erin&username=nobody',
        );
        assert.equal(status, 200);
        assert.deepEqual(Object.keys(body).sort(), ['dave', 'erin']);
        assert.equal(body.dave.email, 'dave@example.org');
        assert.equal(body.dave.first_name, 'Dave');
        assert.equal(body.dave.last_name, 'Tester');
        assert.equal(body.dave.id, 'dave');

        const single = await call(running, 'erin', '/secured/user-info?username=dave');
        assert.deepEqual(Object.keys(single.body), ['dave']);
        const none = await call(running, 'erin', '/secured/user-info');
        assert.deepEqual(none.body, {});
        // The web UI's sharing dialog (sonora src/serviceFacades/users.js getUserInfo, its ids joined
        // with `&username=`) sends `?username=` for no one, and reads the answer as an object.
        const empty = await call(running, 'erin', '/secured/user-info?username=');
        assert.equal(empty.status, 200, JSON.stringify(empty.body));
        assert.deepEqual(empty.body, {});
        const withEmpty = await call(running, 'erin', '/secured/user-info?username=dave&username=');
        assert.equal(withEmpty.status, 200);
        assert.deepEqual(Object.keys(withEmpty.body), ['dave']);
        const many = await call(
          running,
          'erin',
          `/secured/user-info?${Array.from({ length: 101 }, (_, i) => `username=u${i}`).join('&')}`,
        );
        assert.equal(many.status, 400);
        assert.equal(many.body.error_code, 'ERR_BAD_QUERY_PARAMETER');
      });

      test('the edited spelling of the default folder wins when a client echoes both', async () => {
        const stale = { id: '/lab/home/frank/analyses', path: '/lab/home/frank/analyses' };
        await call(running, 'frank', '/secured/preferences');
        // An existing client edits the snake_case copy and sends the camelCase one back unchanged.
        const snake = await call(running, 'frank', '/secured/preferences', {
          method: 'POST',
          body: JSON.stringify({
            defaultOutputFolder: stale,
            default_output_folder: {
              id: 'x',
              path: '/lab/home/frank/results',
              'file-size': 0,
              label: 'results',
            },
          }),
        });
        assert.equal(snake.status, 200);
        assert.deepEqual(
          snake.body.preferences.defaultOutputFolder,
          { id: 'x', path: '/lab/home/frank/results' },
          'extra stat keys are dropped',
        );
        // A spec client edits camelCase and echoes the (now stale) snake_case copy.
        const camel = await call(running, 'frank', '/secured/preferences', {
          method: 'POST',
          body: JSON.stringify({
            defaultOutputFolder: '/lab/home/frank/other',
            default_output_folder: snake.body.preferences.default_output_folder,
          }),
        });
        assert.equal(camel.body.preferences.default_output_folder.path, '/lab/home/frank/other');
        const read = await call(running, 'frank', '/secured/preferences');
        assert.equal(read.body.defaultOutputFolder.path, '/lab/home/frank/other');
      });

      test('reading preferences makes the default output folder, so the first analysis can write there', async () => {
        const stat = () =>
          call(running, 'hana', '/secured/filesystem/stat', {
            method: 'POST',
            body: JSON.stringify({ paths: ['/lab/home/hana/analyses'] }),
          });
        const { body: prefs } = await call(running, 'hana', '/secured/preferences');
        assert.equal(prefs.systemDefaultOutputDir.path, '/lab/home/hana/analyses');
        const { status, body } = await stat();
        assert.equal(status, 200);
        assert.equal(body.paths['/lab/home/hana/analyses'].type, 'dir');
        assert.equal(body.paths['/lab/home/hana/analyses'].permission, 'own');

        // A user who picks another folder of their own gets that one made too; bootstrap does the same.
        await call(running, 'hana', '/secured/preferences', {
          method: 'POST',
          body: JSON.stringify({ defaultOutputFolder: '/lab/home/hana/results' }),
        });
        await call(running, 'hana', '/secured/bootstrap');
        const made = await call(running, 'hana', '/secured/filesystem/stat', {
          method: 'POST',
          body: JSON.stringify({ paths: ['/lab/home/hana/results'] }),
        });
        assert.equal(made.body.paths['/lab/home/hana/results'].type, 'dir');
      });

      test('a default folder that is not a path is refused and nothing is stored', async () => {
        await call(running, 'gina', '/secured/preferences', {
          method: 'POST',
          body: JSON.stringify({ theme: 'dark' }),
        });
        for (const folder of [42, 'relative/path', { path: 7 }, 'bad\u0000path']) {
          const { status, body } = await call(running, 'gina', '/secured/preferences', {
            method: 'POST',
            body: JSON.stringify({ theme: 'light', defaultOutputFolder: folder }),
          });
          assert.equal(status, 400, JSON.stringify(folder));
          assert.equal(body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
          assert.equal(body.field, 'defaultOutputFolder');
        }
        const { body } = await call(running, 'gina', '/secured/preferences');
        assert.equal(body.theme, 'dark');
      });
    },
  );
}

describe('bootstrap with failing parts', () => {
  let running: RunningGateway;
  let broken: TestBackend;
  before(async () => {
    broken = await startBackend((_request, response) => {
      response
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error_code: 'ERR_SYSTEM', reason: 'disk on fire' }));
    });
    running = await startGateway({
      ...noRateLimits,
      AUTH_JWKS_URL: jwks.url,
      DATA_INFO_URL: broken.url,
      APPS_URL: 'http://127.0.0.1:9',
    });
  });
  after(async () => {
    await running.close();
    await broken.close();
  });

  test('a failing part becomes {status, error} in its key; the rest is served', async () => {
    const { status, body } = await call(running, 'hank', '/secured/bootstrap');
    assert.equal(status, 200);
    assert.deepEqual(body.data_info, { status: 500, error: 'disk on fire' });
    assert.equal(body.apps_info.status, 503);
    assert.match(body.apps_info.error, /apps/);
    assert.equal(body.session.status, 503);
    assert.equal(body.user_info.username, 'hank');
    assert.equal(body.preferences.systemDefaultOutputDir.path, '/platform/home/hank/analyses');
  });
});

describe('a gateway running only some embedded backends', () => {
  let running: RunningGateway;
  before(async () => {
    running = await startGateway({
      ...noRateLimits,
      AUTH_JWKS_URL: jwks.url,
      EMBEDDED_BACKENDS: 'user-info',
    });
  });
  after(async () => running.close());

  test('serves what it runs and names the URL to set for the rest', async () => {
    const stored = await call(running, 'ivan', '/secured/sessions', {
      method: 'POST',
      body: JSON.stringify({ tabs: 3 }),
    });
    assert.equal(stored.status, 200);
    const logins = await call(running, 'ivan', '/secured/logins?limit=1');
    assert.equal(logins.status, 501);
    assert.equal(logins.body.error_code, 'ERR_NOT_IMPLEMENTED');
    assert.match(logins.body.reason, /APPS_URL/);
    const { body } = await call(running, 'ivan', '/secured/bootstrap');
    assert.equal(body.apps_info.status, 501);
    assert.equal(body.data_info.status, 501);
    assert.equal(body.preferences.defaultOutputFolder.path, '/platform/home/ivan/analyses');
  });
});

describe('bootstrap relaying parts of other shapes', () => {
  let running: RunningGateway;
  let odd: TestBackend;
  before(async () => {
    // A remote backend whose answers differ from the documented shapes: they are relayed, not refused.
    odd = await startBackend((request, response) => {
      const body = request.path.endsWith('/users/login')
        ? { login_time: '1700000000000', extra: [1] }
        : { unexpected: true, webhooks: null };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    running = await startGateway({
      ...noRateLimits,
      AUTH_JWKS_URL: jwks.url,
      APPS_URL: odd.url,
      GROUPS_URL: odd.url,
    });
  });
  after(async () => {
    await running.close();
    await odd.close();
  });

  test('bootstrap answers 200 with each part as its backend sent it', async () => {
    const { status, body } = await call(running, 'iris', '/secured/bootstrap');
    assert.equal(status, 200);
    assert.deepEqual(body.session, { login_time: '1700000000000', extra: [1] });
    assert.deepEqual(body.apps_info, { unexpected: true, webhooks: null });
    assert.equal(body.user_info.username, 'iris');
  });

  test('user-info relays subjects of other shapes', async () => {
    const { status, body } = await call(running, 'iris', '/secured/user-info?username=zed');
    assert.equal(status, 200);
    assert.deepEqual(body, { zed: { unexpected: true, webhooks: null } });
  });
});

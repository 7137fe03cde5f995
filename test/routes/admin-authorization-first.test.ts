// Authorization before validation on every administrator's route: each operation of /openapi.json
// under an `admin` path segment, called by a signed-in user who is not an administrator with no
// query and no body, answers 403 ERR_FORBIDDEN, never a 400 about the missing parameters (which
// would tell a stranger what the route takes). `/admin/token` takes the caller's Basic
// credentials rather than a token: a non-administrator's are refused 403 too, before `username`
// is checked. A new admin route is in the walk by being in the document.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { noRateLimits, startGateway, type RunningGateway } from '../support/gateway.ts';
import { addUser, basic } from '../support/identity.ts';

let running: RunningGateway;
let token: string;

before(async () => {
  running = await startGateway({ ...noRateLimits });
  await addUser(running, 'alice', 'alice-password');
  const answer = await fetch(`${running.url}/token`, { headers: basic('alice', 'alice-password') });
  token = ((await answer.json()) as { access_token: string }).access_token;
});

after(async () => {
  await running?.close();
});

const methods = ['get', 'head', 'post', 'put', 'patch', 'delete'];
const isAdminPath = (path: string) => /(^|\/)admin(\/|$)/.test(path);

test('every admin operation refuses a non-administrator 403 before looking at the request', async (t) => {
  const document = (await (await fetch(`${running.url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const operations = Object.entries(document.paths)
    .filter(([path]) => isAdminPath(path))
    .flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => methods.includes(method))
        .map((method) => ({ method: method.toUpperCase(), path })),
    );
  assert.ok(operations.length > 100, `${operations.length} admin operations`);
  const wrong: string[] = [];
  for (const { method, path } of operations) {
    const credentials = path.startsWith('/admin/token')
      ? basic('alice', 'alice-password')
      : { authorization: `Bearer ${token}` };
    const url = running.url + path.replace(/\{[^}]+\}/g, 'x1');
    const response = await fetch(url, { method, headers: credentials });
    const text = await response.text();
    const refused =
      response.status === 403 && (method === 'HEAD' || JSON.parse(text).error_code !== undefined);
    if (!refused) wrong.push(`${method} ${path}: ${response.status} ${text.slice(0, 120)}`);
  }
  t.diagnostic(`${operations.length} admin operations walked`);
  assert.deepEqual(wrong, [], 'admin operations answering a non-administrator otherwise than 403');
});

test('/admin/token: 401 without credentials, then 403, then 400 for an administrator without username', async () => {
  await addUser(running, 'root', 'root-password', { admin: true });
  const bare = await fetch(`${running.url}/admin/token`);
  assert.equal(bare.status, 401);
  const wrong = await fetch(`${running.url}/admin/token`, {
    headers: basic('alice', 'not-her-password'),
  });
  assert.equal(wrong.status, 401);
  const admin = await fetch(`${running.url}/admin/token`, {
    headers: basic('root', 'root-password'),
  });
  assert.equal(admin.status, 400);
  assert.equal(((await admin.json()) as any).error_code, 'ERR_MISSING_QUERY_PARAMETER');
  const forOther = await fetch(`${running.url}/admin/token/keycloak?username=alice`, {
    headers: basic('root', 'root-password'),
  });
  assert.equal(forOther.status, 200);
});

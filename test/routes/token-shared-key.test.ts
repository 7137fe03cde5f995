// IDP_SIGNING_KEY: gateways given the same RS256 key (as several instances behind one load balancer
// are) publish it at their certs endpoint and accept each other's identity-provider tokens; one
// with another key refuses them. A key that is not RSA is refused at start-up, naming the setting.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config/index.ts';
import { noRateLimits, startGateway, type RunningGateway } from '../support/gateway.ts';
import { addUser, basic } from '../support/identity.ts';

const rsaPem = () =>
  generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();

const shared = rsaPem();
let first: RunningGateway;
let second: RunningGateway;
let stranger: RunningGateway;

before(async () => {
  const env = { ...noRateLimits, EMBEDDED_BACKENDS: 'user-info' };
  first = await startGateway({ ...env, IDP_SIGNING_KEY: shared });
  second = await startGateway({ ...env, IDP_SIGNING_KEY: shared.replace(/\n/g, '\\n') });
  stranger = await startGateway({ ...env, IDP_SIGNING_KEY: rsaPem() });
  await addUser(first, 'alice', 'alice-password');
});

after(async () => {
  await Promise.all([first, second, stranger].map((running) => running?.close()));
});

test('gateways sharing IDP_SIGNING_KEY publish one key and accept each other’s tokens', async () => {
  const certs = async (running: RunningGateway) =>
    (
      (await (
        await fetch(`${running.url}/realms/platform/protocol/openid-connect/certs`)
      ).json()) as {
        keys: { kid: string; n: string }[];
      }
    ).keys;
  const [a, b, c] = await Promise.all([first, second, stranger].map(certs));
  assert.deepEqual(
    a!.map((key) => key.kid),
    b!.map((key) => key.kid),
  );
  assert.notEqual(a![0]!.n, c![0]!.n);

  const answer = await fetch(`${first.url}/token/keycloak`, {
    headers: basic('alice', 'alice-password'),
  });
  assert.equal(answer.status, 200);
  const { access_token: token } = (await answer.json()) as { access_token: string };
  const call = (running: RunningGateway) =>
    fetch(`${running.url}/secured/user-info`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal((await call(second)).status, 200);
  const refused = await call(stranger);
  assert.equal(refused.status, 401);
  assert.ok(((await refused.json()) as { error_code?: string }).error_code);
});

test('an IDP_SIGNING_KEY that is not an RSA private key is refused at start-up', () => {
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
  assert.throws(() => loadConfig({ IDP_SIGNING_KEY: ec }), /IDP_SIGNING_KEY.*RSA/);
  assert.throws(() => loadConfig({ IDP_SIGNING_KEY: 'not a key' }), /IDP_SIGNING_KEY/);
});

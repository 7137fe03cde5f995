// A webhook is checked where it connects, not only when it is registered: with
// WEBHOOKS_ALLOW_PRIVATE_NETWORKS off, a webhook registered at a public address whose URL's host
// later resolves to a loopback address (here: the stored URL moved to `localhost`, as a name whose
// DNS answer changes after registration moves it) is not delivered, and the refusal is logged.
// The local server that would receive it counts what arrives; the test waits for the delivery's
// logged end rather than for a timer.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { eventually } from '../../support/fileio.ts';
import { noRateLimits, startGateway, type RunningGateway } from '../../support/gateway.ts';
import {
  bearer,
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
  type JwksServer,
} from '../../support/tokens.ts';

let running: RunningGateway;
let jwks: JwksServer;
let server: Server;
let token: string;
const received: string[] = [];
const logLines: { msg?: string; reason?: string; webhook?: string }[] = [];

before(async () => {
  // Every address of the machine, IPv4 and IPv6 alike: `localhost` reaches it whichever it names.
  server = createServer((request, response) => {
    received.push(request.url ?? '');
    response.writeHead(200).end();
  });
  await new Promise<void>((resolve) => server.listen(0, resolve));
  const key = await createSigningKey('ES256', 'webhook-guard');
  jwks = await startJwksServer([key]);
  token = await signToken(key, userClaims('alice'));
  running = await startGateway(
    {
      ...noRateLimits,
      AUTH_JWKS_URL: jwks.url,
      LOG_LEVEL: 'warn',
      WEBHOOK_ATTEMPTS: '1',
      WEBHOOK_TIMEOUT_MS: '2000',
    },
    { logStream: { write: (line: string) => void logLines.push(JSON.parse(line)) } },
  );
});

after(async () => {
  await running?.close();
  await jwks?.close();
  server?.closeAllConnections();
  server?.close();
});

test('a webhook whose host comes to name a loopback address is not delivered', async () => {
  assert.equal(running.gateway.config.notifications.webhooks.allowPrivateNetworks, false);
  // Registered while its host is a public address (TEST-NET-3: nothing answers there).
  const registered = await fetch(`${running.url}/webhooks`, {
    method: 'PUT',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify({
      webhooks: [{ url: 'http://203.0.113.7/hook', type: { type: 'Custom' }, topics: ['data'] }],
    }),
  });
  assert.equal(registered.status, 200, await registered.text());
  // The name now answers with this machine's loopback address.
  const port = (server.address() as AddressInfo).port;
  const moved = await running.gateway.store.db
    .updateTable('webhooks')
    .set({ url: `http://localhost:${port}/hook` })
    .where('username', '=', 'alice')
    .executeTakeFirst();
  assert.equal(Number(moved.numUpdatedRows), 1);

  const sent = await running.gateway.forwarder.call('notification-agent', {
    method: 'POST',
    path: '/notification',
    identityStyle: 'none',
    json: { type: 'data', user: 'alice', subject: 'a file was shared', email: false, payload: {} },
  });
  assert.equal(sent.statusCode, 200, await sent.body.text());

  // The delivery ends one way or the other: refused (logged) or received.
  const failed = await eventually(
    () =>
      received.length > 0
        ? 'received'
        : logLines.find((line) => line.msg === 'a webhook delivery failed'),
    10_000,
    'the delivery to end',
  );
  assert.deepEqual(received, [], 'the loopback server received the webhook');
  assert.match((failed as { reason: string }).reason, /loopback, private, link-local or reserved/);
});

// Users' webhooks through the gateway, on both engines: the types and topics listed, a user's
// webhooks replaced by PUT (a kept URL keeps its secret, [] clears them) and shown by GET and the
// bootstrap; bad bodies refused field by field. Delivery to a local HTTP server: a notification of
// a subscribed topic (here a data share's) is POSTed signed (X-Platform-Signature, HMAC-SHA256 of
// the body under the webhook's secret), Slack webhooks get `{text}`; a server answering 500 is
// retried with back-off until it takes it; a topic not subscribed is not sent; a loopback URL is
// refused when WEBHOOKS_ALLOW_PRIVATE_NETWORKS is off.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../../support/fileio.ts';
import { startMetadataGateway, type MetadataGateway } from '../../../support/metadata-gateway.ts';
import { engines, skipWithout } from '../../../support/postgres.ts';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  answered: number;
}

for (const engine of engines) {
  describe(`webhooks (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: MetadataGateway;
    let server: Server;
    const received: Received[] = [];
    /** How many more requests to each path answer 500 before it answers 200. */
    const failures = new Map<string, number>();
    const held: (() => void)[] = [];
    before(async () => {
      server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          if (request.url!.endsWith('/hang')) {
            // Never answered until the test ends: a webhook that hangs.
            received.push({
              path: request.url!,
              headers: request.headers,
              body: Buffer.concat(chunks),
              answered: 0,
            });
            held.push(() => response.writeHead(200).end());
            return;
          }
          const left = failures.get(request.url!) ?? 0;
          failures.set(request.url!, Math.max(0, left - 1));
          const answered = left > 0 ? 500 : 200;
          received.push({
            path: request.url!,
            headers: request.headers,
            body: Buffer.concat(chunks),
            answered,
          });
          response.writeHead(answered).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      gw = (await startMetadataGateway({
        engine,
        env: {
          WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
          WEBHOOK_ATTEMPTS: '3',
          WEBHOOK_RETRY_DELAY_MS: '20',
          WEBHOOK_TIMEOUT_MS: '2000',
        },
      }))!;
    });
    after(async () => {
      held.splice(0).forEach((answer) => answer());
      await gw?.close();
      server?.close();
    });
    const hookUrl = (path: string) =>
      `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
    const at = (path: string) => received.filter((request) => request.path === path);
    /** The requests to `path` once there are at least `count` of them (waits up to 5 s). */
    const arrived = (path: string, count: number, what: string) =>
      eventually(() => (at(path).length >= count ? at(path) : undefined), 5_000, what) as Promise<
        Received[]
      >;
    const put = (user: string, webhooks: unknown[]) =>
      gw.call(user, 'PUT', '/webhooks', { json: { webhooks } });
    const share = async (from: string, to: string, name: string) => {
      await gw.upload(from, gw.home(from), name, `${name} content\n`);
      await gw.ok(from, 'POST', '/secured/share', {
        json: {
          sharing: [
            { user: to, paths: [{ path: `${gw.home(from)}/${name}`, permission: 'read' }] },
          ],
        },
      });
    };
    const messages = async (user: string) =>
      (await gw.ok(user, 'GET', '/secured/notifications/messages?limit=100')).messages;

    test('types and topics are listed', async () => {
      const { webhooktypes } = await gw.ok('alice', 'GET', '/webhooks/types');
      assert.deepEqual(
        webhooktypes.map((type: any) => type.type),
        ['Custom', 'Slack', 'Zapier'],
      );
      for (const type of webhooktypes) {
        assert.match(type.id, /^[0-9a-f-]{36}$/);
        assert.equal(typeof type.template, 'string');
      }
      const { topics } = await gw.ok('alice', 'GET', '/webhooks/topics');
      const names = topics.map((topic: any) => topic.topic);
      for (const name of [
        'analysis',
        'apps',
        'data',
        'permanent id request',
        'team',
        'tool request',
      ])
        assert.ok(names.includes(name), name);
      assert.ok(topics.every((topic: any) => /^[0-9a-f-]{36}$/.test(topic.id)));
    });

    test('PUT replaces the caller’s webhooks; GET and the bootstrap show them', async () => {
      assert.deepEqual(await gw.ok('dora', 'GET', '/webhooks'), { webhooks: [] });
      const first = await put('dora', [
        { url: hookUrl('/dora/one'), type: { type: 'Custom' }, topics: ['data', 'Tool Request'] },
        { url: hookUrl('/dora/two'), type: { type: 'slack' }, topics: [] },
      ]);
      assert.equal(first.status, 200, first.text);
      const [one, two] = first.body.webhooks;
      assert.equal(one.url, hookUrl('/dora/one'));
      assert.equal(one.type.type, 'Custom');
      assert.deepEqual(one.topics, ['data', 'tool request']);
      assert.match(one.secret, /^[0-9a-f]{64}$/);
      assert.equal(two.type.type, 'Slack');
      assert.deepEqual(two.topics, []);
      assert.notEqual(one.secret, two.secret);
      assert.deepEqual(await gw.ok('dora', 'GET', '/webhooks'), first.body);
      const bootstrap = await gw.ok('dora', 'GET', '/secured/bootstrap');
      assert.deepEqual(bootstrap.apps_info.webhooks, first.body.webhooks);
      // Nobody else sees them.
      assert.deepEqual(await gw.ok('ed', 'GET', '/webhooks'), { webhooks: [] });

      // A URL kept keeps its id and secret; one dropped is gone; a new one gets its own secret.
      const second = await put('dora', [
        { url: hookUrl('/dora/one'), type: { type: 'Zapier' }, topics: ['analysis'] },
        { url: hookUrl('/dora/three'), type: { type: 'Custom' }, topics: ['data'] },
      ]);
      assert.equal(second.status, 200, second.text);
      const [kept, fresh] = second.body.webhooks;
      assert.equal(kept.id, one.id);
      assert.equal(kept.secret, one.secret);
      assert.equal(kept.type.type, 'Zapier');
      assert.deepEqual(kept.topics, ['analysis']);
      assert.equal(fresh.url, hookUrl('/dora/three'));
      assert.notEqual(fresh.secret, two.secret);

      // Bad bodies: refused naming the field, nothing changed.
      const cases: [unknown, string][] = [
        [{ url: 'ftp://example.org/hook', type: { type: 'Custom' } }, 'webhooks[0].url'],
        [{ url: 'not a url', type: { type: 'Custom' } }, 'webhooks[0].url'],
        [{ url: 'http://user:pw@example.org/', type: { type: 'Custom' } }, 'webhooks[0].url'],
        [{ type: { type: 'Custom' } }, 'webhooks[0].url'],
        [{ url: hookUrl('/x'), type: { type: 'Teams' } }, 'webhooks[0].type'],
        [
          { url: hookUrl('/x'), type: { type: 'Custom' }, topics: ['weather'] },
          'webhooks[0].topics',
        ],
        [{ url: hookUrl('/x'), type: { type: 'Custom' }, topics: 'data' }, 'webhooks[0].topics'],
        ['a string', 'webhooks[0]'],
      ];
      for (const [hook, field] of cases) {
        const answer = await put('dora', [hook]);
        assert.equal(answer.status, 400, field);
        assert.equal(answer.body.error_code, 'ERR_BAD_OR_MISSING_FIELD', field);
        assert.equal(answer.body.field, field);
      }
      const twice = await put('dora', [
        { url: hookUrl('/x'), type: { type: 'Custom' } },
        { url: hookUrl('/x'), type: { type: 'Slack' } },
      ]);
      assert.equal(twice.body.field, 'webhooks[1].url');
      const noList = await gw.call('dora', 'PUT', '/webhooks', { json: { hooks: [] } });
      assert.equal(noList.status, 400);
      assert.deepEqual(await gw.ok('dora', 'GET', '/webhooks'), second.body);

      // An empty list clears them.
      assert.deepEqual((await put('dora', [])).body, { webhooks: [] });
      assert.deepEqual(await gw.ok('dora', 'GET', '/webhooks'), { webhooks: [] });
      assert.deepEqual((await gw.ok('dora', 'GET', '/secured/bootstrap')).apps_info.webhooks, []);
    });

    test('a notification of a subscribed topic is delivered signed; others are not sent', async () => {
      const alice = (
        await put('alice', [
          { url: hookUrl('/alice'), type: { type: 'Custom' }, topics: ['data'] },
          { url: hookUrl('/alice/slack'), type: { type: 'Slack' }, topics: ['data'] },
        ])
      ).body.webhooks;
      // bob is subscribed to analyses only: the share's data notification is not his topic.
      await put('bob', [{ url: hookUrl('/bob'), type: { type: 'Custom' }, topics: ['analysis'] }]);

      await share('alice', 'bob', 'shared.txt');
      const [delivery] = await arrived('/alice', 1, 'delivery');
      assert.equal(delivery!.answered, 200);
      assert.equal(delivery!.headers['content-type'], 'application/json');
      const expected = `sha256=${createHmac('sha256', alice[0].secret).update(delivery!.body).digest('hex')}`;
      assert.equal(delivery!.headers['x-platform-signature'], expected);
      assert.equal(delivery!.headers['x-platform-topic'], 'data');
      const notification = JSON.parse(delivery!.body.toString('utf8'));
      const listed = (await messages('alice')).find(
        (message: any) => message.message.id === notification.message.id,
      );
      assert.ok(listed, 'the delivered notification is the one alice has');
      assert.equal(notification.type, 'data');
      assert.equal(notification.subject, listed.subject);
      assert.equal(notification.payload.action, 'share');
      // As listed (docs/api/webhooks.md): the timestamp too, a string of ms.
      assert.equal(notification.message.timestamp, listed.message.timestamp);
      assert.match(notification.message.timestamp, /^[0-9]+$/);

      const [slack] = await arrived('/alice/slack', 1, 'the Slack delivery');
      assert.deepEqual(JSON.parse(slack!.body.toString('utf8')), { text: listed.subject });
      assert.equal(
        slack!.headers['x-platform-signature'],
        `sha256=${createHmac('sha256', alice[1].secret).update(slack!.body).digest('hex')}`,
      );

      // bob got his notification, and his webhook nothing.
      await eventually(
        async () => (await messages('bob')).some((message: any) => message.type === 'data'),
        5_000,
        "bob's notification",
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(at('/bob'), []);
      assert.equal(at('/alice').length, 1, 'delivered once');
    });

    test('a failing webhook is retried with back-off until it takes the delivery', async () => {
      const [hook] = (
        await put('carol', [{ url: hookUrl('/carol'), type: { type: 'Zapier' }, topics: ['data'] }])
      ).body.webhooks;
      failures.set('/carol', 2);
      await share('carol', 'ed', 'flaky.txt');
      const attempts = await arrived('/carol', 3, 'three attempts');
      assert.deepEqual(
        attempts.map((attempt) => attempt.answered),
        [500, 500, 200],
      );
      // The same delivery each time: one body, one signature, one delivery id.
      for (const attempt of attempts) {
        assert.deepEqual(attempt.body, attempts[0]!.body);
        assert.equal(
          attempt.headers['x-platform-delivery'],
          attempts[0]!.headers['x-platform-delivery'],
        );
        assert.equal(
          attempt.headers['x-platform-signature'],
          `sha256=${createHmac('sha256', hook.secret).update(attempt.body).digest('hex')}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(at('/carol').length, 3, 'no attempt after one succeeded');

      // A webhook that never takes it is given up after the attempts allowed; the notification stays.
      failures.set('/carol', 10);
      await share('carol', 'ed', 'lost.txt');
      await eventually(() => at('/carol').length >= 6, 5_000, 'three more attempts');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(at('/carol').length, 6, 'bounded: three attempts per delivery');
      assert.ok(
        (await messages('carol')).some((message: any) => message.subject.includes('lost.txt')),
      );
    });

    test('a webhook that does not answer never delays the notification', async () => {
      await put('ed', [{ url: hookUrl('/ed/hang'), type: { type: 'Custom' }, topics: ['team'] }]);
      const started = Date.now();
      const response = await gw.running.gateway.forwarder.call('notification-agent', {
        method: 'POST',
        path: '/notification',
        identityStyle: 'none',
        json: { type: 'team', user: 'ed', subject: 'you joined a team', payload: {} },
      });
      const answer = JSON.parse(await response.body.text());
      assert.equal(response.statusCode, 200);
      // Answered well before the webhook's 2 s timeout, while the webhook still holds the request.
      assert.ok(Date.now() - started < 1_000, `answered after ${Date.now() - started} ms`);
      await arrived('/ed/hang', 1, 'the hanging delivery');
      assert.ok(
        (await messages('ed')).some(
          (message: any) => message.message.id === answer.notification.message.id,
        ),
      );
    });

    test('loopback and private URLs are refused unless WEBHOOKS_ALLOW_PRIVATE_NETWORKS', async () => {
      const guarded = (await startMetadataGateway({ engine }))!;
      try {
        for (const url of [
          hookUrl('/x'),
          'http://localhost:9/hook',
          'http://[::1]:9/hook',
          'http://10.1.2.3/hook',
          'http://169.254.169.254/latest',
        ]) {
          const answer = await guarded.call('alice', 'PUT', '/webhooks', {
            json: { webhooks: [{ url, type: { type: 'Custom' }, topics: ['data'] }] },
          });
          assert.equal(answer.status, 400, url);
          assert.equal(answer.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
          assert.equal(answer.body.field, 'webhooks[0].url');
          assert.match(answer.body.reason, /loopback, private/);
        }
        assert.deepEqual(await guarded.ok('alice', 'GET', '/webhooks'), { webhooks: [] });
      } finally {
        await guarded.close();
      }
    });
  });
}

// Live notifications over AMQP (clients.md §7) against the local RabbitMQ, on each engine: a
// notification the agent records is published to the topic exchange as `notification.<username>`
// in the shape the UI's websocket reads, only to that user's binding; and the publisher survives
// the broker's connection being cut: a notification recorded while the broker is unreachable is
// in the database at once and reaches the consumer once the broker is back. While no broker
// answers, the local queue is bounded: the oldest message is dropped, with one warning. A system
// message an administrator creates, updates or deletes reaches every known user's binding, with
// that user's unseen count, in the same shape (type `system message`).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { AmqpPublisher } from '../../../src/backends/notification-agent/amqp.ts';
import { hostEngines, type BackendHost } from '../../support/backend-host.ts';
import { startAmqpConsumer, type AmqpConsumer } from '../../support/amqp-consumer.ts';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import { recordUser } from '../../../src/store/users.ts';

const prefix = '/notification-agent';
const skipped = 'DATABASE_URL is not set (CI sets it)';

test('while no broker answers, the queue keeps the newest messages up to its limit', async () => {
  const warnings: unknown[] = [];
  const log = { warn: (...args: unknown[]) => warnings.push(args), info: () => {} };
  const publisher = new AmqpPublisher(
    { uri: 'amqp://guest:guest@127.0.0.1:1', exchange: 'x', reconnectMaxMs: 100, queueLimit: 2 },
    log as never,
  );
  for (const n of [1, 2, 3, 4]) publisher.publish('notification.alice', { n });
  assert.equal(publisher.queued(), 2);
  const drops = warnings.filter((args) => String((args as unknown[])[1]).includes('queue full'));
  assert.equal(drops.length, 1, 'one warning per outage');
  await publisher.close();
});

for (const engine of hostEngines) {
  describe(`live notifications over AMQP on ${engine.name}`, () => {
    const exchange = `test-notifications-${randomUUID()}`;
    let proxy: TcpProxy;
    let consumer: AmqpConsumer;
    let service: BackendHost | undefined;
    before(async () => {
      proxy = await startTcpProxy({ host: '127.0.0.1', port: 5672 });
      // The queues are bound before anything is published: a topic exchange drops unroutable messages.
      consumer = await startAmqpConsumer(exchange, [
        'notification.alice',
        'notification.carol',
        'notification.#',
      ]);
      service = await engine.open({
        names: ['notification-agent'],
        env: () => ({
          AMQP_URI: `amqp://guest:guest@127.0.0.1:${proxy.port}`,
          AMQP_EXCHANGE: exchange,
          AMQP_RECONNECT_MAX_MS: '200',
        }),
      });
    });
    after(async () => {
      await service?.close();
      await consumer?.close();
      await proxy?.close();
    });

    const record = async (body: Record<string, unknown>) => {
      const answer = await service!.request('POST', `${prefix}/notification`, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(answer.status, 200, answer.text);
      return (answer.json() as { notification: { message: { id: string; timestamp: string } } })
        .notification;
    };
    const byId = (id: string) => (body: any) => body?.message?.message?.id === id;

    test("alice's binding gets alice's notifications in the UI's shape, not bob's", async (t) => {
      if (!service) return t.skip(skipped);
      const payload = { id: randomUUID(), status: 'Completed', interactive_urls: [] };
      const first = await record({
        type: 'analysis',
        user: 'alice',
        subject: 'job done',
        message: 'your job completed',
        email: true,
        email_template: 'analysis_status_change',
        payload,
      });
      const received = await consumer.waitFor('notification.alice', byId(first.message.id));
      // The same string of ms the agent answers and lists (the UI slices it, NotificationsTab.js).
      assert.match(first.message.timestamp, /^[0-9]+$/);
      assert.deepEqual(received, {
        total: 1,
        message: {
          type: 'analysis',
          user: 'alice',
          subject: 'job done',
          seen: false,
          deleted: false,
          email: true,
          email_template: 'analysis_status_change',
          message: {
            id: first.message.id,
            text: 'your job completed',
            timestamp: first.message.timestamp,
          },
          payload,
          outputDir: '',
          outputManifest: [],
        },
      });

      const bobs = await record({ type: 'data', user: 'bob', subject: 'for bob' });
      await consumer.waitFor('notification.#', byId(bobs.message.id));
      // Published after bob's was routed: once it arrives, bob's would have been before it.
      const second = await record({ type: 'tool_request', user: 'alice', subject: 'tool' });
      const later = await consumer.waitFor('notification.alice', byId(second.message.id));
      assert.equal(later.total, 2);
      assert.equal(later.message.type, 'tool request');
      assert.deepEqual(
        consumer.received('notification.alice').map((body: any) => body.message.message.id),
        [first.message.id, second.message.id],
      );
    });

    test("a system message reaches every known user's binding, with each one's count", async (t) => {
      if (!service) return t.skip(skipped);
      for (const user of ['alice', 'carol', 'dave'])
        await recordUser(service.store.db, `${user}@example.org`);
      await record({ type: 'data', user: 'carol', subject: 'unseen for carol' });
      const admin = async (method: string, path: string, body?: unknown) => {
        const answer = await service!.request(
          method,
          `${prefix}${path}`,
          body === undefined
            ? {}
            : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
        );
        assert.equal(answer.status, 200, answer.text);
        return (answer.json() as { 'system-notification': { uuid: string; date_created: number } })[
          'system-notification'
        ];
      };
      const created = await admin('PUT', '/admin/system', {
        type: 'maintenance',
        message: 'down at noon',
        deactivation_date: Date.now() + 3_600_000,
      });
      const isIt = (action: string) => (body: any) =>
        body?.message?.message?.id === created.uuid && body.message.payload?.action === action;
      const toCarol = await consumer.waitFor('notification.carol', isIt('created'));
      assert.deepEqual(toCarol, {
        total: 1,
        message: {
          type: 'system message',
          user: 'carol',
          subject: 'maintenance',
          seen: false,
          deleted: false,
          email: false,
          email_template: null,
          message: {
            id: created.uuid,
            text: 'down at noon',
            timestamp: String(created.date_created),
          },
          payload: { action: 'created', 'system-notification': created },
        },
      });
      const toAlice = await consumer.waitFor('notification.alice', isIt('created'));
      assert.equal(toAlice.message.user, 'alice');
      await consumer.waitFor(
        'notification.#',
        (body) => isIt('created')(body) && body.message.user === 'dave',
      );

      await admin('POST', `/admin/system/${created.uuid}`, { message: 'down at one' });
      const updated = await consumer.waitFor('notification.carol', isIt('updated'));
      assert.equal(updated.message.message.text, 'down at one');
      await admin('DELETE', `/admin/system/${created.uuid}`);
      await consumer.waitFor('notification.alice', isIt('deleted'));
    });

    test('a notification recorded while the broker is cut off arrives once it is back', async (t) => {
      if (!service) return t.skip(skipped);
      const before = await record({ type: 'data', user: 'alice', subject: 'before the cut' });
      await consumer.waitFor('notification.alice', byId(before.message.id));

      await proxy.refuse(); // the open connection is cut and reconnections are refused
      const during = await record({ type: 'data', user: 'alice', subject: 'during the cut' });
      const listed = await service.request('GET', `${prefix}/messages?user=alice`);
      assert.equal(listed.status, 200, listed.text);
      const ids = (listed.json() as { messages: { message: { id: string } }[] }).messages.map(
        (note) => note.message.id,
      );
      assert.ok(ids.includes(during.message.id), 'recorded in the database at once');

      await proxy.restore();
      const arrived = await consumer.waitFor('notification.alice', byId(during.message.id));
      assert.equal(arrived.message.subject, 'during the cut');
    });
  });
}

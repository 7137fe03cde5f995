// Live notifications over AMQP (clients.md §7) against the local RabbitMQ, on each engine: a
// notification the agent records is published to the topic exchange as `notification.<username>`
// in the shape the UI's websocket reads, only to that user's binding, with its id as the AMQP
// message id. Each message goes through the outbox (live-outbox.ts): one recorded while the broker
// is unreachable is in the database at once and is published once when the broker is back, even
// with the gateway restarted meanwhile, and a consumer bound after the outage gets the new ones; a
// row another process holds is taken over only once its hold has passed (at once when it let go).
// While no broker answers, the outbox keeps the newest AMQP_QUEUE_LIMIT messages, with one
// warning; while the database is away the broker connection stays and publishing resumes after. A system message an administrator creates, updates or deletes reaches every known
// user's binding, with that user's unseen count, in the same shape (type `system message`).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { AmqpPublisher } from '../../../src/backends/notification-agent/amqp.ts';
import { LiveOutbox } from '../../../src/backends/notification-agent/live-outbox.ts';
import { hostEngines, type BackendHost } from '../../support/backend-host.ts';
import { rabbitUri, startAmqpConsumer, type AmqpConsumer } from '../../support/amqp-consumer.ts';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import { eventually } from '../../support/fileio.ts';
import { tally, testFile } from '../../support/reliability.ts';
import { recordUser } from '../../../src/store/users.ts';

const prefix = '/notification-agent';
const skipped = 'DATABASE_URL is not set (CI sets it)';

test('the database away while the broker answers: publishing pauses, the broker connection stays, and what waited goes out once the database is back', async (t) => {
  const exchange = `test-outbox-outage-${randomUUID()}`;
  const consumer = await startAmqpConsumer(exchange, ['notification.#']);
  t.after(() => consumer.close());
  const infos: unknown[][] = [];
  const warnings: unknown[][] = [];
  const log = {
    warn: (...args: unknown[]) => warnings.push(args),
    info: (...args: unknown[]) => infos.push(args),
  };
  // An outbox whose database fails its first reads, as one restarting would.
  let failures = 3;
  const waiting = [{ id: randomUUID(), routingKey: 'notification.zoe', body: '{"n":1}' }];
  const outbox = {
    holdMs: 10_000,
    claim: async () => {
      if (failures-- > 0) throw new Error('Connection terminated unexpectedly');
      return waiting.splice(0);
    },
    remove: async () => {},
    release: async () => 0,
    trim: async () => 0,
  };
  const publisher = new AmqpPublisher(
    { uri: rabbitUri, exchange, reconnectMaxMs: 200, queueLimit: 10 },
    outbox as never,
    log as never,
  );
  t.after(() => publisher.close());
  await consumer.waitFor('notification.#', (body) => body?.n === 1);
  const connected = infos.filter((args) => String(args[1]).includes('publisher connected'));
  assert.equal(connected.length, 1, 'one broker connection all along');
  const unread = warnings.filter((args) => String(args[1]).includes('could not read'));
  assert.equal(unread.length, 1, 'one warning for the outage');
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

    /** How many times a message with this notification id reached `pattern`'s queue. */
    const copies = (pattern: string, id: string) =>
      consumer.received(pattern).filter(byId(id)).length;
    /** The notification's live message has been confirmed and removed from the outbox. */
    const outboxSize = async () =>
      Number(
        (
          await service!.store.db
            .selectFrom('live_notification_outbox')
            .select((eb) => eb.fn.countAll().as('count'))
            .executeTakeFirstOrThrow()
        ).count,
      );

    /** Every message recorded so far is confirmed by the broker and gone from the outbox. */
    const drained = () =>
      eventually(async () => (await outboxSize()) === 0, 5_000, 'the outbox to empty');

    /**
     * The report's row of a broker outage (docs/reliability.md): the notifications recorded around
     * it, each held once it reached the consumers exactly once.
     */
    const outageCases = (t: { after(fn: () => void): void }, what: string) =>
      tally(t, {
        area: 'faults',
        what,
        file: testFile(import.meta.url),
        // Named as the other rows name the engines (test/support/postgres.ts's `engines`).
        note: engine.name === 'PostgreSQL' ? 'postgres' : 'sqlite',
      });
    /** Notifications recorded (acknowledged) during an outage, and how many reached the consumer. */
    const kept = (ids: string[]) => ({
      acknowledged: ids.length,
      found: ids.filter((id) => copies('notification.alice', id) > 0).length,
    });

    test('recorded while the broker is cut off: in the database at once, published once when it is back, and a consumer bound after gets the new ones', async (t) => {
      if (!service) return t.skip(skipped);
      const cases = outageCases(
        t,
        "the message broker's connection cut and reconnections refused: a notification recorded meanwhile is in the database at once and published once when the broker is back; those before and after published once each, to a consumer bound after the outage too",
      );
      await drained();
      cases.tried += 1;
      const before = await record({ type: 'data', user: 'alice', subject: 'before the cut' });
      await consumer.waitFor('notification.alice', byId(before.message.id));
      // Delivered is not yet confirmed: its row leaves the outbox when the broker's confirm comes.
      await drained();
      // Its AMQP message id is the notification's: a consumer can de-duplicate on either.
      const index = consumer.received('notification.alice').findIndex(byId(before.message.id));
      assert.equal(consumer.messageIds('notification.alice')[index], before.message.id);

      await proxy.refuse(); // the open connection is cut and reconnections are refused
      cases.tried += 1;
      const during = await record({ type: 'data', user: 'alice', subject: 'during the cut' });
      const listed = await service.request('GET', `${prefix}/messages?user=alice`);
      assert.equal(listed.status, 200, listed.text);
      const ids = (listed.json() as { messages: { message: { id: string } }[] }).messages.map(
        (note) => note.message.id,
      );
      assert.ok(ids.includes(during.message.id), 'recorded in the database at once');
      assert.equal(await outboxSize(), 1, 'its live message waits in the outbox');

      await proxy.restore();
      const arrived = await consumer.waitFor('notification.alice', byId(during.message.id));
      assert.equal(arrived.message.subject, 'during the cut');

      // The push resumes, for a consumer bound after the outage too (a tab opened since).
      const late = await startAmqpConsumer(exchange, ['notification.alice']);
      t.after(() => late.close({ keepExchange: true }));
      cases.tried += 1;
      const after = await record({ type: 'data', user: 'alice', subject: 'after the cut' });
      await late.waitFor('notification.alice', byId(after.message.id));
      await consumer.waitFor('notification.alice', byId(after.message.id));
      cases.held += 1;
      cases.writes = kept([during.message.id]);
      // Published in order: anything sent twice would have come before the later one.
      assert.equal(copies('notification.alice', during.message.id), 1, 'published once');
      cases.held += 1;
      assert.equal(copies('notification.alice', before.message.id), 1);
      cases.held += 1;
      await eventually(async () => (await outboxSize()) === 0, 5_000, 'the outbox to empty');
    });

    test('recorded while the broker is away and the gateway restarted meanwhile: published once by the gateway started again', async (t) => {
      if (!service) return t.skip(skipped);
      const cases = outageCases(
        t,
        'the message broker away while the gateway is stopped and started again: the notification recorded before the restart is kept in the database and published once by the gateway started again, and the next one after it',
      );
      await drained();
      await proxy.refuse();
      cases.tried += 1;
      const during = await record({ type: 'data', user: 'alice', subject: 'across a restart' });
      // Stopped (its publisher lets go of the message) and started again on the same database.
      service = await service.reopen();
      assert.equal(await outboxSize(), 1, 'the message outlived the gateway that recorded it');
      await proxy.restore();
      // Well within the hold (10 s) a killed gateway's rows wait out: this one let go of it.
      await consumer.waitFor('notification.alice', byId(during.message.id), 5_000);
      cases.tried += 1;
      const next = await record({ type: 'data', user: 'alice', subject: 'after the restart' });
      await consumer.waitFor('notification.alice', byId(next.message.id));
      cases.held += 1;
      cases.writes = kept([during.message.id]);
      assert.equal(copies('notification.alice', during.message.id), 1, 'published once');
      cases.held += 1;
      await eventually(async () => (await outboxSize()) === 0, 5_000, 'the outbox to empty');
    });

    test("the outbox: another process's rows are taken once its hold has passed, at once once it let go", async (t) => {
      if (!service) return t.skip(skipped);
      const db = service.store.db;
      let clock = Date.now() + 3_600_000; // apart from the running publisher's rows
      const message = (id: string) => ({ id, routingKey: 'outbox-test.x', body: '{}' });
      const killed = new LiveOutbox({ db, now: () => clock, holdMs: 1_000 });
      const stopped = new LiveOutbox({ db, now: () => clock, holdMs: 1_000 });
      const next = new LiveOutbox({ db, now: () => clock, holdMs: 1_000 });
      const [a, b] = [randomUUID(), randomUUID()];
      t.after(() => next.remove([a, b]));
      await killed.add(db, [message(a)]);
      clock += 1;
      await stopped.add(db, [message(b)]);
      assert.deepEqual(await next.claim(10), [], 'both still held');
      assert.equal(await stopped.release(), 1);
      assert.deepEqual(
        (await next.claim(10)).map((row) => row.id),
        [b],
        'let go of: taken at once',
      );
      clock += 1_000;
      assert.deepEqual(
        (await next.claim(10)).map((row) => row.id),
        [a, b],
        "the killed process's hold passed: taken, in the order written",
      );
      assert.deepEqual(await killed.claim(10), [], "no longer the killed process's");
    });

    test('while no broker answers, the outbox keeps the newest messages up to AMQP_QUEUE_LIMIT, with one warning', async (t) => {
      if (!service) return t.skip(skipped);
      const db = service.store.db;
      const warnings: unknown[][] = [];
      const log = { warn: (...args: unknown[]) => warnings.push(args), info: () => {} };
      // Its own rows, far in the future, so the running publisher never takes them.
      const outbox = new LiveOutbox({ db, now: () => Date.now() + 3_600_000 });
      const ids = [1, 2, 3, 4].map(() => randomUUID());
      t.after(() => outbox.remove(ids));
      const before = await outboxSize();
      await outbox.add(
        db,
        ids.map((id) => ({ id, routingKey: 'outbox-test.x', body: '{}' })),
      );
      const publisher = new AmqpPublisher(
        {
          uri: 'amqp://guest:guest@127.0.0.1:1',
          exchange: 'x',
          reconnectMaxMs: 100,
          queueLimit: before + 2,
        },
        outbox,
        log as never,
      );
      // Closed even when an assertion fails: it would keep reconnecting, and the file never end.
      t.after(() => publisher.close());
      await eventually(async () => (await outboxSize()) === before + 2, 5_000, 'the trim');
      const left = await db
        .selectFrom('live_notification_outbox')
        .select('id')
        .where('id', 'in', ids)
        .execute();
      assert.deepEqual(left.map((row) => row.id).sort(), ids.slice(2).sort(), 'the newest two');
      await publisher.close();
      const drops = warnings.filter((args) => String(args[1]).includes('outbox full'));
      assert.equal(drops.length, 1, 'one warning per outage');
    });
  });
}

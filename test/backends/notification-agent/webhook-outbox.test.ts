// Webhook deliveries through the outbox (webhook-delivery.ts, migration 044), on each engine: a
// notification recorded while its webhook's receiver is down waits in the database, outlives the
// gateway stopped and started again, and arrives once when the receiver is back, with the
// X-Platform-Delivery id it was written with; two gateways on one database deliver every row
// exactly once, and the one left running sends what the stopped one had not; a delivery whose
// attempts run out (counted across a restart) is removed with the warning; a killed gateway's rows
// wait out its hold and a stopped one's are taken at once; a webhook removed takes its waiting
// deliveries with it. The receiver is a local HTTP server that can be down (it cuts
// every connection), failing (500), or up; the tests wait for conditions, not for timers.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { hostEngines, type BackendHost } from '../../support/backend-host.ts';
import { eventually } from '../../support/fileio.ts';
import { WebhookOutbox } from '../../../src/backends/notification-agent/webhook-outbox.ts';

const prefix = '/notification-agent';
const skipped = 'DATABASE_URL is not set (CI sets it)';

interface Arrival {
  delivery: string;
  /** The notification's id, from the body. */
  notification: string;
  headers: IncomingHttpHeaders;
  answered: number;
}

/** A webhook receiver: `down` cuts connections, `failing` answers 500 to the first `failFirst` attempts of each notification, else 200. */
class Receiver {
  state: 'up' | 'down' = 'up';
  /** Attempts answered 500 per notification before a 200. */
  failFirst = 0;
  /** Connections cut while down. */
  refused = 0;
  readonly arrivals: Arrival[] = [];
  private readonly server: Server;

  constructor() {
    this.server = createServer((request, response) => {
      if (this.state === 'down') {
        this.refused += 1;
        request.socket.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const notification = String(JSON.parse(Buffer.concat(chunks).toString('utf8')).message.id);
        const before = this.arrivals.filter((one) => one.notification === notification).length;
        const answered = before < this.failFirst ? 500 : 200;
        this.arrivals.push({
          delivery: String(request.headers['x-platform-delivery']),
          notification,
          headers: request.headers,
          answered,
        });
        response.writeHead(answered).end();
      });
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** The 2xx-answered arrivals of `notification`. */
  accepted(notification: string): Arrival[] {
    return this.arrivals.filter((one) => one.notification === notification && one.answered === 200);
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }
}

for (const engine of hostEngines) {
  describe(`webhook deliveries through the outbox on ${engine.name}`, () => {
    const receiver = new Receiver();
    const logLines: Record<string, unknown>[] = [];
    let service: BackendHost | undefined;
    before(async () => {
      await receiver.listen();
      service = await engine.open({
        names: ['notification-agent'],
        logLines,
        env: () => ({
          WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
          WEBHOOK_ATTEMPTS: '10',
          WEBHOOK_RETRY_DELAY_MS: '100',
          WEBHOOK_TIMEOUT_MS: '2000',
        }),
      });
    });
    after(async () => {
      await service?.close();
      receiver.close();
    });

    /** A Custom webhook of `user` subscribed to `data`, written as the apps service's PUT would. */
    const subscribe = async (on: BackendHost, user: string, path: string) => {
      const db = on.store.db;
      const type = await db
        .selectFrom('webhook_types')
        .select('id')
        .where('type', '=', 'Custom')
        .executeTakeFirstOrThrow();
      const topic = await db
        .selectFrom('webhook_topics')
        .select('id')
        .where('topic', '=', 'data')
        .executeTakeFirstOrThrow();
      const id = randomUUID();
      await db
        .insertInto('webhooks')
        .values({
          id,
          username: user,
          url: receiver.url(path),
          type_id: type.id,
          secret: randomBytes(32).toString('hex'),
          created_on: Date.now(),
        })
        .execute();
      await db
        .insertInto('webhook_subscriptions')
        .values({ webhook_id: id, topic_id: topic.id })
        .execute();
      return id;
    };
    const record = async (through: BackendHost, user: string, subject: string) => {
      const answer = await through.request('POST', `${prefix}/notification`, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'data', user, subject }),
      });
      assert.equal(answer.status, 200, answer.text);
      return (answer.json() as { notification: { message: { id: string } } }).notification.message
        .id;
    };
    const waiting = (on: BackendHost, notification?: string) => {
      let query = on.store.db.selectFrom('webhook_outbox').selectAll();
      if (notification) query = query.where('notification_id', '=', notification);
      return query.execute();
    };
    const drained = () =>
      eventually(async () => (await waiting(service!)).length === 0, 10_000, 'the outbox to empty');

    test('the receiver down across a restart: the delivery arrives once, with the id it was written with', async (t) => {
      if (!service) return t.skip(skipped);
      await subscribe(service, 'ann', '/ann');
      receiver.state = 'down';
      t.after(() => (receiver.state = 'up'));
      const id = await record(service, 'ann', 'while the receiver is down');
      // Written with the notification; an attempt has failed and been counted.
      const [row] = (await eventually(
        async () => {
          const rows = await waiting(service!, id);
          return rows.length === 1 && Number(rows[0]!.attempts) >= 1 ? rows : undefined;
        },
        10_000,
        'a failed attempt',
      ))!;
      assert.ok(receiver.refused >= 1);
      // Stopped (what it held let go of, nothing kept in memory) and started again on the same database.
      service = await service.reopen();
      assert.equal((await waiting(service, id)).length, 1, 'the delivery outlived the gateway');
      receiver.state = 'up';
      const [arrived] = (await eventually(
        () => {
          const got = receiver.accepted(id);
          return got.length > 0 ? got : undefined;
        },
        10_000,
        'the delivery after the restart',
      ))!;
      assert.equal(arrived!.delivery, row!.id, 'the same X-Platform-Delivery id');
      await drained();
      // Removed once taken: nothing sends it again.
      assert.equal(receiver.accepted(id).length, 1, 'delivered once');
    });

    test('two gateways on one database: every delivery exactly once, and the stopped one’s go out through the other', async (t) => {
      if (!service) return t.skip(skipped);
      const other = await service.sibling();
      let otherOpen = true;
      t.after(async () => {
        if (otherOpen) await other.close();
      });
      await subscribe(service, 'bea', '/bea');
      await subscribe(service, 'bea', '/bea/second');
      // Every first attempt fails: the retries are due to whichever gateway looks first.
      receiver.failFirst = 2; // the first two attempts of each notification, whichever webhooks
      t.after(() => (receiver.failFirst = 0));
      const ids: string[] = [];
      for (let index = 0; index < 10; index++)
        ids.push(await record(index % 2 === 0 ? service : other, 'bea', `both running ${index}`));
      await drained();
      for (const id of ids) {
        const got = receiver.accepted(id);
        assert.equal(got.length, 2, `one delivery per webhook of ${id}`);
        assert.notEqual(got[0]!.delivery, got[1]!.delivery);
      }
      // No delivery id taken twice, nor any attempt of one sent after it was taken.
      const taken = receiver.arrivals
        .filter((one) => one.answered === 200)
        .map((one) => one.delivery);
      assert.equal(new Set(taken).size, taken.length, 'each delivery accepted once');

      // Recorded through one gateway while the receiver is down; that gateway stops; the other
      // sends them once the receiver is back.
      receiver.failFirst = 0;
      receiver.state = 'down';
      t.after(() => (receiver.state = 'up'));
      const left: string[] = [];
      for (let index = 0; index < 4; index++)
        left.push(await record(other, 'bea', `left behind ${index}`));
      await other.close();
      otherOpen = false;
      receiver.state = 'up';
      await drained();
      for (const id of left)
        assert.equal(receiver.accepted(id).length, 2, `${id} through the gateway left running`);
    });

    test('attempts run out, counted across a restart: the row is removed and the failure logged', async (t) => {
      if (!service) return t.skip(skipped);
      // A gateway of its own on a database of its own: three attempts in all (WEBHOOK_ATTEMPTS).
      let own = (await engine.open({
        names: ['notification-agent'],
        logLines,
        env: () => ({
          WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
          WEBHOOK_ATTEMPTS: '3',
          WEBHOOK_RETRY_DELAY_MS: '200',
          WEBHOOK_TIMEOUT_MS: '2000',
        }),
      }))!;
      t.after(() => own.close());
      const webhook = await subscribe(own, 'cid', '/cid');
      receiver.failFirst = 1_000;
      t.after(() => (receiver.failFirst = 0));
      const id = await record(own, 'cid', 'never taken');
      await eventually(
        async () => {
          const [row] = await waiting(own, id);
          return row && Number(row.attempts) >= 1;
        },
        10_000,
        'a failed attempt',
      );
      own = await own.reopen();
      const failure = (await eventually(
        () =>
          logLines.find(
            (line) => line.msg === 'a webhook delivery failed' && line.notification === id,
          ),
        10_000,
        'the failure to be logged',
      ))!;
      assert.equal(failure.webhook, webhook);
      assert.equal(failure.attempts, 3);
      assert.equal(failure.reason, 'answered 500');
      assert.deepEqual(await waiting(own, id), [], 'removed');
      const attempts = receiver.arrivals.filter((one) => one.notification === id);
      assert.equal(attempts.length, 3, 'three attempts across the restart, not three after it');
      assert.equal(
        new Set(attempts.map((one) => one.delivery)).size,
        1,
        'one delivery id throughout',
      );
    });

    test("a killed gateway's rows are taken over once its hold has passed, a stopped one's at once", async (t) => {
      if (!service) return t.skip(skipped);
      const db = service.store.db;
      const webhook = await subscribe(service, 'eve', '/eve');
      // Far ahead of the running gateway's clock, so that it never takes these rows.
      let clock = Date.now() + 3_600_000;
      const outbox = () => new WebhookOutbox({ db, now: () => clock, holdMs: 1_000 });
      const [killed, stopped, next] = [outbox(), outbox(), outbox()];
      const delivery = (notificationId: string) => ({
        webhookId: webhook,
        notificationId,
        topic: 'data',
        body: '{}',
      });
      await killed.add(db, [delivery('killed')]);
      clock += 1;
      await stopped.add(db, [delivery('stopped')]);
      const taken = async () => (await next.claim(10, new Set())).map((row) => row.notificationId);
      assert.deepEqual(await taken(), [], 'both still held');
      assert.equal(await stopped.release(), 1);
      assert.deepEqual(await taken(), ['stopped'], 'let go of: taken at once');
      clock += 1_000;
      assert.deepEqual(
        await taken(),
        ['killed', 'stopped'],
        'the hold passed: taken, oldest first',
      );
      assert.deepEqual(await killed.claim(10, new Set()), [], "no longer the killed one's");
    });

    test('a webhook removed takes its waiting deliveries with it', async (t) => {
      if (!service) return t.skip(skipped);
      const webhook = await subscribe(service, 'dan', '/dan');
      receiver.state = 'down';
      t.after(() => (receiver.state = 'up'));
      const id = await record(service, 'dan', 'for a webhook about to go');
      assert.equal((await waiting(service, id)).length, 1);
      await service.store.db.deleteFrom('webhooks').where('id', '=', webhook).execute();
      assert.deepEqual(await waiting(service, id), []);
    });
  });
}

// A job's status notifications delivered once (job-notices.ts, migration 040), on SQLite and
// PostgreSQL, against the embedded notification agent: each is recorded in the outbox with its
// status change, sent under its key, and removed once the agent took it; one the agent did not
// take waits, is sent again when due, and an analysis's are delivered in their order; a key sent
// twice is recorded once by the agent; of two runners sending what is due, each notification goes
// out once; one whose sender died is sent by another once the sender's hold has passed.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import {
  JobNotices,
  type KeyedNotification,
} from '../../../../src/backends/apps/jobs/job-notices.ts';
import { sendNotification } from '../../../../src/http/notifications.ts';
import type { UserNotification } from '../../../../src/common/notifications.ts';
import { startMetadataGateway, type MetadataGateway } from '../../../support/metadata-gateway.ts';
import { engineDatabase, engines, skipWithout } from '../../../support/postgres.ts';

const log = pino({ level: 'silent' });
const holdMs = 30_000;

for (const engine of engines) {
  describe(`job notifications' outbox (${engine})`, { skip: skipWithout(engine) }, () => {
    let database: Awaited<ReturnType<typeof engineDatabase>>;
    let dataDir: string;
    let gw: MetadataGateway;
    /**
     * The runners' clock, moved by the tests; a day ahead, so the gateway's own runner (on the
     * real clock) never finds these tests' notifications due.
     */
    let clock = Date.now() + 86_400_000;
    let agentUp = true;
    /** Every send a runner made, by key. */
    const sends: string[] = [];
    before(async () => {
      database = await engineDatabase(engine);
      dataDir = mkdtempSync(path.join(tmpdir(), 'job-notices-'));
      gw = (await startMetadataGateway({ env: { ...database.env, GATEWAY_DATA_DIR: dataDir } }))!;
    });
    after(async () => {
      await gw?.close();
      await database?.drop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    const runner = (holder: string) =>
      new JobNotices({
        db: gw.running.gateway.store.db,
        send: async (notification: KeyedNotification) => {
          sends.push(notification.key);
          return agentUp && sendNotification(gw.running.gateway.forwarder, notification, log);
        },
        now: () => clock,
        log,
        holder,
        holdMs,
      });
    const notice = (user: string, subject: string): UserNotification => ({
      type: 'analysis',
      user,
      subject,
      payload: { id: subject },
    });
    const record = (notices: JobNotices, analysis: string, ...notifications: UserNotification[]) =>
      gw.running.gateway.store.db.transaction().execute(async (trx) => {
        for (const notification of notifications) await notices.record(trx, analysis, notification);
      });
    const subjectsOf = async (user: string) => {
      const { messages } = await gw.ok(user, 'GET', '/secured/notifications/messages?limit=100');
      // In the order the agent recorded them.
      return (messages as { subject: string; message: { timestamp: string } }[])
        .sort((a, b) => Number(a.message.timestamp) - Number(b.message.timestamp))
        .map((message) => message.subject);
    };
    const waiting = async (analysis: string) =>
      gw.running.gateway.store.db
        .selectFrom('notification_outbox')
        .select(['attempts'])
        .where('analysis_id', '=', analysis)
        .orderBy('created_at')
        .execute();

    test("one the agent did not take waits, is sent again when due, and the analysis's arrive in order, once", async () => {
      const notices = runner('this-one');
      const analysis = randomUUID();
      await record(
        notices,
        analysis,
        notice('olga', 'olga running'),
        notice('olga', 'olga completed'),
      );
      agentUp = false;
      await notices.flush(analysis);
      // The first failed and the second waited behind it.
      assert.deepEqual(
        (await waiting(analysis)).map((row) => Number(row.attempts)),
        [1, 0],
      );
      assert.deepEqual(await subjectsOf('olga'), []);
      agentUp = true;
      await notices.sendDue();
      assert.equal((await waiting(analysis)).length, 2, 'not due before its retry time');
      clock += 2_000;
      await notices.sendDue();
      assert.deepEqual(await waiting(analysis), []);
      assert.deepEqual(await subjectsOf('olga'), ['olga running', 'olga completed']);
      await notices.sendDue();
      assert.deepEqual(await subjectsOf('olga'), ['olga running', 'olga completed']);
    });

    test('a key sent twice is recorded once by the agent; a key that is no UUID is refused', async () => {
      const key = randomUUID();
      const { forwarder } = gw.running.gateway;
      const twice = { ...notice('pia', 'pia once'), key };
      assert.equal(await sendNotification(forwarder, twice, log), true);
      assert.equal(await sendNotification(forwarder, twice, log), true);
      assert.deepEqual(await subjectsOf('pia'), ['pia once']);
      const refused = await forwarder.call('notification-agent', {
        method: 'POST',
        path: '/notification',
        identityStyle: 'none',
        headers: { 'idempotency-key': 'not-a-uuid' },
        json: { type: 'analysis', user: 'pia', subject: 'pia refused' },
      });
      assert.equal(refused.statusCode, 400);
      assert.equal(
        ((await refused.body.json()) as { error_code: string }).error_code,
        'ERR_BAD_OR_MISSING_FIELD',
      );
      assert.deepEqual(await subjectsOf('pia'), ['pia once']);
    });

    test("one whose sender died is sent by another runner once the sender's hold passed; of two runners each is sent once", async () => {
      const gone = runner('gone');
      const analyses = Array.from({ length: 12 }, () => randomUUID());
      for (const [index, analysis] of analyses.entries())
        await record(gone, analysis, notice('quinn', `quinn ${index}`));
      sends.length = 0;
      const [first, second] = [runner('first'), runner('second')];
      await Promise.all([first.sendDue(), second.sendDue()]);
      assert.deepEqual(sends, [], "nothing sent while the dead sender's hold lasts");
      clock += holdMs + 1_000;
      await Promise.all([first.sendDue(), second.sendDue()]);
      assert.equal(sends.length, 12, sends.join(', '));
      assert.equal(new Set(sends).size, 12, 'each notification sent once');
      assert.deepEqual(
        (await subjectsOf('quinn')).sort(),
        analyses.map((_, index) => `quinn ${index}`).sort(),
      );
    });
  });
}

// Events: data operations, sharing and job status changes reach the affected users as notifications
// through the one event path, and GET /secured/notifications/stream pushes them (and count changes)
// to a web client as they happen, on each engine and across gateways.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { jobStatusNotification } from '../../src/common/notifications.ts';
import { sendNotification } from '../../src/http/notifications.ts';
import { openEventStream, type EventStreamClient } from '../support/event-stream.ts';
import { startBackend } from '../support/backend.ts';
import { eventually } from '../support/fileio.ts';
import { requiredInCi } from '../support/gateway.ts';
import { admin, startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';
import { pgSchemaUrl } from '../support/postgres.ts';

type Notification = {
  type: string;
  user: string;
  subject: string;
  seen: boolean;
  message: { id: string; text: string; timestamp: string };
  payload: Record<string, any>;
  outputDir: string;
};

async function messagesOf(gw: MetadataGateway, user: string): Promise<Notification[]> {
  return (await gw.ok(user, 'GET', '/secured/notifications/messages?sortDir=asc')).messages;
}

/** The first notification of `user` (oldest first) that matches, once it has arrived (data-info does not wait for it). */
function arrival(
  gw: MetadataGateway,
  user: string,
  match: (notification: Notification) => boolean,
): Promise<Notification> {
  return eventually(
    async () => (await messagesOf(gw, user)).find(match),
    10_000,
    `a notification for ${user}`,
  ) as Promise<Notification>;
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`notification events (${engine})`, () => {
    let gw: MetadataGateway;
    let source: Server;
    before(async () => {
      source = createServer((request, response) => {
        if (request.url === '/words.txt')
          response.writeHead(200, { 'content-type': 'text/plain' }).end('imported words');
        else response.writeHead(404).end();
      });
      await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve));
      const started = await startMetadataGateway({
        engine,
        env: { NOTIFICATION_STREAM_HEARTBEAT_MS: '300', URL_IMPORT_ALLOW_PRIVATE_NETWORKS: 'true' },
      });
      if (!started) return;
      gw = started;
    });
    after(async () => {
      await gw?.close();
      source.close();
    });
    const sourceUrl = () => `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
    const skip = () => !gw && engine === 'postgres' && !requiredInCi('DATABASE_URL');

    test('moves, renames, trashing, permanent deletes, restores and emptying the trash notify the user', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const home = gw.home('alice');
      for (const name of ['a.txt', 'b.txt', 'c.txt', 'd.txt'])
        await gw.upload('alice', home, name, `content of ${name}`);
      await gw.folder('alice', `${home}/dest`);

      await gw.ok('alice', 'POST', '/secured/filesystem/rename', {
        json: { source: `${home}/a.txt`, dest: `${home}/a2.txt` },
      });
      const renamed = await arrival(gw, 'alice', (n) => n.payload.action === 'rename');
      assert.equal(renamed.type, 'data');
      assert.deepEqual(renamed.payload.paths, [`${home}/a.txt`]);
      assert.equal(renamed.payload.dest, `${home}/a2.txt`);
      assert.equal(renamed.subject, 'a.txt renamed to a2.txt');

      await gw.ok('alice', 'POST', '/secured/filesystem/move', {
        json: { sources: [`${home}/b.txt`, `${home}/c.txt`], dest: `${home}/dest` },
      });
      const moved = await arrival(gw, 'alice', (n) => n.payload.action === 'move');
      assert.deepEqual([...moved.payload.paths].sort(), [`${home}/b.txt`, `${home}/c.txt`]);
      assert.equal(moved.payload.dest, `${home}/dest`);
      assert.equal(moved.payload.count, 2);
      assert.equal(moved.subject, `2 items moved to ${home}/dest`);

      const trashAnswer = await gw.ok('alice', 'POST', '/secured/filesystem/delete', {
        json: { paths: [`${home}/a2.txt`, `${home}/d.txt`] },
      });
      const trashed = await arrival(gw, 'alice', (n) => n.payload.action === 'trash');
      assert.deepEqual([...trashed.payload.paths].sort(), [`${home}/a2.txt`, `${home}/d.txt`]);

      const trashOfA2 = trashAnswer['trash-paths'][`${home}/a2.txt`] as string;
      const trashOfD = trashAnswer['trash-paths'][`${home}/d.txt`] as string;
      await gw.ok('alice', 'POST', '/secured/filesystem/restore', { json: { paths: [trashOfA2] } });
      const restored = await arrival(gw, 'alice', (n) => n.payload.action === 'restore');
      assert.deepEqual(restored.payload.paths, [`${home}/a2.txt`]);
      assert.equal(restored.subject, 'a2.txt restored');

      // Deleting what is already in the trash deletes it for good.
      await gw.ok('alice', 'POST', '/secured/filesystem/delete', { json: { paths: [trashOfD] } });
      const deleted = await arrival(gw, 'alice', (n) => n.payload.action === 'delete');
      assert.deepEqual(deleted.payload.paths, [trashOfD]);

      await gw.ok('alice', 'POST', '/secured/filesystem/delete', {
        json: { paths: [`${home}/a2.txt`] },
      });
      await eventually(
        async () =>
          (await messagesOf(gw, 'alice')).filter((n) => n.payload.action === 'trash').length ===
            2 || undefined,
        10_000,
        'the second trash notification',
      );
      await gw.ok('alice', 'DELETE', '/secured/filesystem/trash');
      const emptied = await arrival(gw, 'alice', (n) => n.payload.action === 'empty_trash');
      assert.equal(emptied.payload.count, 1);
      assert.match(emptied.subject, /^Trash emptied/);

      // A failed operation tells nobody anything; other users hear nothing of alice's data.
      const before = (await messagesOf(gw, 'alice')).length;
      assert.equal(
        (
          await gw.call('alice', 'POST', '/secured/filesystem/rename', {
            json: { source: `${home}/missing.txt`, dest: `${home}/x.txt` },
          })
        ).status >= 400,
        true,
      );
      assert.equal((await messagesOf(gw, 'alice')).length, before);
      assert.deepEqual(
        (await messagesOf(gw, 'bob')).filter((n) => n.payload.user === 'alice'),
        [],
      );
    });

    test('a URL import notifies its user when it finishes and when it fails', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const dest = gw.home('ivan');
      await gw.ok('ivan', 'GET', '/secured/bootstrap');
      await gw.ok('ivan', 'POST', '/secured/fileio/urlupload', {
        json: { dest, address: `${sourceUrl()}/words.txt` },
      });
      const done = await arrival(gw, 'ivan', (n) => n.payload.action === 'url_import');
      assert.equal(done.type, 'data');
      assert.equal(done.subject, 'words.txt imported');
      assert.equal(done.payload.path, `${dest}/words.txt`);
      assert.equal(done.payload.error, undefined);
      // The import ran as an analysis of the URL import app, on the apps service's executor. Its
      // notification goes out before the executor records the step's end: the status follows.
      const imports = await eventually(
        async () => {
          const listed = (await gw.ok('ivan', 'GET', '/analyses')).analyses;
          const ended = (analysis: any) =>
            ['Completed', 'Failed', 'Canceled'].includes(analysis.status);
          return listed.length > 0 && listed.every(ended) && listed;
        },
        10_000,
        'the URL import analysis to finish',
      );
      assert.deepEqual(
        imports.map((analysis: any) => [
          analysis.app_name,
          analysis.name,
          analysis.status,
          analysis.resultfolderid,
        ]),
        [['URL import', 'URL import of words.txt', 'Completed', dest]],
      );

      await gw.ok('ivan', 'POST', '/secured/fileio/urlupload', {
        json: { dest, address: `${sourceUrl()}/gone.txt` },
      });
      const failed = await arrival(
        gw,
        'ivan',
        (n) => n.payload.action === 'url_import' && n.payload.error !== undefined,
      );
      assert.equal(failed.subject, 'URL import of gone.txt failed');
      assert.equal(
        (
          await gw.call('ivan', 'POST', '/secured/filesystem/stat', {
            json: { paths: [`${dest}/gone.txt`] },
          })
        ).body?.error_code,
        'ERR_DOES_NOT_EXIST',
      );
    });

    test('sharing and unsharing notify the sharer and each sharee', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const home = gw.home('sam');
      await gw.upload('sam', home, 'report.txt', 'shared words');
      await gw.ok('sam', 'POST', '/secured/share', {
        json: {
          sharing: [{ user: 'tina', paths: [{ path: `${home}/report.txt`, permission: 'read' }] }],
        },
      });
      const toTina = await arrival(gw, 'tina', (n) => n.payload.action === 'share');
      assert.equal(toTina.subject, 'sam shared report.txt with you');
      assert.deepEqual(toTina.payload.paths, [`${home}/report.txt`]);
      const toSam = await arrival(gw, 'sam', (n) => n.payload.action === 'share');
      assert.equal(toSam.subject, 'report.txt shared with tina');

      await gw.ok('sam', 'POST', '/secured/unshare', {
        json: { unshare: [{ user: 'tina', paths: [`${home}/report.txt`] }] },
      });
      const unshared = await arrival(gw, 'tina', (n) => n.payload.action === 'unshare');
      assert.equal(unshared.subject, 'sam stopped sharing report.txt with you');
      await arrival(gw, 'sam', (n) => n.payload.action === 'unshare');

      // A share that failed for every path (not sam's file) notifies nobody.
      await gw.ok('sam', 'POST', '/secured/share', {
        json: {
          sharing: [
            { user: 'tina', paths: [{ path: `${gw.home('tina')}/nothing`, permission: 'read' }] },
          ],
        },
      });
      await gw.ok('sam', 'POST', '/secured/share', {
        json: {
          sharing: [{ user: 'tina', paths: [{ path: `${home}/report.txt`, permission: 'write' }] }],
        },
      });
      await eventually(
        async () =>
          (await messagesOf(gw, 'tina')).filter((n) => n.payload.action === 'share').length === 2 ||
          undefined,
        10_000,
        'the second share',
      );
      const shares = (await messagesOf(gw, 'tina')).filter((n) => n.payload.action === 'share');
      assert.deepEqual(
        shares.map((n) => n.payload.paths),
        [[`${home}/report.txt`], [`${home}/report.txt`]],
      );
    });

    test('job status changes arrive as analysis notifications with the spec payload, in order', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const { forwarder } = gw.running.gateway;
      const start = Date.now();
      const job = {
        id: '7f3a0c1e-9d51-4f3e-8a53-2a4b0e7f6c11',
        name: 'word count run',
        user: 'uma',
        startDate: start,
        resultFolder: `${gw.home('uma')}/analyses/word-count-run`,
        appName: 'Word count',
      };
      for (const [status, endDate] of [
        ['Submitted'],
        ['Running'],
        ['Completed', start + 5_000],
      ] as const) {
        assert.equal(
          await sendNotification(
            forwarder,
            jobStatusNotification({ ...job, status, endDate }),
            gw.running.gateway.app.log,
          ),
          true,
        );
      }
      const listed = (
        await gw.ok('uma', 'GET', '/secured/notifications/messages?filter=analysis&sortDir=asc')
      ).messages as Notification[];
      assert.deepEqual(
        listed.map((n) => n.payload.status),
        ['Submitted', 'Running', 'Completed'],
      );
      const completed = listed[2]!;
      assert.equal(completed.type, 'analysis');
      assert.equal(completed.subject, 'word count run completed');
      assert.equal(completed.outputDir, job.resultFolder);
      assert.deepEqual(
        Object.fromEntries(
          Object.entries(completed.payload).filter(([key]) => key !== 'app_description'),
        ),
        {
          action: 'job_status_change',
          'analysis-details': 'Word count',
          analysis_id: job.id,
          analysis_name: job.name,
          description: '',
          enddate: start + 5_000,
          id: job.id,
          name: job.name,
          resultfolderid: job.resultFolder,
          startdate: start,
          status: 'Completed',
          user: 'uma',
        },
      );
      // A string of ms: the web UI slices it (sonora src/components/notifications/NotificationsTab.js).
      assert.match(completed.message.timestamp, /^[0-9]+$/);
      // The embedded apps service has no analyses yet: the notification is listed intact.
      assert.equal(completed.payload.app_description, undefined);
    });

    test('the stream pushes new notifications and count changes to their user only', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const url = `${gw.url}/secured/notifications/stream`;
      const unauthenticated = await fetch(url);
      assert.equal(unauthenticated.status, 401);
      await unauthenticated.body?.cancel();

      const vera = await openEventStream(url, await gw.authHeaders('vera'));
      const walt = await openEventStream(url, await gw.authHeaders('walt'));
      const streams: EventStreamClient[] = [vera, walt];
      try {
        assert.equal(vera.status, 200);
        assert.match(vera.headers.get('content-type') ?? '', /^text\/event-stream/);
        const opening = await vera.next((event) => event.event === 'counts');
        const counted = await gw.ok('vera', 'GET', '/secured/notifications/count-messages');
        assert.deepEqual(opening.data, { ...counted, 'user-unseen': 0 });

        // Created after the stream opened, by a data operation.
        await gw.upload('vera', gw.home('vera'), 'notes.txt', 'n');
        await gw.ok('vera', 'POST', '/secured/filesystem/rename', {
          json: { source: `${gw.home('vera')}/notes.txt`, dest: `${gw.home('vera')}/notes-2.txt` },
        });
        const pushed = await vera.next((event) => event.event === 'notification');
        assert.equal(pushed.data.message.payload.action, 'rename');
        assert.equal(pushed.id, pushed.data.message.message.id);
        assert.equal(pushed.data.total, 1);
        const [listed] = await messagesOf(gw, 'vera');
        assert.deepEqual(pushed.data.message, listed);
        await vera.next((event) => event.event === 'counts' && event.data['user-unseen'] === 1);

        await gw.ok('vera', 'POST', '/secured/notifications/seen', {
          json: { uuids: [pushed.id] },
        });
        await vera.next(
          (event) =>
            event.event === 'counts' &&
            event.data['user-unseen'] === 0 &&
            event.data['user-total'] === 1,
        );

        // A system message changes everyone's counts.
        const created = await gw.ok(admin, 'PUT', '/admin/notifications/system', {
          json: {
            type: 'announcement',
            message: 'Maintenance tonight',
            deactivation_date: Date.now() + 3_600_000,
          },
        });
        await vera.next((event) => event.event === 'counts' && event.data['system-total'] >= 1);
        await walt.next((event) => event.event === 'counts' && event.data['system-total'] >= 1);
        await gw.ok(
          admin,
          'DELETE',
          `/admin/notifications/system/${created['system-notification'].uuid}`,
        );

        await eventually(() => vera.comments > 0 || undefined, 5_000, 'a heartbeat');
        assert.deepEqual(
          walt.events.filter((event) => event.event === 'notification'),
          [],
        );

        // Reconnecting with the last id seen replays what was missed, oldest first.
        await gw.ok('vera', 'POST', '/secured/filesystem/rename', {
          json: {
            source: `${gw.home('vera')}/notes-2.txt`,
            dest: `${gw.home('vera')}/notes-3.txt`,
          },
        });
        await vera.next((event) => event.event === 'notification' && event.id !== pushed.id);
        vera.close();
        await gw.ok('vera', 'POST', '/secured/filesystem/rename', {
          json: {
            source: `${gw.home('vera')}/notes-3.txt`,
            dest: `${gw.home('vera')}/notes-4.txt`,
          },
        });
        await eventually(
          async () => (await messagesOf(gw, 'vera')).length === 3 || undefined,
          10_000,
          'the third notification',
        );
        const again = await openEventStream(url, {
          ...(await gw.authHeaders('vera')),
          'last-event-id': pushed.id!,
        });
        streams.push(again);
        const replayed = await again.next((event) => event.event === 'counts');
        const replays = again.events
          .slice(0, again.events.indexOf(replayed))
          .filter((event) => event.event === 'notification');
        assert.deepEqual(
          replays.map((event) => event.data.message.payload.dest),
          [`${gw.home('vera')}/notes-3.txt`, `${gw.home('vera')}/notes-4.txt`],
        );
      } finally {
        for (const stream of streams) stream.close();
      }
    });
  });
}

describe('notification streams and gateway shutdown', () => {
  test('closing the gateway ends its open streams instead of waiting for them', async () => {
    const gw = (await startMetadataGateway())!;
    const stream = await openEventStream(
      `${gw.url}/secured/notifications/stream`,
      await gw.authHeaders('xena'),
    );
    await stream.next((event) => event.event === 'counts');
    await gw.close();
    await stream.ended;
  });
});

describe('streams per user', () => {
  test('a user holds at most ten streams at once; closing one makes room', async () => {
    const gw = (await startMetadataGateway())!;
    const url = `${gw.url}/secured/notifications/stream`;
    const headers = await gw.authHeaders('quinn');
    const streams: EventStreamClient[] = [];
    try {
      for (let i = 0; i < 10; i++) {
        const stream = await openEventStream(url, headers);
        streams.push(stream);
        await stream.next((event) => event.event === 'counts');
      }
      const refused = await fetch(url, { headers });
      assert.equal(refused.status, 429);
      assert.equal(
        ((await refused.json()) as { error_code: string }).error_code,
        'ERR_TOO_MANY_STREAMS',
      );
      // Another user is not affected.
      const other = await openEventStream(url, await gw.authHeaders('rosa'));
      streams.push(other);
      assert.equal(other.status, 200);

      streams[0]!.close();
      await streams[0]!.ended;
      const again = (await eventually(
        async () => {
          const stream = await openEventStream(url, headers);
          if (stream.status === 200) return stream;
          stream.close();
          return undefined;
        },
        5_000,
        'room for another stream',
      )) as EventStreamClient;
      streams.push(again);
      await again.next((event) => event.event === 'counts');
    } finally {
      for (const stream of streams) stream.close();
      await gw.close();
    }
  });
});

describe('several gateways on one PostgreSQL database', () => {
  test('a stream served by one gateway hears notifications recorded through another', async (t) => {
    const databaseUrl = requiredInCi('DATABASE_URL');
    if (!databaseUrl) return t.skip('DATABASE_URL is not set');
    const schema = await pgSchemaUrl(databaseUrl);
    // Everything started is closed in `finally`, even when a later start fails (an open gateway would hold the test process).
    let first: Awaited<ReturnType<typeof startMetadataGateway>>;
    let second: Awaited<ReturnType<typeof startMetadataGateway>>;
    let stream: Awaited<ReturnType<typeof openEventStream>> | undefined;
    try {
      first = (await startMetadataGateway({ env: { DATABASE_URL: schema.url } }))!;
      second = (await startMetadataGateway({ env: { DATABASE_URL: schema.url } }))!;
      stream = await openEventStream(
        `${first.url}/secured/notifications/stream`,
        await first.authHeaders('yara'),
      );
      await stream.next((event) => event.event === 'counts');
      const sent = await fetch(`${second.url}/send-notification`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'data', user: 'yara', subject: 'through the second gateway' }),
      });
      assert.equal(sent.status, 200);
      const pushed = await stream.next((event) => event.event === 'notification');
      assert.equal(pushed.data.message.subject, 'through the second gateway');
      // Both gateways read the same notifications.
      assert.deepEqual(
        (await messagesOf(first, 'yara')).map((n) => n.message.id),
        [pushed.id],
      );
    } finally {
      stream?.close();
      await first?.close();
      await second?.close();
      await schema.drop();
    }
  });
});

describe('an agent that counts only user notifications (the reference v1)', () => {
  test('count-messages adds the system counts from its system-message listings', async () => {
    const agent = await startBackend((request, response) => {
      const answers: Record<string, unknown> = {
        '/count-messages': { 'user-total': 3 },
        '/system/messages': { 'system-messages': [{ uuid: 'a' }, { uuid: 'b' }] },
        '/system/new-messages': { 'system-messages': [{ uuid: 'a' }] },
        '/system/unseen-messages': { 'system-messages': [{ uuid: 'a' }, { uuid: 'b' }] },
      };
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(answers[request.path] ?? {}));
    });
    const gw = (await startMetadataGateway({ env: { NOTIFICATION_AGENT_URL: agent.url } }))!;
    try {
      const counts = await gw.ok(
        'zoe',
        'GET',
        '/secured/notifications/count-messages?seen=false&filter=data',
      );
      assert.deepEqual(counts, {
        'user-total': 3,
        'system-total': 2,
        'system-total-new': 1,
        'system-total-unseen': 2,
      });
      const counted = agent.requests.find((request) => request.path === '/count-messages')!;
      assert.deepEqual(
        [counted.query.get('user'), counted.query.get('seen'), counted.query.get('filter')],
        ['zoe', 'false', 'data'],
      );
    } finally {
      await gw.close();
      await agent.close();
    }
  });
});

describe('the PostgreSQL change channel', () => {
  test('a stream keeps receiving after its LISTEN connection is cut', async (t) => {
    const databaseUrl = requiredInCi('DATABASE_URL');
    if (!databaseUrl) return t.skip('DATABASE_URL is not set');
    const schema = await pgSchemaUrl(databaseUrl);
    const gw = (await startMetadataGateway({ env: { DATABASE_URL: schema.url } }))!;
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    const stream = await openEventStream(
      `${gw.url}/secured/notifications/stream`,
      await gw.authHeaders('pia'),
    );
    const send = (subject: string) =>
      fetch(`${gw.url}/send-notification`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'data', user: 'pia', subject }),
      });
    try {
      await stream.next((event) => event.event === 'counts');
      const cut = await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where query = $1`,
        [`listen "notification_events:${schema.schema}"`],
      );
      assert.equal(cut.rowCount, 1);
      // Messages sent while it reconnects are missed (a client catches up with Last-Event-ID); later ones arrive.
      let sent = 0;
      const arrived = await eventually(
        async () => {
          await send(`after the cut ${++sent}`);
          return stream.events.find((event) => event.event === 'notification');
        },
        10_000,
        'a notification after the LISTEN connection came back',
      );
      assert.match(arrived!.data.message.subject, /^after the cut/);
      const relistening = await admin.query(
        `select count(*)::int as count from pg_stat_activity where query = $1`,
        [`listen "notification_events:${schema.schema}"`],
      );
      assert.equal(relistening.rows[0].count, 1);
    } finally {
      stream.close();
      await admin.end();
      await gw.close();
      await schema.drop();
    }
  });
});

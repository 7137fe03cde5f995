// Which gateway follows each analysis (job-leases.ts, migration 038), on SQLite and PostgreSQL: a
// job whose lease lapsed (its gateway died) is taken over and ended Failed exactly once, with its
// history and one notification, while a job whose holder still renews it is left alone; a running
// job's lease is renewed while it runs and let go when its gateway stops, so the next gateway
// takes it over at once; a runner never takes over a job it holds itself (a late renewal), which
// would follow it twice; and on PostgreSQL, of two gateways sharing the database, exactly one
// takes over each lapsed job.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../../src/backends/apps/catalog/built-in.ts';
import { lapsedLeases } from '../../../../src/backends/apps/jobs/job-leases.ts';
import { eventually } from '../../../support/fileio.ts';
import { startMetadataGateway, type MetadataGateway } from '../../../support/metadata-gateway.ts';
import { engineDatabase, engines, skipWithout } from '../../../support/postgres.ts';

const [urlImport] = builtInApps as [(typeof builtInApps)[0]];
/** The config key of the URL import's parameter `name`. */
const key = (name: string) => {
  const parameter = urlImport.definition.groups
    .flatMap((group) => group.parameters)
    .find((candidate) => candidate.name === name)!;
  return `${urlImport.definition.steps[0]!.id}_${parameter.id}`;
};
const leaseEnv = { JOB_LEASE_SECONDS: '1', URL_IMPORT_ALLOW_PRIVATE_NETWORKS: 'true' };

/** Records an active analysis of `user` as another gateway would have left it. */
async function recordActive(
  gw: MetadataGateway,
  user: string,
  lease: { holder: string | null; expiresAt: number | null },
): Promise<string> {
  const id = randomUUID();
  await gw.running.gateway.store.db
    .insertInto('analyses')
    .values({
      id,
      name: `left by ${lease.holder ?? 'nobody'}`,
      username: user,
      app_id: urlImport.id,
      app_version_id: urlImport.versionId,
      system_id: 'de',
      app_name: urlImport.name,
      result_folder: gw.home(user),
      status: 'Running',
      start_date: Date.now(),
      submission: '{}',
      lease_holder: lease.holder,
      lease_expires_at: lease.expiresAt,
    })
    .execute();
  return id;
}

/** The statuses an analysis's history recorded, in order. */
async function statusesOf(gw: MetadataGateway, id: string): Promise<string[]> {
  const rows = await gw.running.gateway.store.db
    .selectFrom('analysis_status_updates')
    .select('status')
    .where('analysis_id', '=', id)
    .where('step_number', 'is', null)
    .orderBy('sent_on')
    .execute();
  return rows.map((row) => row.status);
}

/** The job_status_change notifications `user` got about analysis `id`. */
async function notificationsAbout(gw: MetadataGateway, user: string, id: string) {
  const { messages } = await gw.ok(
    user,
    'GET',
    '/secured/notifications/messages?filter=analysis&limit=100',
  );
  return (messages as any[]).filter((message) => message.payload.id === id);
}

const leaseOf = async (gw: MetadataGateway, id: string) =>
  gw.running.gateway.store.db
    .selectFrom('analyses')
    .select(['status', 'lease_holder', 'lease_expires_at'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

for (const engine of engines) {
  describe(`analyses' leases (${engine})`, { skip: skipWithout(engine) }, () => {
    let database: Awaited<ReturnType<typeof engineDatabase>>;
    /** The gateways' data folder (and SQLite store), shared by the gateways one after another. */
    let env: Record<string, string>;
    let gw: MetadataGateway;
    let source: Server;
    const pending: (() => void)[] = [];
    before(async () => {
      source = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.write('first part ');
        pending.push(() => response.end('and the rest'));
      });
      await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve));
      database = await engineDatabase(engine);
      env = {
        ...leaseEnv,
        ...database.env,
        GATEWAY_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'job-leases-')),
      };
      gw = (await startMetadataGateway({ env }))!;
    });
    after(async () => {
      pending.splice(0).forEach((end) => end());
      await gw?.close();
      source?.close();
      await database?.drop();
      if (env) rmSync(env.GATEWAY_DATA_DIR!, { recursive: true, force: true });
    });

    test('a lapsed job is ended Failed once, with history and one notification; a renewed one is left alone', async () => {
      const lapsed = await recordActive(gw, 'lena', { holder: 'gone', expiresAt: Date.now() - 1 });
      const unleased = await recordActive(gw, 'lena', { holder: null, expiresAt: null });
      const held = await recordActive(gw, 'lena', {
        holder: 'alive',
        expiresAt: Date.now() + 3_600_000,
      });
      for (const id of [lapsed, unleased])
        await eventually(
          async () => (await leaseOf(gw, id)).status === 'Failed',
          10_000,
          `${id} to be taken over`,
        );
      for (const id of [lapsed, unleased]) {
        assert.deepEqual(await statusesOf(gw, id), ['Failed']);
        const notices = (await eventually(
          async () => {
            const found = await notificationsAbout(gw, 'lena', id);
            return found.length ? found : undefined;
          },
          10_000,
          'the notification',
        ))!;
        assert.deepEqual(
          notices.map((notice) => notice.payload.status),
          ['Failed'],
        );
        assert.match(notices[0].message.text, /stopped while the job ran/);
      }
      // The round that took the others over saw this one held, and left it.
      const still = await leaseOf(gw, held);
      assert.equal(still.status, 'Running');
      assert.equal(still.lease_holder, 'alive');
      assert.deepEqual(await statusesOf(gw, held), []);
    });

    test('a runner never takes over a job it holds itself, however late its renewal: it would follow the job twice', async () => {
      // In a transaction rolled back at the end: the gateway's own runner never sees the job.
      const rolledBack = new Error('rolled back');
      await gw.running.gateway.store.db
        .transaction()
        .execute(async (trx) => {
          const late = randomUUID();
          await trx
            .insertInto('analyses')
            .values({
              id: late,
              name: 'renewed late',
              username: 'lena',
              app_id: urlImport.id,
              app_version_id: urlImport.versionId,
              system_id: 'de',
              app_name: urlImport.name,
              result_folder: gw.home('lena'),
              status: 'Running',
              start_date: Date.now(),
              submission: '{}',
              lease_holder: 'late-runner',
              lease_expires_at: 1,
            })
            .execute();
          const seenBy = async (holder: string, everyOther: boolean) =>
            (await lapsedLeases(trx, holder, Date.now(), everyOther)).map((seen) => seen.id);
          assert.ok(!(await seenBy('late-runner', false)).includes(late));
          assert.ok(!(await seenBy('late-runner', true)).includes(late));
          assert.ok((await seenBy('another-runner', false)).includes(late));
          throw rolledBack;
        })
        .catch((error: unknown) => {
          if (error !== rolledBack) throw error;
        });
    });

    test('a running job is renewed while it runs and let go when its gateway stops; the next gateway takes it over at once', async () => {
      const port = (source.address() as AddressInfo).port;
      const launched = await gw.ok('mira', 'POST', '/analyses', {
        json: {
          system_id: 'de',
          app_id: urlImport.id,
          name: 'held open',
          output_dir: gw.home('mira'),
          config: { [key('address')]: `http://127.0.0.1:${port}/slow.txt` },
        },
      });
      const first = (await eventually(
        async () => {
          const lease = await leaseOf(gw, launched.id);
          return lease.status === 'Running' ? lease : undefined;
        },
        10_000,
        'the job to run',
      ))!;
      assert.ok(first.lease_holder, 'held by the gateway that runs it');
      await eventually(
        async () => (await leaseOf(gw, launched.id)).lease_expires_at! > first.lease_expires_at!,
        10_000,
        'the lease to be renewed',
      );
      await gw.close();
      const second = (await startMetadataGateway({ env }))!;
      gw = second;
      const ended = (await eventually(
        async () => {
          const lease = await leaseOf(second, launched.id);
          return lease.status === 'Failed' ? lease : undefined;
        },
        10_000,
        'the next gateway to take it over',
      ))!;
      assert.notEqual(ended.lease_holder, first.lease_holder);
      assert.deepEqual(await statusesOf(second, launched.id), ['Submitted', 'Running', 'Failed']);
    });

    test(
      'two gateways on one database: each lapsed job is taken over by exactly one',
      {
        skip: engine === 'sqlite' ? 'one process owns a SQLite store' : false,
      },
      async () => {
        const other = (await startMetadataGateway({ env }))!;
        try {
          const ids: string[] = [];
          for (let n = 0; n < 12; n++)
            ids.push(await recordActive(gw, 'nico', { holder: 'gone', expiresAt: Date.now() - 1 }));
          for (const id of ids)
            await eventually(
              async () => (await leaseOf(gw, id)).status === 'Failed',
              10_000,
              `${id} to be taken over`,
            );
          for (const id of ids) assert.deepEqual(await statusesOf(gw, id), ['Failed']);
          await eventually(
            async () =>
              (await Promise.all(ids.map((id) => notificationsAbout(gw, 'nico', id)))).every(
                (found) => found.length === 1,
              ),
            10_000,
            'one notification for each',
          );
          const holders = new Set(
            await Promise.all(ids.map(async (id) => (await leaseOf(gw, id)).lease_holder)),
          );
          assert.ok(!holders.has('gone'));
        } finally {
          await other.close();
        }
      },
    );
  });
}

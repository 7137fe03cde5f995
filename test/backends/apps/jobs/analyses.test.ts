// Analyses on the embedded executor, through the gateway — each built-in app from submission to
// outputs and notifications, parameter validation, listing filters, stop, the per-user job limit,
// and an app whose tool names no program that could run failing cleanly.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../../src/backends/apps/catalog/built-in.ts';
import { eventually } from '../../../support/fileio.ts';
import { requiredInCi } from '../../../support/gateway.ts';
import { startMetadataGateway, type MetadataGateway } from '../../../support/metadata-gateway.ts';

const [urlImport, wordCount, concatenate, checksum] = builtInApps as [
  (typeof builtInApps)[0],
  (typeof builtInApps)[0],
  (typeof builtInApps)[0],
  (typeof builtInApps)[0],
];
/** The config key of a built-in app's parameter, by its name. */
const key = (app: (typeof builtInApps)[0], name: string) => {
  const parameter = app.definition.groups
    .flatMap((group) => group.parameters)
    .find((candidate) => candidate.name === name)!;
  return `${app.definition.steps[0]!.id}_${parameter.id}`;
};

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`analyses (${engine})`, () => {
    let gw: MetadataGateway;
    let source: Server;
    const pending: (() => void)[] = [];
    const release = () => pending.splice(0).forEach((end) => end());
    before(async () => {
      source = createServer((request, response) => {
        if (request.url === '/slow.txt') {
          response.writeHead(200, { 'content-type': 'text/plain' });
          response.write('first part ');
          pending.push(() => response.end('and the rest'));
          return;
        }
        if (request.url === '/page.txt')
          return void response
            .writeHead(200, { 'content-type': 'text/plain' })
            .end('imported by the executor\n');
        response.writeHead(404).end();
      });
      await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve));
      gw = (await startMetadataGateway({
        engine,
        env: { URL_IMPORT_ALLOW_PRIVATE_NETWORKS: 'true', MAX_CONCURRENT_JOBS: '2' },
      }))!;
    });
    after(async () => {
      release();
      await gw?.close();
      source.close();
    });
    const skip = () => !gw && engine === 'postgres' && !requiredInCi('DATABASE_URL');
    const sourceUrl = (path: string) =>
      `http://127.0.0.1:${(source.address() as AddressInfo).port}${path}`;

    const launch = (
      user: string,
      app: (typeof builtInApps)[0],
      config: Record<string, unknown>,
      extra: Record<string, unknown> = {},
    ) =>
      gw.call(user, 'POST', '/analyses', {
        json: {
          system_id: 'de',
          app_id: app.id,
          name: `${app.name} run`,
          output_dir: gw.home(user),
          config,
          ...extra,
        },
      });
    const finished = async (user: string, id: string) =>
      eventually(
        async () => {
          const listed = (
            await gw.ok(
              user,
              'GET',
              `/analyses?filter=${encodeURIComponent(JSON.stringify([{ field: 'id', value: id }]))}`,
            )
          ).analyses[0];
          return ['Completed', 'Failed', 'Canceled'].includes(listed?.status) ? listed : undefined;
        },
        10_000,
        `analysis ${id} to end`,
      );
    const read = async (user: string, path: string) =>
      (await gw.call(user, 'GET', `/secured/fileio/download?path=${encodeURIComponent(path)}`))
        .text;

    test('word count: from submission to output, history and three notifications', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const text = 'one two  three\nfour\tfive\n\nsix';
      await gw.upload('alice', gw.home('alice'), 'words.txt', text);
      const answer = await launch('alice', wordCount, {
        [key(wordCount, 'input')]: `${gw.home('alice')}/words.txt`,
      });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.status, 'Submitted');
      const done = await finished('alice', answer.body.id);
      assert.equal(done.status, 'Completed');
      assert.equal(done.app_description, wordCount.description);
      assert.notEqual(done.enddate, '0');
      const words = text.split(/\s+/).filter(Boolean).length;
      const lines = text.split('\n').length - 1;
      assert.equal(
        await read('alice', `${done.resultfolderid}/words.txt.wc.txt`),
        `${lines} ${words} ${Buffer.byteLength(text)} words.txt\n`,
      );

      const history = await gw.ok('alice', 'GET', `/analyses/${answer.body.id}/history`);
      assert.deepEqual(
        history.steps[0].updates.map((entry: any) => entry.status),
        ['Submitted', 'Running', 'Completed'],
      );
      const notes = await eventually(
        async () => {
          const listed = (
            await gw.ok(
              'alice',
              'GET',
              '/secured/notifications/messages?filter=analysis&sortDir=asc',
            )
          ).messages.filter((n: any) => n.payload.id === answer.body.id);
          return listed.length === 3 ? listed : undefined;
        },
        10_000,
        'three job notifications',
      );
      assert.deepEqual(
        notes.map((n: any) => n.payload.status),
        ['Submitted', 'Running', 'Completed'],
      );
      assert.equal(notes[2].payload.action, 'job_status_change');
      assert.equal(
        notes[2].payload.app_description,
        wordCount.description,
        'the listing adds the app description',
      );
      assert.equal(notes[2].outputDir, done.resultfolderid);

      const parameters = await gw.ok('alice', 'GET', `/analyses/${answer.body.id}/parameters`);
      assert.deepEqual(
        parameters.parameters.map((parameter: any) => parameter.param_value.value),
        [`${gw.home('alice')}/words.txt`],
      );
      const relaunch = await gw.ok('alice', 'GET', `/analyses/${answer.body.id}/relaunch-info`);
      // The file field's starting value is `{path}`, as the web UI reads it (relaunch-form.test.ts).
      assert.deepEqual(relaunch.groups[0].parameters[0].value, {
        path: `${gw.home('alice')}/words.txt`,
      });

      // Job statistics count the app's analyses as recorded.
      const recorded = await gw.running.gateway.store.db
        .selectFrom('analyses')
        .select(['status'])
        .where('app_id', '=', wordCount.id)
        .execute();
      const adminListing = await gw.ok('root', 'GET', '/admin/apps?search=word%20count');
      assert.equal(adminListing.apps[0].job_stats.job_count, recorded.length);
      assert.equal(
        adminListing.apps[0].job_stats.job_count_completed,
        recorded.filter((row) => row.status === 'Completed').length,
      );
      assert.match(adminListing.apps[0].job_stats.job_last_completed, /^\d{4}-/);
      const details = await gw.ok('alice', 'GET', `/apps/de/${wordCount.id}/details`);
      assert.equal(
        details.job_stats.job_count_completed,
        adminListing.apps[0].job_stats.job_count_completed,
      );
    });

    test('concatenate, checksum (md5 and sha256) and URL import write their outputs', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const home = gw.home('bob');
      await gw.upload('bob', home, 'a.txt', 'alpha\n');
      await gw.upload('bob', home, 'b.txt', 'beta\n');
      const joined = await finished(
        'bob',
        (
          await launch('bob', concatenate, {
            [key(concatenate, 'inputs')]: [`${home}/b.txt`, { path: `${home}/a.txt` }],
            [key(concatenate, 'output')]: 'both.txt',
          })
        ).body.id,
      );
      assert.equal(joined.status, 'Completed');
      assert.equal(await read('bob', `${joined.resultfolderid}/both.txt`), 'beta\nalpha\n');

      const checksums: string[] = [];
      for (const algorithm of ['md5', 'sha256']) {
        const summed = await finished(
          'bob',
          (
            await launch(
              'bob',
              checksum,
              {
                [key(checksum, 'input')]: `${home}/a.txt`,
                [key(checksum, 'algorithm')]: algorithm,
              },
              { name: `sum ${algorithm}` },
            )
          ).body.id,
        );
        assert.equal(summed.status, 'Completed');
        checksums.push(summed.id);
        assert.equal(
          await read('bob', `${summed.resultfolderid}/a.txt.${algorithm}`),
          `${createHash(algorithm).update('alpha\n').digest('hex')}  a.txt\n`,
        );
      }

      const imported = await finished(
        'bob',
        (
          await launch(
            'bob',
            urlImport,
            { [key(urlImport, 'address')]: sourceUrl('/page.txt') },
            { create_output_subdir: false },
          )
        ).body.id,
      );
      assert.equal(imported.status, 'Completed');
      assert.equal(imported.resultfolderid, home);
      assert.equal(await read('bob', `${home}/page.txt`), 'imported by the executor\n');

      // Each launch was announced to its user as it moved: Submitted, Running, Completed.
      const statuses = async (id: string) =>
        eventually(
          async () => {
            const seen = (
              await gw.ok(
                'bob',
                'GET',
                '/secured/notifications/messages?filter=analysis&sortDir=asc',
              )
            ).messages
              .filter((n: any) => n.payload.id === id)
              .map((n: any) => n.payload.status);
            return seen.length === 3 ? seen : undefined;
          },
          10_000,
          `the notifications of ${id}`,
        );
      for (const id of [joined.id, ...checksums, imported.id])
        assert.deepEqual(await statuses(id), ['Submitted', 'Running', 'Completed']);
      const importNote = (
        await gw.ok('bob', 'GET', '/secured/notifications/messages?filter=data')
      ).messages.find((n: any) => n.payload.action === 'url_import');
      assert.equal(importNote.payload.path, `${home}/page.txt`);

      const missing = await finished(
        'bob',
        (
          await launch(
            'bob',
            urlImport,
            { [key(urlImport, 'address')]: sourceUrl('/gone.txt') },
            { name: 'gone', create_output_subdir: false },
          )
        ).body.id,
      );
      assert.equal(missing.status, 'Failed');
      const history = await gw.ok('bob', 'GET', `/analyses/${missing.id}/history`);
      assert.match(history.steps[0].updates.at(-1).message, /HTTP 404/);
    });

    test('parameters are checked before anything runs: missing, unknown and mistyped values are 400', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const before = (await gw.ok('carol', 'GET', '/analyses')).total;
      const missing = await launch('carol', wordCount, {});
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      assert.deepEqual(missing.body.missing, [{ id: key(wordCount, 'input'), label: 'Text file' }]);
      assert.match(missing.body.reason, /Text file/);
      const unknown = await launch('carol', wordCount, {
        [key(wordCount, 'input')]: '/x',
        nope_nope: 1,
      });
      assert.deepEqual(unknown.body.unknown, ['nope_nope']);
      const mistyped = await launch('carol', checksum, {
        [key(checksum, 'input')]: '/x',
        [key(checksum, 'algorithm')]: 'crc32',
      });
      assert.equal(mistyped.status, 400);
      assert.equal(mistyped.body.invalid[0].label, 'Algorithm');
      assert.equal(
        (await launch('carol', wordCount, { [key(wordCount, 'input')]: '/x' }, { name: '' }))
          .status,
        400,
      );
      assert.equal(
        (
          await gw.call('carol', 'POST', '/analyses', {
            json: { app_id: randomUUID(), name: 'x', output_dir: '/x' },
          })
        ).status,
        404,
      );
      assert.equal(
        (await gw.ok('carol', 'GET', '/analyses')).total,
        before,
        'nothing was recorded',
      );
    });

    test('an unreadable input and a tool without a program fail the job with the reason', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      await gw.upload('dora', gw.home('dora'), 'secret.txt', 'mine');
      const stolen = await finished(
        'ed',
        (
          await launch('ed', wordCount, {
            [key(wordCount, 'input')]: `${gw.home('dora')}/secret.txt`,
          })
        ).body.id,
      );
      assert.equal(stolen.status, 'Failed');
      const db = gw.running.gateway.store.db;
      const tool = randomUUID();
      await db
        .insertInto('tools')
        .values({
          id: tool,
          name: 'fastqc',
          type: 'executable',
          executor: null,
          integrator: 'ed',
          created_on: Date.now(),
        })
        .execute();
      const made = await gw.ok('ed', 'POST', '/apps/de', {
        json: { name: 'quality check', tools: [{ id: tool }], groups: [] },
      });
      const failed = await finished(
        'ed',
        (
          await gw.ok('ed', 'POST', '/analyses', {
            json: { app_id: made.id, name: 'qc', output_dir: gw.home('ed'), config: {} },
          })
        ).id,
      );
      assert.equal(failed.status, 'Failed');
      const history = await gw.ok('ed', 'GET', `/analyses/${failed.id}/history`);
      assert.match(
        history.steps[0].updates.at(-1).message,
        /step 1 \(fastqc\) cannot run: its program fastqc is not an absolute path/,
      );
      const note = await eventually(
        async () =>
          (
            await gw.ok('ed', 'GET', '/secured/notifications/messages?filter=analysis')
          ).messages.find((n: any) => n.payload.id === failed.id && n.payload.status === 'Failed'),
        10_000,
        'the failure notification',
      );
      assert.match(note.message.text, /fastqc\) cannot run/);
    });

    test("administrators set and reset one user's concurrent-job limit", async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const route = '/admin/settings/concurrent-job-limits/gus';
      assert.deepEqual(await gw.ok('root', 'GET', route), {
        username: 'gus@localhost',
        concurrent_jobs: 2,
        is_default: true,
      });
      assert.deepEqual(await gw.ok('root', 'PUT', route, { json: { concurrent_jobs: 0 } }), {
        username: 'gus@localhost',
        concurrent_jobs: 0,
        is_default: false,
      });
      const refused = await launch('gus', wordCount, { [key(wordCount, 'input')]: '/nowhere' });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error_code, 'ERR_LIMIT_REACHED');
      assert.equal(refused.body.limit, 0);
      const listed = await gw.ok('root', 'GET', '/admin/settings/concurrent-job-limits');
      assert.deepEqual(
        listed.limits.find((limit: any) => limit.is_default),
        { concurrent_jobs: 2, is_default: true },
      );
      assert.deepEqual(
        listed.limits.find((limit: any) => limit.username === 'gus@localhost'),
        { username: 'gus@localhost', concurrent_jobs: 0, is_default: false },
      );
      assert.equal(
        (await gw.call('gus', 'PUT', route, { json: { concurrent_jobs: 100 } })).status,
        403,
      );
      assert.equal(
        (await gw.call('root', 'PUT', route, { json: { concurrent_jobs: -1 } })).status,
        400,
      );
      assert.deepEqual(await gw.ok('root', 'DELETE', route), {
        username: 'gus@localhost',
        concurrent_jobs: 2,
        is_default: true,
      });
      assert.equal(
        (await launch('gus', wordCount, { [key(wordCount, 'input')]: '/nowhere' })).status,
        200,
      );
    });

    test('the per-user job limit, stop, listing filters, rename and delete', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const slow = (name: string) =>
        launch(
          'fay',
          urlImport,
          {
            [key(urlImport, 'address')]: sourceUrl('/slow.txt'),
            [key(urlImport, 'file-name')]: `${name}.txt`,
          },
          { name, create_output_subdir: false },
        );
      const first = await slow('first');
      const second = await slow('second');
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      const third = await slow('third');
      assert.equal(third.status, 400, 'MAX_CONCURRENT_JOBS=2');
      assert.equal(third.body.error_code, 'ERR_LIMIT_REACHED');
      assert.equal(
        (
          await gw.ok('ed', 'POST', '/analyses', {
            json: {
              app_id: wordCount.id,
              name: 'other user',
              output_dir: gw.home('ed'),
              config: { [key(wordCount, 'input')]: '/nowhere' },
            },
          })
        ).status,
        'Submitted',
        'the limit is per user',
      );

      const stopped = await gw.ok('fay', 'POST', `/analyses/${first.body.id}/stop`);
      assert.equal(stopped.status, 'Canceled');
      assert.equal(
        (await gw.call('fay', 'POST', `/analyses/${first.body.id}/stop`)).status,
        400,
        'already ended',
      );
      assert.equal((await slow('fourth')).status, 200, 'a stopped job frees its place');

      const byStatus = async (status: string) =>
        (
          await gw.ok(
            'fay',
            'GET',
            `/analyses?filter=${encodeURIComponent(JSON.stringify([{ field: 'status', value: status }]))}`,
          )
        ).analyses
          .map((a: any) => a.name)
          .sort();
      assert.deepEqual(await byStatus('Canceled'), ['first']);
      // One listing, not one per status: a job moving from Submitted to Running between two calls would be missed.
      const active = (await gw.ok('fay', 'GET', '/analyses')).analyses.filter((a: any) =>
        ['Running', 'Submitted'].includes(a.status),
      );
      assert.deepEqual(active.length, 2);
      const stats = await gw.ok('fay', 'GET', '/analyses/stats');
      assert.equal(
        stats['status-count'].reduce((sum: number, entry: any) => sum + entry.count, 0),
        3,
      );
      const named = await gw.ok(
        'fay',
        'GET',
        `/analyses?filter=${encodeURIComponent(JSON.stringify([{ field: 'name', value: 'OUR' }]))}`,
      );
      assert.deepEqual(
        named.analyses.map((a: any) => a.name),
        ['fourth'],
      );
      const sorted = await gw.ok(
        'fay',
        'GET',
        '/analyses?sort-field=name&sort-dir=asc&limit=2&offset=1',
      );
      assert.deepEqual(
        sorted.analyses.map((a: any) => a.name),
        ['fourth', 'second'],
      );
      assert.equal(sorted.total, 3);

      assert.deepEqual(
        await gw.ok('fay', 'PATCH', `/analyses/${first.body.id}`, { json: { name: 'renamed' } }),
        { id: first.body.id, name: 'renamed' },
      );
      assert.equal(
        (await gw.call('fay', 'DELETE', `/analyses/${second.body.id}`)).status,
        400,
        'running jobs are stopped first',
      );
      assert.deepEqual(await gw.ok('fay', 'DELETE', `/analyses/${first.body.id}`), {
        id: first.body.id,
      });
      assert.equal((await gw.call('fay', 'GET', `/analyses/${first.body.id}/history`)).status, 404);
      assert.equal(
        (await gw.call('ed', 'GET', `/analyses/${second.body.id}/history`)).status,
        404,
        "another user's analysis",
      );
      release();
      assert.equal((await finished('fay', second.body.id)).status, 'Completed');
    });
  });
}

describe('analyses cut off by a stop', () => {
  test('on SQLite, a restart marks them Failed (with history and a notification) so they free their place', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'analyses-restart-'));
    try {
      const first = (await startMetadataGateway({ env: { GATEWAY_DATA_DIR: dataDir } }))!;
      const id = randomUUID();
      const now = Date.now();
      await first.running.gateway.store.db
        .insertInto('analyses')
        .values({
          id,
          name: 'cut off',
          username: 'hal',
          app_id: wordCount.id,
          app_version_id: wordCount.versionId,
          system_id: 'de',
          app_name: wordCount.name,
          result_folder: first.home('hal'),
          status: 'Running',
          start_date: now,
          submission: '{}',
        })
        .execute();
      await first.close();
      const second = (await startMetadataGateway({ env: { GATEWAY_DATA_DIR: dataDir } }))!;
      try {
        const history = await eventually(
          async () => {
            const found = await second.ok('hal', 'GET', `/analyses/${id}/history`);
            return found.steps[0].status === 'Failed' ? found : undefined;
          },
          10_000,
          'the cut-off analysis to be marked Failed',
        );
        assert.match(history.steps[0].updates.at(-1).message, /stopped while the job ran/);
        const note = await eventually(
          async () =>
            (
              await second.ok('hal', 'GET', '/secured/notifications/messages?filter=analysis')
            ).messages.find((n: any) => n.payload.id === id),
          10_000,
          'the notification',
        );
        assert.equal(note.payload.status, 'Failed');
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

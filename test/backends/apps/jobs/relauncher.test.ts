// Relaunching analyses (`POST /analyses/relauncher`) and the third-party job API's status callback
// (`POST /callbacks/extapi-job/{job-id}`) on the embedded apps service, through the gateway on each
// engine: one's own analysis launched again with the same app and config and completing; one
// shared with the caller launched as the caller's, its results in the caller's home; unreadable or
// unknown ids, or more than the caller's limit of running jobs, refusing the whole request
// (nothing launched) and bad bodies 400; the callback moving a running analysis, recorded in its
// history and sent to its owner, never moving it back or reopening an ended one; unknown job ids
// and statuses refused.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../../src/backends/apps/catalog/built-in.ts';
import { eventually } from '../../../support/fileio.ts';
import { engines, skipWithout } from '../../../support/postgres.ts';
import { endedAnalysis, listedAnalysis } from '../../../support/analyses.ts';
import { startMetadataGateway, type MetadataGateway } from '../../../support/metadata-gateway.ts';

const [urlImport, wordCount] = builtInApps as [(typeof builtInApps)[0], (typeof builtInApps)[0]];
/** The config key of a built-in app's parameter, by its name. */
const key = (app: (typeof builtInApps)[0], name: string) => {
  const parameter = app.definition.groups
    .flatMap((group) => group.parameters)
    .find((candidate) => candidate.name === name)!;
  return `${app.definition.steps[0]!.id}_${parameter.id}`;
};

for (const engine of engines) {
  describe(
    `relaunching analyses and job callbacks (${engine})`,
    { skip: skipWithout(engine) },
    () => {
      let gw: MetadataGateway;
      let source: Server;
      const pending: (() => void)[] = [];
      before(async () => {
        source = createServer((request, response) => {
          if (request.url === '/slow.txt') {
            response.writeHead(200, { 'content-type': 'text/plain' });
            response.write('first part ');
            pending.push(() => response.end('and the rest'));
            return;
          }
          response.writeHead(404).end();
        });
        await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve));
        gw = (await startMetadataGateway({
          engine,
          env: { URL_IMPORT_ALLOW_PRIVATE_NETWORKS: 'true', MAX_CONCURRENT_JOBS: '2' },
        }))!;
      });
      after(async () => {
        pending.splice(0).forEach((end) => end());
        await gw?.close();
        source.close();
      });

      const listed = (user: string, id: string) => listedAnalysis(gw, user, id);
      const finished = (user: string, id: string) => endedAnalysis(gw, user, id, 10_000);
      const countOf = async (user: string) => (await gw.ok(user, 'GET', '/analyses')).total;
      const relaunch = (user: string, analyses: unknown) =>
        gw.call(user, 'POST', '/analyses/relauncher', { json: { analyses } });
      /** A finished word count of `user` on a file of their own. */
      const countedWords = async (user: string, file = 'words.txt') => {
        await gw.upload(user, gw.home(user), file, 'one two three');
        const launched = await gw.ok(user, 'POST', '/analyses', {
          json: {
            system_id: 'de',
            app_id: wordCount.id,
            name: `${user} counts`,
            output_dir: gw.home(user),
            config: { [key(wordCount, 'input')]: `${gw.home(user)}/${file}` },
          },
        });
        assert.equal((await finished(user, launched.id)).status, 'Completed');
        return launched.id as string;
      };
      const parameters = async (user: string, id: string) =>
        (await gw.ok(user, 'GET', `/analyses/${id}/parameters`)).parameters.map((p: any) => [
          p.full_param_id,
          p.param_value.value,
        ]);

      test("one's own analysis: launched again with the same app and config, and completing", async () => {
        const original = await countedWords('alice');
        const answer = await relaunch('alice', [original]);
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.body.analyses.length, 1);
        const [again] = answer.body.analyses;
        assert.notEqual(again.id, original);
        assert.equal(again.name, 'alice counts');
        assert.equal(again.status, 'Submitted');
        assert.match(again['start-date'], /^\d+$/);
        const done = await finished('alice', again.id);
        assert.equal(done.status, 'Completed');
        assert.equal(done.app_id, wordCount.id);
        assert.deepEqual(await parameters('alice', again.id), await parameters('alice', original));
        const first = await listed('alice', original);
        assert.notEqual(done.resultfolderid, first.resultfolderid);
        assert.equal(
          (
            await gw.call(
              'alice',
              'GET',
              `/secured/fileio/download?path=${encodeURIComponent(`${done.resultfolderid}/words.txt.wc.txt`)}`,
            )
          ).text,
          '0 3 13 words.txt\n',
        );
      });

      test("an analysis shared with the caller: launched as the caller's, results in the caller's home", async () => {
        const original = await countedWords('carol');
        // Without a grant, dave may not: 404, as for any analysis he cannot see.
        const refused = await relaunch('dave', [original]);
        assert.equal(refused.status, 404, refused.text);
        assert.equal(refused.body.error_code, 'ERR_NOT_FOUND');

        await gw.ok('carol', 'POST', '/secured/share', {
          json: {
            sharing: [
              {
                user: 'dave',
                paths: [{ path: `${gw.home('carol')}/words.txt`, permission: 'read' }],
              },
            ],
          },
        });
        await gw.ok('carol', 'POST', '/analyses/sharing', {
          json: {
            sharing: [
              {
                subject: { id: 'dave', source_id: 'ldap' },
                analyses: [{ analysis_id: original, permission: 'read' }],
              },
            ],
          },
        });
        const answer = await relaunch('dave', [original]);
        assert.equal(answer.status, 200, answer.text);
        const done = await finished('dave', answer.body.analyses[0].id);
        assert.equal(done.status, 'Completed');
        assert.match(done.username, /^dave@/);
        assert.equal(done.app_id, wordCount.id);
        assert.ok(done.resultfolderid.startsWith(`${gw.home('dave')}/`), done.resultfolderid);
        assert.deepEqual(await parameters('dave', done.id), await parameters('carol', original));
        // Carol's own list gains nothing.
        assert.equal(await countOf('carol'), 1);
      });

      test('unknown or unreadable ids refuse the whole request; bad bodies are 400', async () => {
        const mine = await countedWords('erin');
        const before = await countOf('erin');
        const unknown = await relaunch('erin', [mine, '00000000-0000-4000-8000-000000000000']);
        assert.equal(unknown.status, 404, unknown.text);
        assert.equal(unknown.body.error_code, 'ERR_NOT_FOUND');
        const others = await relaunch('frank', [mine]);
        assert.equal(others.status, 404, others.text);
        assert.equal(await countOf('erin'), before, 'nothing launched');
        assert.equal(await countOf('frank'), 0);

        for (const body of [{}, { analyses: mine }, { analyses: [1] }, { analyses: null }])
          assert.equal(
            (await gw.call('erin', 'POST', '/analyses/relauncher', { json: body })).body.error_code,
            'ERR_BAD_OR_MISSING_FIELD',
            JSON.stringify(body),
          );
        const many = await relaunch(
          'erin',
          Array.from({ length: 1001 }, () => mine),
        );
        assert.equal(many.status, 400);
        assert.equal(many.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
        assert.deepEqual((await relaunch('erin', [])).body, { analyses: [] });
        assert.equal(await countOf('erin'), before);

        // Three at once over a limit of two running: refused before any starts.
        const three = [
          mine,
          await countedWords('erin', 'b.txt'),
          await countedWords('erin', 'c.txt'),
        ];
        const limited = await relaunch('erin', three);
        assert.equal(limited.status, 400, limited.text);
        assert.equal(limited.body.error_code, 'ERR_LIMIT_REACHED');
        assert.equal(await countOf('erin'), before + 2);
      });

      test('the job callback moves a running analysis, with its history and the owner notified', async () => {
        const port = (source.address() as AddressInfo).port;
        const launched = await gw.ok('grace', 'POST', '/analyses', {
          json: {
            system_id: 'de',
            app_id: urlImport.id,
            name: 'slow import',
            output_dir: gw.home('grace'),
            config: { [key(urlImport, 'address')]: `http://127.0.0.1:${port}/slow.txt` },
          },
        });
        const id = launched.id as string;
        const updates = async () =>
          (await gw.ok('grace', 'GET', `/analyses/${id}/history`)).steps[0].updates;
        // The analysis is listed as running a moment before its step's history records it.
        await eventually(
          async () =>
            (await listed('grace', id))?.status === 'Running' &&
            (await updates()).some((update: any) => update.status === 'Running')
              ? true
              : undefined,
          10_000,
          'the import to run',
        );
        const callback = (jobId: string, json: unknown) =>
          gw.call(null, 'POST', `/callbacks/extapi-job/${jobId}`, { json });

        // Never back, never the same again: nothing recorded.
        for (const json of [{ status: 'QUEUED' }, { state: { status: 'running' } }]) {
          const same = await callback(id, json);
          assert.equal(same.status, 200, same.text);
          assert.deepEqual(same.body, { id, status: 'Running' });
        }
        assert.deepEqual(
          (await updates()).map((update: any) => update.status),
          ['Submitted', 'Running'],
        );

        const bad = await callback(id, { status: 'EXPLODED' });
        assert.equal(bad.status, 400, bad.text);
        assert.equal(bad.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
        assert.equal((await callback(id, {})).status, 400);
        const unknown = await callback('00000000-0000-4000-8000-000000000000', {
          status: 'FAILED',
        });
        assert.equal(unknown.status, 404, unknown.text);
        assert.equal(unknown.body.error_code, 'ERR_NOT_FOUND');

        const moved = await callback(id.toUpperCase(), {
          state: { status: 'FINISHED', message: 'finished on the cluster' },
        });
        assert.equal(moved.status, 200, moved.text);
        assert.deepEqual(moved.body, { id, status: 'Completed' });
        const row = await listed('grace', id);
        assert.equal(row.status, 'Completed');
        assert.notEqual(row.enddate, '0');
        const history = await updates();
        assert.deepEqual(history.map((update: any) => [update.status, update.message]).slice(2), [
          ['Completed', 'finished on the cluster'],
        ]);
        const notes = await eventually(
          async () => {
            const found = (
              await gw.ok('grace', 'GET', '/secured/notifications/messages?filter=analysis')
            ).messages.filter((n: any) => n.payload.id === id && n.payload.status === 'Completed');
            return found.length === 1 ? found : undefined;
          },
          10_000,
          'the Completed notification',
        );
        assert.equal(notes[0].payload.action, 'job_status_change');

        // An ended analysis stays ended; the import it stopped records nothing more.
        const again = await callback(id, { status: 'FAILED' });
        assert.equal(again.status, 400, again.text);
        assert.equal(again.body.error_code, 'ERR_ILLEGAL_ARGUMENT');
        pending.splice(0).forEach((end) => end());
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.equal((await updates()).length, 3);
        assert.equal((await listed('grace', id)).status, 'Completed');
      });
    },
  );
}

// VICE on the embedded platform (docs/api/vice.md), through the gateway on each engine: an
// interactive tool the test ships (a tiny HTTP server, test/fixtures/tools/vice.sh) launched by
// alice, listed with its interactive URL, ready, reached at `/vice/{host}/...` by alice and by bob
// once it is shared with him, with a WebSocket-style upgrade tunnelled both ways, and refused (404)
// to carol; its time limit read and extended, then reached: the session stopped and its outputs
// saved; its description, the users' and administrators' listings, its external id and which
// analysis it is (only to those who may read it), its logs so far; administrators' saving its
// outputs and staging its (changed) input again while it runs, then save-and-exit (outputs saved,
// the earlier save replaced, Completed), the owner's exit (Canceled, nothing saved; a reader may not), the
// one operator from configuration; and what the web UI's administrators' VICE page reads of each
// of its calls (the operators a bare array; the last test names the UI's files and fields).
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../support/fileio.ts';
import { engines, skipWithout } from '../support/postgres.ts';
import { endedAnalysis, listedAnalysis } from '../support/analyses.ts';
import { admin, startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/tools');

// The engines' suites run side by side: each waits out its sessions' time limits.
describe('VICE sessions on each engine', { concurrency: true }, () => {
  for (const engine of engines) {
    describe(`VICE sessions through the gateway (${engine})`, { skip: skipWithout(engine) }, () => {
      let gw: MetadataGateway;
      /** An app of the tool, and the ids of its form's two parameters. */
      interface ViceApp {
        id: string;
        markerKey: string;
        inputKey: string;
      }
      let shortApp: ViceApp;
      let longApp: ViceApp;
      before(async () => {
        gw = (await startMetadataGateway({
          engine,
          env: { TOOL_EXECUTABLES_ALLOW: `${fixtures}/vice.sh`, TOOL_WALL_CLOCK_SECONDS: '60' },
        }))!;
        for (const name of ['alice', 'bob', 'carol', admin])
          await gw.ok(name, 'GET', '/subjects?search=nobody-matches-this');
        // Two tools of the same program: one whose sessions end after four seconds (the time-limit
        // test), one held only to the platform's wall clock (60 s here), so sessions that go
        // through several steps are not ended by their deadline on a loaded machine.
        const appOf = async (version: string, limit?: number) => {
          const tool = await gw.ok('alice', 'POST', '/tools', {
            json: {
              name: 'vice.sh',
              location: fixtures,
              type: 'interactive',
              interactive: true,
              version,
              ...(limit ? { time_limit_seconds: limit } : {}),
              container: { image: { name: 'host' } },
            },
          });
          const app = await gw.ok('alice', 'POST', '/apps/de', {
            json: {
              name: `a VICE app ${engine} ${version}`,
              tools: [{ id: tool.id }],
              groups: [
                {
                  label: 'Session',
                  parameters: [
                    { type: 'Text', name: '', label: 'Marker', order: 1 },
                    { type: 'FileInput', name: '', label: 'Input', order: 2 },
                  ],
                },
              ],
            },
          });
          const form = (await gw.ok('alice', 'GET', `/apps/de/${app.id}`)).groups[0].parameters;
          const idOf = (label: string) =>
            form.find((parameter: any) => parameter.label === label).id;
          return { id: app.id, markerKey: idOf('Marker'), inputKey: idOf('Input') };
        };
        shortApp = await appOf('1', 4);
        longApp = await appOf('2');
      });
      after(async () => gw?.close());

      const listed = (user: string, id: string) => listedAnalysis(gw, user, id);
      /** Launches a session of alice's app; answers its analysis id and host once it is ready. */
      const session = async (app: ViceApp, marker: string, input?: string) => {
        const launched = await gw.ok('alice', 'POST', '/analyses', {
          json: {
            system_id: 'de',
            app_id: app.id,
            name: marker,
            output_dir: gw.home('alice'),
            config: { [app.markerKey]: marker, ...(input ? { [app.inputKey]: input } : {}) },
          },
        });
        const url = await eventually(
          async () => (await listed('alice', launched.id))?.interactive_urls?.[0] as string,
          10_000,
          'the session to run',
        );
        const host = /^\/vice\/([^/]+)\/$/.exec(url)?.[1];
        assert.ok(host, url);
        await eventually(
          async () => (await gw.ok('alice', 'GET', `/vice/${host}/url-ready`)).ready,
          10_000,
          'the session to listen',
        );
        return { id: launched.id as string, host };
      };
      const ended = (id: string) => endedAnalysis(gw, 'alice', id, 15_000);
      const saved = async (folder: string) =>
        gw.call(
          'alice',
          'GET',
          `/secured/fileio/download?path=${encodeURIComponent(`${folder}/session.txt`)}`,
        );

      test('reached by its owner and grantees, tunnelled upgrades, time limit extended then reached', async () => {
        const marker = `vice-${engine}-${Date.now()}`;
        const { id, host } = await session(shortApp, marker);
        // Extended first, while its four seconds run: by four more.
        const before = Number(
          (await gw.ok('alice', 'GET', `/analyses/${id}/time-limit`)).time_limit,
        );
        const extended = Number(
          (await gw.ok('alice', 'POST', `/analyses/${id}/time-limit`)).time_limit,
        );
        assert.ok(extended >= before + 4, `${before} → ${extended}`);

        const page = await gw.call('alice', 'GET', `/vice/${host}/some/page?x=1`);
        assert.equal(page.status, 200, page.text);
        assert.equal(page.text, `${marker} GET /some/page?x=1`);
        const posted = await gw.call('alice', 'POST', `/vice/${host}/form`, { raw: 'a=b' });
        assert.equal(posted.text, `${marker} POST /form`);
        const description = await gw.ok('alice', 'GET', `/vice/${host}/description`);
        assert.equal(description.analysisID, id);
        const resources = await gw.ok('alice', 'GET', '/vice/resources');
        assert.ok(resources.deployments.some((each: any) => each.host === host));
        assert.deepEqual((await gw.ok('carol', 'GET', '/vice/resources')).deployments, []);
        assert.ok(
          (await gw.ok(admin, 'GET', '/admin/vice/resources')).deployments.some(
            (each: any) => each.host === host,
          ),
        );
        assert.equal((await gw.ok(admin, 'GET', `/admin/vice/${host}/url-ready`)).ready, true);
        assert.deepEqual(await gw.ok('alice', 'GET', `/vice/analyses/${id}/external-id`), {
          externalID: host,
        });
        const asyncData = await gw.ok('alice', 'GET', `/vice/async-data?external-id=${host}`);
        assert.equal(asyncData.analysisID, id);
        const hidden = await gw.call('carol', 'GET', `/vice/async-data?external-id=${host}`);
        assert.equal(hidden.status, 404);
        assert.ok(!hidden.text.includes(host) && !hidden.text.includes(id), hidden.text);
        assert.equal(
          (await gw.call('carol', 'GET', `/vice/analyses/${id}/external-id`)).status,
          404,
        );
        const logs = await eventually(
          async () => {
            const answer = await gw.ok('alice', 'GET', `/analyses/${id}/logs`);
            return answer.lines.includes('listening') ? answer : undefined;
          },
          5_000,
          'the session to log',
        );
        assert.match(logs.since_time, /^\d+$/);

        // Nobody else reaches it, until it is shared.
        for (const route of [`/vice/${host}/`, `/vice/${host}/url-ready`]) {
          const refused = await gw.call('carol', 'GET', route);
          assert.equal(refused.status, 404, `${route}: ${refused.text}`);
        }
        assert.equal((await gw.call('bob', 'GET', `/vice/${host}/`)).status, 404);
        await gw.ok('alice', 'POST', '/analyses/sharing', {
          json: {
            sharing: [
              {
                subject: { id: 'bob', source_id: 'ldap' },
                analyses: [{ analysis_id: id, permission: 'read' }],
              },
            ],
          },
        });
        assert.equal((await gw.call('bob', 'GET', `/vice/${host}/`)).text, `${marker} GET /`);
        // Reading is not ending: bob may not exit it.
        const notHis = await gw.call('bob', 'POST', `/vice/analyses/${id}/exit`);
        assert.equal(notHis.status, 403, notHis.text);

        // An upgrade goes through the same checks, then both ways byte for byte.
        const headers = await gw.authHeaders('alice');
        const echoed = await new Promise<string>((resolve, reject) => {
          const socket = connect(Number(new URL(gw.running.url).port), '127.0.0.1');
          let seen = '';
          socket.on('data', (chunk) => {
            seen += chunk.toString('utf8');
            if (seen.includes('\r\n\r\n') && !seen.includes('ping')) socket.write('ping');
            if (seen.endsWith('ping')) {
              socket.destroy();
              resolve(seen);
            }
          });
          socket.on('error', reject);
          socket.write(
            [
              `GET /vice/${host}/socket HTTP/1.1`,
              'host: localhost',
              'connection: upgrade',
              'upgrade: echo',
              `authorization: ${headers.authorization}`,
              '',
              '',
            ].join('\r\n'),
          );
        });
        assert.match(echoed, /^HTTP\/1\.1 101 /);
        const refusedUpgrade = await new Promise<string>((resolve) => {
          const socket = connect(Number(new URL(gw.running.url).port), '127.0.0.1');
          let seen = '';
          socket.on('data', (chunk) => (seen += chunk.toString('utf8')));
          socket.on('close', () => resolve(seen));
          socket.write(
            `GET /vice/${host}/socket HTTP/1.1\r\nhost: localhost\r\nconnection: upgrade\r\nupgrade: echo\r\n\r\n`,
          );
        });
        assert.match(refusedUpgrade, /^HTTP\/1\.1 401 /);

        // The extended limit is reached: stopped, its work saved, Completed.
        const done = await ended(id);
        assert.equal(done.status, 'Completed');
        assert.deepEqual(done.interactive_urls, []);
        const file = await saved(done.resultfolderid);
        assert.equal(file.text, `session for ${marker}\n`);
        assert.equal((await gw.call('alice', 'GET', `/vice/${host}/`)).status, 404);
      });

      test("administrators save a session's outputs, stage its inputs again, save-and-exit; the owner's exit keeps nothing; operators from configuration", async () => {
        await gw.upload('alice', gw.home('alice'), `input-${engine}.txt`, 'first version');
        const input = `${gw.home('alice')}/input-${engine}.txt`;
        const kept = await session(longApp, `kept-${engine}`, input);
        assert.equal(
          (await gw.call('alice', 'GET', `/vice/${kept.host}/input`)).text,
          'first version',
        );
        // Its work saved while it goes on.
        await gw.ok(admin, 'POST', `/admin/vice/analyses/${kept.id}/save-output-files`);
        const folder = (await listed('alice', kept.id)).resultfolderid as string;
        await eventually(async () => (await saved(folder)).status === 200, 10_000, 'the save');
        assert.equal((await listed('alice', kept.id)).status, 'Running');
        // Its input changed in the data store, then staged again: the session reads the new one.
        await gw.ok('alice', 'POST', '/secured/filesystem/delete', { json: { paths: [input] } });
        await gw.upload('alice', gw.home('alice'), `input-${engine}.txt`, 'second version');
        await gw.ok(admin, 'POST', `/admin/vice/analyses/${kept.id}/download-input-files`);
        await eventually(
          async () =>
            (await gw.call('alice', 'GET', `/vice/${kept.host}/input`)).text === 'second version',
          10_000,
          'the input staged again',
        );
        await gw.ok(admin, 'POST', `/admin/vice/analyses/${kept.id}/save-and-exit`);
        const keptDone = await ended(kept.id);
        assert.equal(keptDone.status, 'Completed');
        assert.equal((await saved(keptDone.resultfolderid)).status, 200);

        const dropped = await session(longApp, `dropped-${engine}`);
        await gw.ok('alice', 'POST', `/vice/analyses/${dropped.id}/exit`);
        const droppedDone = await ended(dropped.id);
        assert.equal(droppedDone.status, 'Canceled');
        assert.notEqual((await saved(droppedDone.resultfolderid)).status, 200);

        const operators = await gw.ok(admin, 'GET', '/admin/vice/operators');
        assert.deepEqual(
          operators.map((operator: any) => operator.name),
          ['local'],
        );
        const added = await gw.call(admin, 'POST', '/admin/vice/operators', {
          json: { name: 'another', url: 'https://example.org', priority: 1 },
        });
        assert.equal(added.status, 400, added.text);
        assert.equal(added.body.error_code, 'ERR_ILLEGAL_ARGUMENT');
      });

      test("what the web UI's administrators' VICE page reads of its calls", async () => {
        // Sonora's src/components/vice/admin/operators/index.js sorts and maps the answer of
        // `GET /admin/vice/operators` itself (a bare array), reading each operator's `id`, `priority`
        // (a number), `name` (`.toLowerCase()`), `url`, `accepting_launches`, `deactivated` and
        // `tls_skip_verify`; its OperatorEditor.js reads `base_url`. src/components/vice/admin/tabs/
        // index.js reads `deployments[].{externalID, username, analysisName, appName,
        // creationTimestamp, appID}` of `GET /admin/vice/resources`; table/actionButtons.js reads
        // `analysisID` of `GET /admin/vice/async-data` and posts the analysis's time-limit, exit,
        // save-and-exit, save-output-files and download-input-files; joblimits/index.js reads
        // `concurrent_jobs` of `/admin/settings/concurrent-job-limits/{user}` (its server's path for
        // `/api/admin/vice/concurrent-job-limits/{user}`) after checking `workspaces` of
        // `GET /admin/workspaces?username=`.
        const operators = await gw.ok(admin, 'GET', '/admin/vice/operators');
        assert.ok(Array.isArray(operators), JSON.stringify(operators));
        assert.deepEqual(operators, [
          {
            id: 'local',
            name: 'local',
            url: '',
            base_url: null,
            tls_skip_verify: false,
            priority: 0,
            accepting_launches: true,
            deactivated: false,
          },
        ]);
        const edited = await gw.call(admin, 'PATCH', '/admin/vice/operators/id/local', {
          json: { name: 'local', url: '', priority: 1, accepting_launches: true },
        });
        assert.equal(edited.status, 400, edited.text);
        assert.equal(edited.body.error_code, 'ERR_ILLEGAL_ARGUMENT');

        const { id, host } = await session(longApp, `admin-page-${engine}`);
        const [row] = (await gw.ok(admin, 'GET', '/admin/vice/resources')).deployments.filter(
          (each: any) => each.externalID === host,
        );
        assert.ok(row, 'the session is listed');
        for (const field of ['externalID', 'username', 'analysisName', 'appName', 'appID'])
          assert.equal(typeof row[field], 'string', field);
        assert.equal(row.analysisName, `admin-page-${engine}`);
        assert.match(row.creationTimestamp, /^\d+$/);
        const asyncData = await gw.ok(admin, 'GET', `/admin/vice/async-data?external-id=${host}`);
        assert.equal(asyncData.analysisID, id);
        const limit = await gw.ok(admin, 'GET', `/admin/vice/analyses/${id}/time-limit`);
        assert.match(limit.time_limit, /^\d+$/);
        const extended = await gw.ok(admin, 'POST', `/admin/vice/analyses/${id}/time-limit`);
        assert.ok(Number(extended.time_limit) >= Number(limit.time_limit));
        await gw.ok(admin, 'POST', `/admin/vice/analyses/${id}/exit`);
        assert.equal((await ended(id)).status, 'Canceled');

        // A user exists for the job-limit card once signed in to the UI (its bootstrap).
        await gw.ok('alice', 'GET', '/secured/bootstrap');
        const workspaces = await gw.ok(admin, 'GET', '/admin/workspaces?username=alice');
        assert.equal(workspaces.workspaces.length, 1);
        await gw.ok(admin, 'PUT', '/admin/settings/concurrent-job-limits/alice', {
          json: { concurrent_jobs: 3 },
        });
        const jobLimit = await gw.ok(admin, 'GET', '/admin/settings/concurrent-job-limits/alice');
        assert.equal(jobLimit.concurrent_jobs, 3);
        await gw.ok(admin, 'DELETE', '/admin/settings/concurrent-job-limits/alice');
      });
    });
  }
});

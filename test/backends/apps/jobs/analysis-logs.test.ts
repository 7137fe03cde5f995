// The logs a built-in app's analysis leaves in its result folder, on both engines: completed,
// failed and cancelled, each step's `logs/step-<n>-stdout.txt`, `-stderr.txt` and
// `-exit-status.json` say what ran (the tool, its inputs, what it wrote) and how it ended; a
// cancelled one's are there once the stop has answered. The DE web UI sends users to them: the
// analysis's `resultfolderid` is the output folder it opens (Sonora src/components/analyses/utils.js,
// useGotoOutputFolderLink), and its help (public/static/locales/en/analyses.json,
// jobLogsUnavailableMessage, statusHelpCompletedNoOutput) says the logs are in that folder's
// `logs` directory once the analysis has ended. (User tools' logs: user-tools.test.ts.)
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../../src/backends/apps/catalog/built-in.ts';
import { endedAnalysis, listedAnalysis } from '../../../support/analyses.ts';
import { eventually } from '../../../support/fileio.ts';
import { engines, skipWithout } from '../../../support/postgres.ts';
import { startMetadataGateway, type MetadataGateway } from '../../../support/metadata-gateway.ts';

const [urlImport, wordCount] = builtInApps as [(typeof builtInApps)[0], (typeof builtInApps)[0]];
const key = (app: (typeof builtInApps)[0], name: string) => {
  const parameter = app.definition.groups
    .flatMap((group) => group.parameters)
    .find((candidate) => candidate.name === name)!;
  return `${app.definition.steps[0]!.id}_${parameter.id}`;
};

for (const engine of engines) {
  describe(`built-in apps' logs (${engine})`, { skip: skipWithout(engine) }, () => {
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
      gw = (await startMetadataGateway({
        engine,
        env: { URL_IMPORT_ALLOW_PRIVATE_NETWORKS: 'true' },
      }))!;
    });
    after(async () => {
      pending.splice(0).forEach((end) => end());
      await gw?.close();
      source.close();
    });

    const launch = (app: (typeof builtInApps)[0], config: Record<string, unknown>) =>
      gw.ok('alice', 'POST', '/analyses', {
        json: {
          system_id: 'de',
          app_id: app.id,
          name: 'logged',
          output_dir: gw.home('alice'),
          config,
        },
      });
    const download = async (file: string) => {
      const answer = await gw.call(
        'alice',
        'GET',
        `/secured/fileio/download?path=${encodeURIComponent(file)}`,
      );
      assert.equal(answer.status, 200, `${file}: ${answer.text}`);
      return answer.text;
    };
    const logsOf = async (folder: string) => ({
      stdout: await download(`${folder}/logs/step-1-stdout.txt`),
      stderr: await download(`${folder}/logs/step-1-stderr.txt`),
      status: JSON.parse(await download(`${folder}/logs/step-1-exit-status.json`)),
    });

    test('a completed Word count: what it read and wrote, exit status 0', async () => {
      const home = gw.home('alice');
      await gw.upload('alice', home, 'words.txt', 'one two three\n');
      const launched = await launch(wordCount, { [key(wordCount, 'input')]: `${home}/words.txt` });
      const done = await endedAnalysis(gw, 'alice', launched.id, 10_000);
      assert.equal(done.status, 'Completed');
      const folder = done.resultfolderid as string;
      const logs = await logsOf(folder);
      assert.match(
        logs.stdout,
        /^step 1 of 1: count\ntool: word-count \(built in, run by the platform\)\n/,
      );
      assert.match(logs.stdout, new RegExp(`\nText file: ${home}/words\\.txt\n`));
      assert.match(logs.stdout, new RegExp(`\nwrote: ${folder}/words\\.txt\\.wc\\.txt\n`));
      assert.match(logs.stdout, /\ncompleted: \d{4}-/);
      assert.equal(logs.stderr, '');
      assert.equal(logs.status.state, 'completed');
      assert.equal(logs.status.exitCode, 0);
      assert.ok(logs.status.endedAt >= logs.status.startedAt);
    });

    test('a failed Word count: the reason on stderr and in the exit status', async () => {
      const missing = `${gw.home('alice')}/no-such.txt`;
      const launched = await launch(wordCount, { [key(wordCount, 'input')]: missing });
      const done = await endedAnalysis(gw, 'alice', launched.id, 10_000);
      assert.equal(done.status, 'Failed');
      const logs = await logsOf(done.resultfolderid);
      assert.match(logs.stderr, /^failed: .*no-such\.txt/);
      assert.equal(logs.status.state, 'failed');
      assert.equal(logs.status.exitCode, 1);
      assert.match(logs.status.reason, /no-such\.txt/);
    });

    test('a cancelled URL import: its logs say what ran and that it was cancelled', async () => {
      const address = `http://127.0.0.1:${(source.address() as AddressInfo).port}/slow.txt`;
      const launched = await launch(urlImport, { [key(urlImport, 'address')]: address });
      await eventually(() => pending.length > 0, 10_000, 'the import to start');
      const stopped = await gw.ok('alice', 'POST', `/analyses/${launched.id}/stop`);
      assert.equal(stopped.status, 'Canceled');
      // There as soon as the stop has answered.
      const folder = (await listedAnalysis(gw, 'alice', launched.id)).resultfolderid as string;
      const logs = await logsOf(folder);
      assert.match(logs.stdout, new RegExp(`\nURL: ${address.replace(/\./g, '\\.')}\n`));
      assert.match(logs.stdout, /\nstopped: \d{4}-/);
      assert.equal(logs.status.state, 'stopped');
      assert.equal(logs.status.exitCode, null);
      assert.match(
        logs.status.reason,
        /was stopped while it ran: the analysis was stopped \(Canceled\)/,
      );
      assert.match(logs.stderr, /^stopped: .*\(Canceled\)\n$/);
      // Its data notification says it was canceled, never that it failed.
      const told = await eventually(
        async () => {
          const { messages } = await gw.ok('alice', 'GET', '/secured/notifications/messages');
          const imports = (messages as any[]).filter(
            (n) => n.payload?.action === 'url_import' && n.payload?.url === address,
          );
          return imports.length > 0 ? imports : undefined;
        },
        10_000,
        'the URL import notification',
      );
      assert.deepEqual(
        told!.map((n: any) => n.subject),
        ['URL import of slow.txt canceled'],
      );
    });
  });
}

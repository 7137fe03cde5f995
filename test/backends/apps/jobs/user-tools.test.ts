// User tools run on the embedded executor (docs/executor.md), through the gateway on each engine:
// a tool made on an executable the test ships (test/fixtures/tools) and an app on it launched, its
// file input staged with the caller's permissions, its outputs and `logs/` (stdout, stderr, exit
// status) in the result folder, each step with its own status and updates; a parameter value full
// of shell metacharacters arriving as one argument, byte for byte; a failing program's exit status
// as the failure reason, with its partial output and logs kept (and logs for a step that never
// ran, saying why); a stop killing the step's whole process tree, a detached grandchild included,
// its partial output and logs (saying it was stopped) in the result folder once the stop answers;
// the wall-clock, CPU-time, memory and output-size
// limits each failing the step with that limit named; no network and nothing of the host outside
// the step's directory; nothing running that neither TOOL_EXECUTABLES_ALLOW nor an administrator
// allowed, and an administrator's approval undone by the owner's later change of the program; a
// pipeline of two tools, the first's output feeding the second, and one whose first step fails; a
// tool on a root filesystem image (a static busybox in a tar) running with that image as `/`; an
// interactive tool serving on the loopback port the platform assigned until stopped, its work kept.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { create as createTar } from 'tar';
import { eventually } from '../../../support/fileio.ts';
import { engines, skipWithout } from '../../../support/postgres.ts';
import { endedAnalysis, listedAnalysis } from '../../../support/analyses.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../../support/metadata-gateway.ts';

const fixtures = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../fixtures/tools',
);
const tricky = `a b; rm -rf / $(id) \`id\` 'q' "x" | & > * ~ $HOME \\ \n end`;

/** The command lines of this host's processes that carry `marker`. */
/** The processes whose command line holds every one of `parts`. */
const processesWith = (...parts: string[]) =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return parts.every((part) => commandLine.includes(part));
      } catch {
        return false;
      }
    });

const reportParameters = [
  { type: 'FileInput', name: '--in', label: 'Lines', order: 1, required: true },
  { type: 'Text', name: '--label', label: 'Label', order: 2 },
  { type: 'FileOutput', name: '-o', label: 'Report', order: 3, defaultValue: 'report.txt' },
];

interface Parameter {
  type: string;
  name: string;
  label?: string;
  order?: number;
  required?: boolean;
  defaultValue?: unknown;
}

for (const engine of engines) {
  describe(`user tools on the executor (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: MetadataGateway;
    let closedPort: Server;
    let image: string;
    let imageFolder: string;
    before(async () => {
      // A root filesystem image as `docker export` writes one: a tar of a static busybox.
      imageFolder = await mkdtemp(path.join(tmpdir(), 'rootfs-'));
      await mkdir(path.join(imageFolder, 'root/bin'), { recursive: true });
      await copyFile('/bin/busybox', path.join(imageFolder, 'root/bin/busybox'));
      await symlink('busybox', path.join(imageFolder, 'root/bin/sh'));
      image = path.join(imageFolder, 'busybox.tar');
      await createTar({ file: image, cwd: path.join(imageFolder, 'root') }, ['bin']);
      closedPort = createServer((socket) => socket.end('hello'));
      await new Promise<void>((resolve) => closedPort.listen(0, '127.0.0.1', resolve));
      gw = (await startMetadataGateway({
        engine,
        env: {
          TOOL_EXECUTABLES_ALLOW: `${image},${fixtures}/report.sh,${fixtures}/upper.sh,${fixtures}/fail.sh,${fixtures}/sleepy.sh,${fixtures}/busy.sh,${fixtures}/hog.sh,${fixtures}/flood.sh,${fixtures}/probe.sh,${fixtures}/serve.sh`,
          TOOL_WALL_CLOCK_SECONDS: '60',
          TOOL_CPU_SECONDS: '1',
          TOOL_MEMORY_MB: '256',
          TOOL_OUTPUT_MB: '1',
        },
      }))!;
      for (const name of ['alice', 'bob', admin])
        await gw.ok(name, 'GET', '/subjects?search=nobody-matches-this');
    });
    after(async () => {
      await gw?.close();
      closedPort?.close();
      await rm(imageFolder, { recursive: true, force: true });
    });

    /** A tool of `owner` on a fixture script, and an app on it with `parameters`; the app's launch keys by label (else name). */
    const toolApp = async (
      owner: string,
      script: string,
      parameters: Parameter[],
      tool: Record<string, unknown> = {},
      location = fixtures,
    ) => {
      const made = await gw.ok(owner, 'POST', '/tools', {
        json: {
          name: script,
          location,
          type: 'executable',
          version: '1.0',
          container: { image: { name: 'host' } },
          ...tool,
        },
      });
      const app = await gw.ok(owner, 'POST', '/apps/de', {
        json: {
          name: `${script} for ${owner} ${Math.random()}`,
          tools: [{ id: made.id }],
          groups: [{ label: 'Parameters', parameters }],
        },
      });
      const view = await gw.ok(owner, 'GET', `/apps/de/${app.id}`);
      const keys = Object.fromEntries(
        view.groups
          .flatMap((group: any) => group.parameters)
          .map((parameter: any) => [parameter.label || parameter.name, parameter.id]),
      );
      return { tool: made, app, keys: keys as Record<string, string> };
    };
    const launch = async (
      owner: string,
      app: { id: string },
      config: Record<string, unknown>,
      name = 'a tool run',
    ) =>
      gw.ok(owner, 'POST', '/analyses', {
        json: { system_id: 'de', app_id: app.id, name, output_dir: gw.home(owner), config },
      });
    const listed = (owner: string, id: string) => listedAnalysis(gw, owner, id);
    const finished = (owner: string, id: string) => endedAnalysis(gw, owner, id);
    const download = async (owner: string, file: string) => {
      const answer = await gw.call(
        owner,
        'GET',
        `/secured/fileio/download?path=${encodeURIComponent(file)}`,
      );
      assert.equal(answer.status, 200, `${file}: ${answer.text}`);
      return answer.text;
    };
    const failureOf = async (owner: string, id: string) => {
      const done = await finished(owner, id);
      assert.equal(done.status, 'Failed');
      const history = await gw.ok(owner, 'GET', `/analyses/${id}/history`);
      const step = history.steps[0];
      assert.equal(step.status, 'Failed');
      return { done, message: step.updates.at(-1).message as string };
    };

    test('a tool on a shipped executable: inputs staged, outputs and logs in the result folder, steps recorded', async () => {
      await gw.upload('alice', gw.home('alice'), 'lines.txt', 'one\ntwo\nthree\n');
      const { app, keys } = await toolApp('alice', 'report.sh', reportParameters);
      const launched = await launch('alice', app, {
        [keys.Lines!]: `${gw.home('alice')}/lines.txt`,
        [keys.Label!]: tricky,
      });
      const done = await finished('alice', launched.id);
      assert.equal(done.status, 'Completed');
      const folder = done.resultfolderid as string;
      assert.equal(await download('alice', `${folder}/report.txt`), '3\n');
      // The metacharacters reached the program as one argument, unchanged.
      assert.equal(await download('alice', `${folder}/label.txt`), tricky);
      assert.equal(await download('alice', `${folder}/more/note.txt`), 'argument count ok\n');
      assert.equal(
        await download('alice', `${folder}/logs/step-1-stdout.txt`),
        'made report.txt\n',
      );
      assert.equal(
        await download('alice', `${folder}/logs/step-1-stderr.txt`),
        'a warning on stderr\n',
      );
      const status = JSON.parse(await download('alice', `${folder}/logs/step-1-exit-status.json`));
      assert.equal(status.exitCode, 0);
      assert.equal(status.state, 'completed');
      // The staged input is not copied back as an output.
      const listing = await gw.ok(
        'alice',
        'GET',
        `/secured/filesystem/paged-directory?path=${encodeURIComponent(folder)}&limit=50`,
      );
      assert.deepEqual(listing.files.map((file: any) => file.label).sort(), [
        'label.txt',
        'report.txt',
      ]);

      const steps = await gw.ok('alice', 'GET', `/analyses/${launched.id}/steps`);
      assert.equal(steps.total, 1);
      assert.equal(steps.steps[0].status, 'Completed');
      assert.match(steps.steps[0].startdate, /^\d+$/);
      assert.match(steps.steps[0].enddate, /^\d+$/);
      const history = await gw.ok('alice', 'GET', `/analyses/${launched.id}/history`);
      assert.deepEqual(
        history.steps[0].updates.map((update: any) => update.status),
        ['Submitted', 'Running', 'Completed'],
      );
    });

    test("an input the caller cannot read fails the step with the data store's refusal", async () => {
      await gw.upload('bob', gw.home('bob'), 'private.txt', 'secret\n');
      const { app, keys } = await toolApp('alice', 'report.sh', reportParameters);
      const launched = await launch('alice', app, {
        [keys.Lines!]: `${gw.home('bob')}/private.txt`,
      });
      const { done, message } = await failureOf('alice', launched.id);
      assert.match(message, /cannot read/);
      // The step never ran; its logs, written by the platform, say what it was given and why not.
      const folder = done.resultfolderid as string;
      assert.match(
        await download('alice', `${folder}/logs/step-1-stderr.txt`),
        /^failed: .*cannot read/,
      );
      assert.match(
        await download('alice', `${folder}/logs/step-1-stdout.txt`),
        /tool: report\.sh \(a sandboxed process\)\nLines: .*private\.txt\n/,
      );
      const status = JSON.parse(await download('alice', `${folder}/logs/step-1-exit-status.json`));
      assert.equal(status.state, 'failed');
    });

    test('a failing program: its exit status the reason, its partial output and logs kept', async () => {
      const { app } = await toolApp('alice', 'fail.sh', []);
      const launched = await launch('alice', app, {});
      const { done, message } = await failureOf('alice', launched.id);
      assert.match(message, /exited with status 3/);
      const folder = done.resultfolderid as string;
      assert.equal(await download('alice', `${folder}/partial.txt`), 'partial\n');
      assert.equal(await download('alice', `${folder}/logs/step-1-stderr.txt`), 'cannot go on\n');
      // The notification follows the status change (the runner announces after it commits).
      await eventually(
        async () => {
          const notices = await gw.ok('alice', 'GET', '/secured/notifications/messages?limit=100');
          return notices.messages.some(
            (notice: any) =>
              notice.payload?.id === launched.id &&
              /exited with status 3/.test(notice.message?.text),
          );
        },
        10_000,
        'the failure reason in a notification',
      );
    });

    test("a stop kills the step's whole process tree, a detached grandchild included", async () => {
      const marker = `marker-${process.pid}-${Date.now()}`;
      const { app, keys } = await toolApp('alice', 'sleepy.sh', [
        { type: 'Text', name: '', label: 'Marker', order: 1 },
      ]);
      const key = Object.values(keys)[0]!;
      const launched = await launch('alice', app, { [key]: marker });
      // The sandbox and the script carry the marker from their start; the two sleeping shells only
      // once the script has written its partial output.
      await eventually(
        () => processesWith(marker, 'sleep 300').length >= 2,
        10_000,
        'the step to start',
      );
      const stopped = await gw.ok('alice', 'POST', `/analyses/${launched.id}/stop`);
      assert.equal(stopped.status, 'Canceled');
      await eventually(() => processesWith(marker).length === 0, 10_000, 'the tree to die');
      const steps = await gw.ok('alice', 'GET', `/analyses/${launched.id}/steps`);
      assert.equal(steps.steps[0].status, 'Canceled');
      // Once the stop has answered, the result folder holds what the step wrote and its logs,
      // saying it was stopped.
      const folder = (await listed('alice', launched.id)).resultfolderid as string;
      assert.equal(await download('alice', `${folder}/started.txt`), 'started\n');
      const status = JSON.parse(await download('alice', `${folder}/logs/step-1-exit-status.json`));
      assert.equal(status.state, 'stopped');
      assert.equal(await download('alice', `${folder}/logs/step-1-stdout.txt`), 'started\n');
    });

    test('each limit fails the step with the limit named', async () => {
      const cases = [
        { script: 'sleepy.sh', tool: { time_limit_seconds: 1 }, reason: /wall-clock limit of 1 s/ },
        { script: 'busy.sh', tool: {}, reason: /CPU-time limit of 1 s/ },
        {
          script: 'hog.sh',
          tool: { container: { image: { name: 'host' }, memory_limit: 32 * 1024 * 1024 } },
          reason: /memory limit of 32 MiB/,
        },
        { script: 'flood.sh', tool: {}, reason: /output-size limit of 1 MiB/ },
      ];
      for (const { script, tool, reason } of cases) {
        const { app, keys } = await toolApp(
          'alice',
          script,
          script === 'sleepy.sh' ? [{ type: 'Text', name: '', order: 1 }] : [],
          tool,
        );
        const config = script === 'sleepy.sh' ? { [Object.values(keys)[0]!]: 'limited' } : {};
        const launched = await launch('alice', app, config, `${script} over its limit`);
        const { message } = await failureOf('alice', launched.id);
        assert.match(message, reason, script);
      }
    });

    test('the sandbox: no network, nothing of the host outside the step, the system read-only', async () => {
      const port = (closedPort.address() as { port: number }).port;
      const { app, keys } = await toolApp('alice', 'probe.sh', [
        { type: 'Integer', name: '', label: 'Port', order: 1 },
        { type: 'Text', name: '', label: 'Outside', order: 2 },
      ]);
      const [portKey, outsideKey] = Object.values(keys) as [string, string];
      // The probe script itself is a file of the host, readable from outside the sandbox.
      const outside = path.join(fixtures, 'report.sh');
      const launched = await launch('alice', app, { [portKey]: port, [outsideKey]: outside });
      const done = await finished('alice', launched.id);
      assert.equal(done.status, 'Completed');
      const folder = done.resultfolderid as string;
      assert.match(await download('alice', `${folder}/network.txt`), /^refused /);
      assert.equal(await download('alice', `${folder}/outside.txt`), 'unreadable\n');
      assert.equal(await download('alice', `${folder}/root.txt`), 'invisible\n');
      assert.equal(await download('alice', `${folder}/system.txt`), 'read-only\n');
    });

    test("a pipeline of two tools: the first's output the second's input, each step recorded", async () => {
      await gw.upload('alice', gw.home('alice'), 'words.txt', 'alpha\nbeta\n');
      const upper = await toolApp('alice', 'upper.sh', [
        { type: 'FileInput', name: '', label: 'Text', order: 1, required: true },
        { type: 'FileOutput', name: '', label: 'Shouted', order: 2, defaultValue: 'upper.txt' },
      ]);
      const report = await toolApp('alice', 'report.sh', reportParameters);
      const [upperTask, reportTask] = await Promise.all(
        [upper, report].map(
          async ({ app }) => (await gw.ok('alice', 'GET', `/apps/de/${app.id}/tasks`)).tasks[0],
        ),
      );
      const shouted = upperTask.outputs.find((output: any) => output.label === 'Shouted').id;
      const lines = reportTask.inputs.find((input: any) => input.label === 'Lines').id;
      const pipeline = await gw.ok('alice', 'POST', '/apps/pipelines', {
        json: {
          name: `shout then report ${engine}`,
          description: 'two tools',
          steps: [
            { name: 'shout', description: '', task_id: upperTask.id, app_type: 'DE' },
            { name: 'report', description: '', task_id: reportTask.id, app_type: 'DE' },
          ],
          mappings: [{ source_step: 0, target_step: 1, map: { [lines]: shouted } }],
        },
      });
      const view = await gw.ok('alice', 'GET', `/apps/de/${pipeline.id}`);
      const keys = Object.fromEntries(
        view.groups
          .flatMap((group: any) => group.parameters)
          .map((parameter: any) => [parameter.label, parameter.id]),
      );
      assert.equal(keys.Lines, undefined, 'the mapped input is not on the form');
      const launched = await launch('alice', pipeline, {
        [keys.Text]: `${gw.home('alice')}/words.txt`,
        [keys.Label]: 'piped',
      });
      const done = await finished('alice', launched.id);
      assert.equal(done.status, 'Completed', JSON.stringify(done));
      const folder = done.resultfolderid as string;
      assert.equal(await download('alice', `${folder}/upper.txt`), 'ALPHA\nBETA\n');
      assert.equal(await download('alice', `${folder}/report.txt`), '2\n');
      assert.equal(await download('alice', `${folder}/label.txt`), 'piped');
      assert.equal(
        await download('alice', `${folder}/logs/step-2-stdout.txt`),
        'made report.txt\n',
      );

      const steps = await gw.ok('alice', 'GET', `/analyses/${launched.id}/steps`);
      assert.equal(steps.total, 2);
      assert.deepEqual(
        steps.steps.map((step: any) => [step.step_number, step.status]),
        [
          [1, 'Completed'],
          [2, 'Completed'],
        ],
      );
      const [first, second] = steps.steps;
      assert.ok(Number(first.enddate) <= Number(second.startdate), 'the steps ran in order');
      const history = await gw.ok('alice', 'GET', `/analyses/${launched.id}/history`);
      for (const step of history.steps)
        assert.deepEqual(
          step.updates.map((update: any) => update.status),
          ['Submitted', 'Running', 'Completed'],
        );
    });

    test('a pipeline whose first step fails: the second never runs', async () => {
      const failing = await toolApp('alice', 'fail.sh', [
        { type: 'FileOutput', name: '', label: 'Partial', order: 1, defaultValue: 'partial.txt' },
      ]);
      const report = await toolApp('alice', 'report.sh', reportParameters);
      const [failTask, reportTask] = await Promise.all(
        [failing, report].map(
          async ({ app }) => (await gw.ok('alice', 'GET', `/apps/de/${app.id}/tasks`)).tasks[0],
        ),
      );
      const pipeline = await gw.ok('alice', 'POST', '/apps/pipelines', {
        json: {
          name: `fail then report ${engine}`,
          description: '',
          steps: [
            { name: 'fail', description: '', task_id: failTask.id, app_type: 'DE' },
            { name: 'report', description: '', task_id: reportTask.id, app_type: 'DE' },
          ],
          mappings: [
            {
              source_step: 0,
              target_step: 1,
              map: {
                [reportTask.inputs.find((input: any) => input.label === 'Lines').id]:
                  failTask.outputs[0].id,
              },
            },
          ],
        },
      });
      const launched = await launch('alice', pipeline, {});
      assert.equal((await finished('alice', launched.id)).status, 'Failed');
      const history = await gw.ok('alice', 'GET', `/analyses/${launched.id}/history`);
      assert.deepEqual(
        history.steps.map((step: any) => step.status),
        ['Failed', 'Canceled'],
      );
      assert.match(history.steps[0].updates.at(-1).message, /exited with status 3/);
      assert.deepEqual(
        history.steps[1].updates.map((update: any) => update.status),
        ['Submitted', 'Canceled'],
      );
    });

    test('a tool on a root filesystem image runs with that image as /', async () => {
      const { app, keys } = await toolApp(
        'alice',
        'sh',
        [{ type: 'Text', name: '-c', label: 'Script', order: 1 }],
        { container: { image: { name: 'busybox-rootfs', url: `file://${image}` } } },
        '/bin',
      );
      const launched = await launch('alice', app, {
        [keys.Script!]: 'busybox ls / > root.txt; busybox | busybox head -n 1 > version.txt',
      });
      const done = await finished('alice', launched.id);
      assert.equal(done.status, 'Completed', JSON.stringify(done));
      const folder = done.resultfolderid as string;
      const root = (await download('alice', `${folder}/root.txt`)).split('\n');
      assert.ok(root.includes('bin'), root.join(' '));
      assert.ok(!root.includes('usr'), `the host's /usr is not there: ${root.join(' ')}`);
      assert.match(await download('alice', `${folder}/version.txt`), /^BusyBox v/);
    });

    test('an interactive tool: listening on the port the platform assigned until stopped, its work kept', async () => {
      const marker = `interactive-${process.pid}-${Date.now()}`;
      const { app, keys } = await toolApp(
        'alice',
        'serve.sh',
        [{ type: 'Text', name: '', label: 'Marker', order: 1 }],
        { type: 'interactive', interactive: true },
      );
      const launched = await launch('alice', app, { [keys.Marker!]: marker });
      // The server's process carries the marker; the port it was given is in its environment.
      const pid = await eventually(
        () =>
          processesWith(marker).find((candidate) =>
            readFileSync(`/proc/${candidate}/cmdline`, 'utf8').startsWith('/usr/bin/node'),
          ),
        10_000,
        'the server to start',
      );
      const port = /(?:^|\0)PORT=(\d+)/.exec(readFileSync(`/proc/${pid}/environ`, 'utf8'))?.[1];
      assert.ok(port, 'PORT is set');
      const answer = await eventually(
        () =>
          fetch(`http://127.0.0.1:${port}/`).then(
            (response) => response.text(),
            () => undefined,
          ),
        10_000,
        'the server to listen',
      );
      assert.equal(answer, marker);
      assert.equal((await listed('alice', launched.id)).status, 'Running');
      const steps = await gw.ok('alice', 'GET', `/analyses/${launched.id}/steps`);
      assert.deepEqual(
        steps.steps.map((step: any) => [step.step_type, step.status]),
        [['Interactive', 'Running']],
      );

      await gw.ok('alice', 'POST', `/analyses/${launched.id}/stop`);
      await eventually(() => processesWith(marker).length === 0, 10_000, 'the server to stop');
      await assert.rejects(fetch(`http://127.0.0.1:${port}/`));
      const folder = (await listed('alice', launched.id)).resultfolderid as string;
      const saved = await eventually(
        async () => {
          const response = await gw.call(
            'alice',
            'GET',
            `/secured/fileio/download?path=${encodeURIComponent(`${folder}/session.txt`)}`,
          );
          return response.status === 200 ? response.text : undefined;
        },
        10_000,
        'the session output to be saved',
      );
      assert.equal(saved, `session for ${marker}\n`);
    });

    test('only allowed programs run: an administrator approves one, an owner change undoes it', async () => {
      const { tool: other, app: otherApp } = await toolApp('alice', 'sh', [], {}, '/bin');
      const refused = await launch('alice', otherApp, {});
      assert.match((await failureOf('alice', refused.id)).message, /\/bin\/sh is not allowed/);
      await gw.ok(admin, 'PATCH', `/admin/tools/${other.id}`, { json: {} });
      const approved = await launch('alice', otherApp, {});
      assert.equal((await finished('alice', approved.id)).status, 'Completed');
      // The owner points the approved tool at another program: no longer approved.
      await gw.ok('alice', 'PATCH', `/tools/${other.id}`, { json: { location: '/usr/bin' } });
      const changed = await launch('alice', otherApp, {});
      assert.match((await failureOf('alice', changed.id)).message, /\/usr\/bin\/sh is not allowed/);
    });
  });
}

// User tools run on the embedded executor (docs/executor.md), through the gateway on each engine:
// a tool made on an executable the test ships (test/fixtures/tools) and an app on it launched, its
// file input staged with the caller's permissions, its outputs and `logs/` (stdout, stderr, exit
// status) in the result folder, each step with its own status and updates; a parameter value full
// of shell metacharacters arriving as one argument, byte for byte; a failing program's exit status
// as the failure reason, with its partial output and logs kept; a stop killing the step's whole
// process tree, a detached grandchild included; the wall-clock, CPU-time, memory and output-size
// limits each failing the step with that limit named; no network and nothing of the host outside
// the step's directory; nothing running that neither TOOL_EXECUTABLES_ALLOW nor an administrator
// allowed, and an administrator's approval undone by the owner's later change of the program.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../support/fileio.js';
import { engines, skipWithout } from '../../support/postgres.js';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../support/metadata-gateway.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/tools');
const tricky = `a b; rm -rf / $(id) \`id\` 'q' "x" | & > * ~ $HOME \\ \n end`;

/** The command lines of this host's processes that carry `marker`. */
const processesWith = (marker: string) =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    });

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
    before(async () => {
      closedPort = createServer((socket) => socket.end('hello'));
      await new Promise<void>((resolve) => closedPort.listen(0, '127.0.0.1', resolve));
      gw = (await startMetadataGateway({
        engine,
        env: {
          TOOL_EXECUTABLES_ALLOW: `${fixtures}/report.sh,${fixtures}/upper.sh,${fixtures}/fail.sh,${fixtures}/sleepy.sh,${fixtures}/busy.sh,${fixtures}/hog.sh,${fixtures}/flood.sh,${fixtures}/probe.sh`,
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
    });

    /** A tool of `owner` on a fixture script, and an app on it with `parameters`; the app's launch keys by parameter name. */
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
          .map((parameter: any) => [parameter.name, parameter.id]),
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
    const listed = async (owner: string, id: string) =>
      (
        await gw.ok(
          owner,
          'GET',
          `/analyses?filter=${encodeURIComponent(JSON.stringify([{ field: 'id', value: id }]))}`,
        )
      ).analyses[0];
    const finished = (owner: string, id: string) =>
      eventually(
        async () => {
          const row = await listed(owner, id);
          return ['Completed', 'Failed', 'Canceled'].includes(row?.status) ? row : undefined;
        },
        30_000,
        `analysis ${id} to end`,
      );
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
      const { app, keys } = await toolApp('alice', 'report.sh', [
        { type: 'FileInput', name: '--in', label: 'Lines', order: 1, required: true },
        { type: 'Text', name: '--label', label: 'Label', order: 2 },
        { type: 'FileOutput', name: '-o', label: 'Report', order: 3, defaultValue: 'report.txt' },
      ]);
      const launched = await launch('alice', app, {
        [keys['--in']!]: `${gw.home('alice')}/lines.txt`,
        [keys['--label']!]: tricky,
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
      const { app, keys } = await toolApp('alice', 'report.sh', [
        { type: 'FileInput', name: '--in', order: 1, required: true },
        { type: 'FileOutput', name: '-o', order: 2, defaultValue: 'report.txt' },
      ]);
      const launched = await launch('alice', app, {
        [keys['--in']!]: `${gw.home('bob')}/private.txt`,
      });
      const { message } = await failureOf('alice', launched.id);
      assert.match(message, /cannot read/);
    });

    test('a failing program: its exit status the reason, its partial output and logs kept', async () => {
      const { app } = await toolApp('alice', 'fail.sh', []);
      const launched = await launch('alice', app, {});
      const { done, message } = await failureOf('alice', launched.id);
      assert.match(message, /exited with status 3/);
      const folder = done.resultfolderid as string;
      assert.equal(await download('alice', `${folder}/partial.txt`), 'partial\n');
      assert.equal(await download('alice', `${folder}/logs/step-1-stderr.txt`), 'cannot go on\n');
      const notices = await gw.ok('alice', 'GET', '/notifications/messages?limit=100');
      assert.ok(
        notices.messages.some(
          (notice: any) =>
            notice.payload?.id === launched.id && /exited with status 3/.test(notice.message?.text),
        ),
        'the failure reason is in the notification',
      );
    });

    test("a stop kills the step's whole process tree, a detached grandchild included", async () => {
      const marker = `marker-${process.pid}-${Date.now()}`;
      const { app, keys } = await toolApp('alice', 'sleepy.sh', [
        { type: 'Text', name: '', label: 'Marker', order: 1 },
      ]);
      const key = Object.values(keys)[0]!;
      const launched = await launch('alice', app, { [key]: marker });
      await eventually(() => processesWith(marker).length >= 2, 10_000, 'the step to start');
      const stopped = await gw.ok('alice', 'POST', `/analyses/${launched.id}/stop`);
      assert.equal(stopped.status, 'Canceled');
      await eventually(() => processesWith(marker).length === 0, 10_000, 'the tree to die');
      const steps = await gw.ok('alice', 'GET', `/analyses/${launched.id}/steps`);
      assert.equal(steps.steps[0].status, 'Canceled');
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

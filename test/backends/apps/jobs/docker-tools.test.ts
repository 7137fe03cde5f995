// Image tools on the Docker engine through the gateway (JOB_EXECUTOR=docker, DOCKER_REGISTRY; issue
// 44; docs/executor.md "Docker"), on each database engine: a tool created the way the web UI's tool
// form creates it, its container naming an image by name and tag (`platform/busybox:1` in the
// loopback registry of scripts/job-engines/docker.sh), approved by an administrator, and an app on
// it launched: its file input staged, the step run in a container of that image held to the memory
// and CPUs the submission's requirements ask (less than the tool's), its output file and its logs
// (stdout, stderr, exit status) in the result folder, the CPU seconds its container's cgroup
// counted kept on the step for cpu.hours. A tool whose image cannot be pulled ends its analysis
// Failed at once, naming the image and Docker's reason. An interactive image tool serves from its
// container on the platform's port, reached through the VICE proxy; a pipeline of two image tools
// passes the first's output to the second. And the same image tool on Slurm, in a container on the
// node. In CI these fail when Docker (or Slurm) cannot run; elsewhere they skip with the reason.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { endedAnalysis } from '../../../support/analyses.ts';
import { eventually } from '../../../support/fileio.ts';
import {
  skipWithoutDocker,
  testImageName,
  testImageTag,
  testRegistry,
} from '../../../support/docker.ts';
import { engines, skipWithout } from '../../../support/postgres.ts';
import { skipWithoutSlurm } from '../../../support/slurm.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../../support/metadata-gateway.ts';

/**
 * A tool as the UI's tool form sends it (its container naming `image`, `/bin/sh` its entry point),
 * approved by an administrator, and an app of alice's on it with a Script (`-c`) parameter and,
 * unless `interactive`, a Lines file input; answers the app and its parameters' ids by label.
 */
async function imageToolApp(
  gw: MetadataGateway,
  image: { name: string; tag: string },
  interactive = false,
): Promise<{ app: { id: string }; keys: Record<string, string> }> {
  const tool = await gw.ok('alice', 'POST', '/tools', {
    json: {
      name: `${interactive ? 'server' : 'counter'} ${Math.random()}`,
      description: interactive ? 'serves' : 'counts lines',
      version: '1',
      type: interactive ? 'interactive' : 'executable',
      interactive,
      container: {
        image: { ...image, url: '', osg_image_path: '' },
        entrypoint: '/bin/sh',
        network_mode: '',
        skip_tmp_mount: false,
        max_cpu_cores: 1,
        memory_limit: 64 * 1024 * 1024,
      },
    },
  });
  await gw.ok(admin, 'PATCH', `/admin/tools/${tool.id}`, { json: {} });
  const app = await gw.ok('alice', 'POST', '/apps/de', {
    json: {
      name: `${interactive ? 'serve' : 'count lines'} ${Math.random()}`,
      tools: [{ id: tool.id }],
      groups: [
        {
          label: 'Parameters',
          parameters: [
            { type: 'Text', name: '-c', label: 'Script', order: 1 },
            ...(interactive
              ? []
              : [{ type: 'FileInput', name: '', label: 'Lines', order: 2, required: true }]),
          ],
        },
      ],
    },
  });
  const view = await gw.ok('alice', 'GET', `/apps/de/${app.id}`);
  const keys = Object.fromEntries(
    view.groups
      .flatMap((group: any) => group.parameters)
      .map((parameter: any) => [parameter.label, parameter.id]),
  ) as Record<string, string>;
  return { app, keys };
}

for (const engine of engines) {
  describe(
    `image tools on Docker (${engine})`,
    { skip: skipWithout(engine) || skipWithoutDocker() },
    () => {
      let gw: MetadataGateway;
      before(async () => {
        gw = (await startMetadataGateway({
          engine,
          env: { JOB_EXECUTOR: 'docker', DOCKER_REGISTRY: testRegistry, TOOL_MEMORY_MB: '256' },
        }))!;
        for (const name of ['alice', admin])
          await gw.ok(name, 'GET', '/subjects?search=nobody-matches-this');
      });
      after(async () => gw?.close());

      const imageTool = (image: { name: string; tag: string }) => imageToolApp(gw, image);
      const download = async (file: string) => {
        const answer = await gw.call(
          'alice',
          'GET',
          `/secured/fileio/download?path=${encodeURIComponent(file)}`,
        );
        assert.equal(answer.status, 200, `${file}: ${answer.text}`);
        return answer.text;
      };

      test('an image tool pulled by name runs in a container, its output and logs in the data store', async () => {
        await gw.upload('alice', gw.home('alice'), 'lines.txt', 'one\ntwo\nthree\n');
        const { app, keys } = await imageTool({ name: testImageName, tag: testImageTag });
        const launched = await gw.ok('alice', 'POST', '/analyses', {
          json: {
            system_id: 'de',
            app_id: app.id,
            name: 'count on docker',
            output_dir: gw.home('alice'),
            // Less than the tool's 64 MiB and 1 CPU: the submission's ask holds.
            requirements: [{ step_number: 1, memory_limit: 32 * 1024 * 1024, max_cpu_cores: 0.5 }],
            config: {
              [keys.Script!]:
                'wc -l < "$0" > count.txt; echo "made count.txt as $(id -un)"; echo a warning >&2; ' +
                'cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/memory.max > .memory 2>/dev/null; ' +
                'cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu.max > .cpus 2>/dev/null; true',
              [keys.Lines!]: `${gw.home('alice')}/lines.txt`,
            },
          },
        });
        const done = await endedAnalysis(gw, 'alice', launched.id);
        assert.equal(done.status, 'Completed', JSON.stringify(done));
        const folder = done.resultfolderid as string;
        assert.equal((await download(`${folder}/count.txt`)).trim(), '3');
        assert.equal((await download(`${folder}/.memory`)).trim(), String(32 * 1024 * 1024));
        assert.match((await download(`${folder}/.cpus`)).trim(), /^50000( 100000)?$/);
        assert.equal(
          await download(`${folder}/logs/step-1-stdout.txt`),
          'made count.txt as nobody\n',
        );
        assert.equal(await download(`${folder}/logs/step-1-stderr.txt`), 'a warning\n');
        const status = JSON.parse(await download(`${folder}/logs/step-1-exit-status.json`));
        assert.equal(status.state, 'completed');
        // The container's CPU time, from its cgroup, kept for the analysis's cpu.hours.
        const step = await gw.running.gateway.store.db
          .selectFrom('analysis_steps')
          .select('cpu_seconds')
          .where('analysis_id', '=', launched.id)
          .executeTakeFirstOrThrow();
        assert.equal(step.cpu_seconds, status.cpuSeconds);
        assert.ok(step.cpu_seconds! > 0, String(step.cpu_seconds));
      });

      test("an interactive image tool: a container serving on the platform's port, reached through the VICE proxy until stopped", async () => {
        const { app, keys } = await imageToolApp(
          gw,
          { name: testImageName, tag: testImageTag },
          true,
        );
        const script = keys.Script!;
        const marker = `docker-vice-${process.pid}-${Date.now()}`;
        const launched = await gw.ok('alice', 'POST', '/analyses', {
          json: {
            system_id: 'de',
            app_id: app.id,
            name: 'serve on docker',
            output_dir: gw.home('alice'),
            config: {
              [script]: `echo ${marker} > index.html; exec httpd -f -p 127.0.0.1:$PORT -h /work`,
            },
          },
        });
        const { externalID: host } = await gw.ok(
          'alice',
          'GET',
          `/vice/analyses/${launched.id}/external-id`,
        );
        const page = await eventually(
          async () => {
            const response = await gw.call('alice', 'GET', `/vice/${host}/index.html`);
            return response.status === 200 ? response.text : undefined;
          },
          20_000,
          'the proxy to reach the container',
        );
        assert.equal(page, `${marker}\n`);
        await gw.ok('alice', 'POST', `/analyses/${launched.id}/stop`);
        const done = await endedAnalysis(gw, 'alice', launched.id);
        assert.equal(done.status, 'Canceled');
        assert.equal((await gw.call('alice', 'GET', `/vice/${host}/index.html`)).status, 404);
      });

      test("a pipeline of two image tools: the second step's container reads the first's output", async () => {
        /** An app running `sh -c <script> <file>` in the test image, its file parameter `file`. */
        const shApp = async (label: string, file: Record<string, unknown>) => {
          const tool = await gw.ok('alice', 'POST', '/tools', {
            json: {
              name: `${label} ${Math.random()}`,
              version: '1',
              type: 'executable',
              container: {
                image: { name: testImageName, tag: testImageTag, url: '', osg_image_path: '' },
                entrypoint: '/bin/sh',
              },
            },
          });
          await gw.ok(admin, 'PATCH', `/admin/tools/${tool.id}`, { json: {} });
          const app = await gw.ok('alice', 'POST', '/apps/de', {
            json: {
              name: `${label} ${Math.random()}`,
              tools: [{ id: tool.id }],
              groups: [
                {
                  label: 'Parameters',
                  parameters: [
                    { type: 'Text', name: '-c', label, order: 1 },
                    { order: 2, ...file },
                  ],
                },
              ],
            },
          });
          return (await gw.ok('alice', 'GET', `/apps/de/${app.id}/tasks`)).tasks[0];
        };
        const make = await shApp('Make', {
          type: 'FileOutput',
          name: '',
          label: 'Made',
          defaultValue: 'made.txt',
        });
        const count = await shApp('Count', {
          type: 'FileInput',
          name: '',
          label: 'Counted',
          required: true,
        });
        const made = make.outputs.find((output: any) => output.label === 'Made').id;
        const counted = count.inputs.find((input: any) => input.label === 'Counted').id;
        const pipeline = await gw.ok('alice', 'POST', '/apps/pipelines', {
          json: {
            name: `make then count in docker ${engine}`,
            description: 'two image tools',
            steps: [
              { name: 'make', description: '', task_id: make.id, app_type: 'DE' },
              { name: 'count', description: '', task_id: count.id, app_type: 'DE' },
            ],
            mappings: [{ source_step: 0, target_step: 1, map: { [counted]: made } }],
          },
        });
        const view = await gw.ok('alice', 'GET', `/apps/de/${pipeline.id}`);
        const keys = Object.fromEntries(
          view.groups
            .flatMap((group: any) => group.parameters)
            .map((parameter: any) => [parameter.label, parameter.id]),
        );
        const launched = await gw.ok('alice', 'POST', '/analyses', {
          json: {
            system_id: 'de',
            app_id: pipeline.id,
            name: 'piped through docker',
            output_dir: gw.home('alice'),
            config: {
              [keys.Make]: 'printf "one\\ntwo\\nthree\\n" > "$0"',
              [keys.Count]: 'wc -l < "$0" > count.txt',
            },
          },
        });
        const done = await endedAnalysis(gw, 'alice', launched.id);
        assert.equal(done.status, 'Completed', JSON.stringify(done));
        const folder = done.resultfolderid as string;
        assert.equal(await download(`${folder}/made.txt`), 'one\ntwo\nthree\n');
        assert.equal((await download(`${folder}/count.txt`)).trim(), '3');
      });

      test('an image that cannot be pulled fails the analysis at once, naming it and why', async () => {
        await gw.upload('alice', gw.home('alice'), 'few.txt', 'one\n');
        const { app, keys } = await imageTool({ name: 'platform/missing', tag: '7' });
        const launched = await gw.ok('alice', 'POST', '/analyses', {
          json: {
            system_id: 'de',
            app_id: app.id,
            name: 'missing image',
            output_dir: gw.home('alice'),
            config: { [keys.Script!]: 'true', [keys.Lines!]: `${gw.home('alice')}/few.txt` },
          },
        });
        const done = await endedAnalysis(gw, 'alice', launched.id, 10_000);
        assert.equal(done.status, 'Failed');
        const history = await gw.ok('alice', 'GET', `/analyses/${launched.id}/history`);
        assert.match(
          history.steps[0].updates.at(-1).message,
          /its image 127\.0\.0\.1:5000\/platform\/missing:7 could not be pulled: .*manifest unknown/,
        );
      });
    },
  );
}

// The same image tool on Slurm (JOB_EXECUTOR=slurm with CONTAINER_RUNTIME=docker): its step a
// Slurm job whose node runner runs the container on the node's Docker.
for (const engine of engines) {
  describe(
    `image tools on Slurm, in Docker on the node (${engine})`,
    { skip: skipWithout(engine) || skipWithoutDocker() || skipWithoutSlurm() },
    () => {
      let gw: MetadataGateway;
      before(async () => {
        gw = (await startMetadataGateway({
          engine,
          env: {
            JOB_EXECUTOR: 'slurm',
            CONTAINER_RUNTIME: 'docker',
            DOCKER_REGISTRY: testRegistry,
            SLURM_PARTITION: 'debug',
            SLURM_POLL_MS: '100',
            TOOL_WALL_CLOCK_SECONDS: '60',
            TOOL_MEMORY_MB: '256',
          },
        }))!;
        for (const name of ['alice', admin])
          await gw.ok(name, 'GET', '/subjects?search=nobody-matches-this');
      });
      after(async () => gw?.close());

      test('an image tool pulled by name runs in a container on the node; its output and logs in the data store', async () => {
        await gw.upload('alice', gw.home('alice'), 'lines.txt', 'one\ntwo\n');
        const { app, keys } = await imageToolApp(gw, { name: testImageName, tag: testImageTag });
        const [script, lines] = [keys.Script!, keys.Lines!];
        const launched = await gw.ok('alice', 'POST', '/analyses', {
          json: {
            system_id: 'de',
            app_id: app.id,
            name: 'count on slurm in docker',
            output_dir: gw.home('alice'),
            config: {
              [script]: 'wc -l < "$0" > count.txt; echo "in $(cat /etc/hostname) as $(id -un)"',
              [lines]: `${gw.home('alice')}/lines.txt`,
            },
          },
        });
        const done = await endedAnalysis(gw, 'alice', launched.id);
        assert.equal(done.status, 'Completed', JSON.stringify(done));
        const folder = done.resultfolderid as string;
        const read = async (file: string) =>
          (
            await gw.call(
              'alice',
              'GET',
              `/secured/fileio/download?path=${encodeURIComponent(`${folder}/${file}`)}`,
            )
          ).text;
        assert.equal((await read('count.txt')).trim(), '2');
        assert.match(await read('logs/step-1-stdout.txt'), /^in \S+ as nobody\n$/);
        // The step was a Slurm job (scontrol still knows it), and its handle that job's id.
        const step = await gw.running.gateway.store.db
          .selectFrom('analysis_steps')
          .select('engine_handle')
          .where('analysis_id', '=', launched.id)
          .executeTakeFirstOrThrow();
        const job = execFileSync('scontrol', ['show', 'job', '-o', step.engine_handle!], {
          encoding: 'utf8',
        });
        assert.match(job, /JobState=COMPLETED/);
      });
    },
  );
}

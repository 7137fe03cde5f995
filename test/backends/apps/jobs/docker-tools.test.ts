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
import {
  skipWithoutDocker,
  testImageName,
  testImageTag,
  testRegistry,
} from '../../../support/docker.ts';
import { engines, skipWithout } from '../../../support/postgres.ts';
import { skipWithoutSlurm } from '../../../support/slurm.ts';
import { admin, type MetadataGateway } from '../../../support/metadata-gateway.ts';
import {
  appOnTool,
  download,
  firstTask,
  launch,
  launchKeys,
  startEngineGateway,
  storedStep,
  throughViceProxy,
  twoStepPipeline,
} from '../../../support/engine-tools.ts';

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
  const app = await appOnTool(
    gw,
    `${interactive ? 'serve' : 'count lines'} ${Math.random()}`,
    tool.id,
    [
      { type: 'Text', name: '-c', label: 'Script', order: 1 },
      ...(interactive
        ? []
        : [{ type: 'FileInput', name: '', label: 'Lines', order: 2, required: true }]),
    ],
  );
  return { app, keys: await launchKeys(gw, app.id) };
}

for (const engine of engines) {
  describe(
    `image tools on Docker (${engine})`,
    { skip: skipWithout(engine) || skipWithoutDocker() },
    () => {
      let gw: MetadataGateway;
      before(async () => {
        gw = await startEngineGateway(engine, {
          JOB_EXECUTOR: 'docker',
          DOCKER_REGISTRY: testRegistry,
          TOOL_MEMORY_MB: '256',
        });
      });
      after(async () => gw?.close());

      test('an image tool pulled by name runs in a container, its output and logs in the data store', async () => {
        await gw.upload('alice', gw.home('alice'), 'lines.txt', 'one\ntwo\nthree\n');
        const { app, keys } = await imageToolApp(gw, { name: testImageName, tag: testImageTag });
        const launched = await launch(
          gw,
          app,
          'count on docker',
          {
            [keys.Script!]:
              'wc -l < "$0" > count.txt; echo "made count.txt as $(id -un)"; echo a warning >&2; ' +
              'cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/memory.max > .memory 2>/dev/null; ' +
              'cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu.max > .cpus 2>/dev/null; true',
            [keys.Lines!]: `${gw.home('alice')}/lines.txt`,
          },
          // Less than the tool's 64 MiB and 1 CPU: the submission's ask holds.
          {
            requirements: [{ step_number: 1, memory_limit: 32 * 1024 * 1024, max_cpu_cores: 0.5 }],
          },
        );
        const done = await endedAnalysis(gw, 'alice', launched.id);
        assert.equal(done.status, 'Completed', JSON.stringify(done));
        const folder = done.resultfolderid as string;
        assert.equal((await download(gw, `${folder}/count.txt`)).trim(), '3');
        assert.equal((await download(gw, `${folder}/.memory`)).trim(), String(32 * 1024 * 1024));
        assert.match((await download(gw, `${folder}/.cpus`)).trim(), /^50000( 100000)?$/);
        assert.equal(
          await download(gw, `${folder}/logs/step-1-stdout.txt`),
          'made count.txt as nobody\n',
        );
        assert.equal(await download(gw, `${folder}/logs/step-1-stderr.txt`), 'a warning\n');
        const status = JSON.parse(await download(gw, `${folder}/logs/step-1-exit-status.json`));
        assert.equal(status.state, 'completed');
        // The container's CPU time, from its cgroup, kept for the analysis's cpu.hours.
        const step = await storedStep(gw, launched.id);
        assert.equal(step.cpu_seconds, status.cpuSeconds);
        assert.ok(step.cpu_seconds! > 0, String(step.cpu_seconds));
      });

      test("an interactive image tool: a container serving on the platform's port, reached through the VICE proxy until stopped", async () => {
        const { app, keys } = await imageToolApp(
          gw,
          { name: testImageName, tag: testImageTag },
          true,
        );
        const marker = `docker-vice-${process.pid}-${Date.now()}`;
        const launched = await launch(gw, app, 'serve on docker', {
          [keys.Script!]: `echo ${marker} > index.html; exec httpd -f -p 127.0.0.1:$PORT -h /work`,
        });
        const { host, text: page } = await throughViceProxy(
          gw,
          launched.id,
          '/index.html',
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
          const app = await appOnTool(gw, `${label} ${Math.random()}`, tool.id, [
            { type: 'Text', name: '-c', label, order: 1 },
            { order: 2, ...file },
          ]);
          return firstTask(gw, app);
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
        const { pipeline, keys } = await twoStepPipeline(
          gw,
          { name: `make then count in docker ${engine}`, description: 'two image tools' },
          { step: 'make', task: make, label: 'Made' },
          { step: 'count', task: count, label: 'Counted' },
        );
        const launched = await launch(gw, pipeline, 'piped through docker', {
          [keys.Make!]: 'printf "one\\ntwo\\nthree\\n" > "$0"',
          [keys.Count!]: 'wc -l < "$0" > count.txt',
        });
        const done = await endedAnalysis(gw, 'alice', launched.id);
        assert.equal(done.status, 'Completed', JSON.stringify(done));
        const folder = done.resultfolderid as string;
        assert.equal(await download(gw, `${folder}/made.txt`), 'one\ntwo\nthree\n');
        assert.equal((await download(gw, `${folder}/count.txt`)).trim(), '3');
      });

      test('an image that cannot be pulled fails the analysis at once, naming it and why', async () => {
        await gw.upload('alice', gw.home('alice'), 'few.txt', 'one\n');
        const { app, keys } = await imageToolApp(gw, { name: 'platform/missing', tag: '7' });
        const launched = await launch(gw, app, 'missing image', {
          [keys.Script!]: 'true',
          [keys.Lines!]: `${gw.home('alice')}/few.txt`,
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
        gw = await startEngineGateway(engine, {
          JOB_EXECUTOR: 'slurm',
          CONTAINER_RUNTIME: 'docker',
          DOCKER_REGISTRY: testRegistry,
          SLURM_PARTITION: 'debug',
          SLURM_POLL_MS: '100',
          TOOL_WALL_CLOCK_SECONDS: '60',
          TOOL_MEMORY_MB: '256',
        });
      });
      after(async () => gw?.close());

      test('an image tool pulled by name runs in a container on the node; its output and logs in the data store', async () => {
        await gw.upload('alice', gw.home('alice'), 'lines.txt', 'one\ntwo\n');
        const { app, keys } = await imageToolApp(gw, { name: testImageName, tag: testImageTag });
        const launched = await launch(gw, app, 'count on slurm in docker', {
          [keys.Script!]: 'wc -l < "$0" > count.txt; echo "in $(cat /etc/hostname) as $(id -un)"',
          [keys.Lines!]: `${gw.home('alice')}/lines.txt`,
        });
        const done = await endedAnalysis(gw, 'alice', launched.id);
        assert.equal(done.status, 'Completed', JSON.stringify(done));
        const folder = done.resultfolderid as string;
        assert.equal((await download(gw, `${folder}/count.txt`)).trim(), '2');
        assert.match(
          await download(gw, `${folder}/logs/step-1-stdout.txt`),
          /^in \S+ as nobody\n$/,
        );
        // The step was a Slurm job (scontrol still knows it), and its handle that job's id.
        const step = await storedStep(gw, launched.id);
        const job = execFileSync('scontrol', ['show', 'job', '-o', step.engine_handle!], {
          encoding: 'utf8',
        });
        assert.match(job, /JobState=COMPLETED/);
      });
    },
  );
}

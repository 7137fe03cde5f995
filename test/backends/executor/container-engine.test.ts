// The container engine's command line (JOB_EXECUTOR=docker, CONTAINER_RUNTIME=docker|podman; its
// runs against a real engine are docker-engine.test.ts): the `create` command line a step gets — no
// network (the host's, for an interactive step to listen on its loopback port), a read-only root,
// the given user, no capabilities, the memory, CPUs, processes, CPU-time and file-size limits, the
// working directory at /work and the mounts read-only, only the given environment, the program as
// entrypoint with its arguments unsplit —, image names looked for in the configured registry, and
// the engine saying why it cannot run steps where the runtime is missing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  containerArgs,
  createContainerEngine,
  imageReference,
} from '../../../src/backends/executor/index.ts';

const command = {
  argv: ['samtools', 'view', 'a b; $(id)'],
  workDir: '/srv/steps/1/work',
  logDir: '/srv/steps/1/logs',
  mounts: [{ host: '/srv/steps/1/inputs', sandbox: '/inputs' }],
  containerImage: 'quay.io/biocontainers/samtools:1.19',
  env: { MODE: 'fast' },
  limits: {
    wallClockSeconds: 60,
    cpuSeconds: 30,
    memoryBytes: 64 << 20,
    outputBytes: 1 << 20,
    cpus: 1.5,
    processes: 64,
  },
};

/** The value after each occurrence of `flag`. */
const valuesOf = (args: string[], flag: string) =>
  args.flatMap((arg, index) => (arg === flag ? [args[index + 1]] : []));

test('a batch step: sandboxed like the local engine, limits as the runtime takes them', () => {
  const args = containerArgs(command, 'platform-step-1', { user: '65534:65534' });
  assert.equal(args[0], 'create');
  assert.deepEqual(valuesOf(args, '--network'), ['none']);
  assert.ok(args.includes('--read-only'));
  assert.deepEqual(valuesOf(args, '--user'), ['65534:65534']);
  assert.deepEqual(valuesOf(args, '--cap-drop'), ['ALL']);
  assert.deepEqual(valuesOf(args, '--memory'), [String(64 << 20)]);
  assert.deepEqual(valuesOf(args, '--cpus'), ['1.5']);
  assert.deepEqual(valuesOf(args, '--pids-limit'), ['64']);
  assert.deepEqual(valuesOf(args, '--ulimit'), ['cpu=30:31', `fsize=${1 << 20}`, 'core=0']);
  assert.deepEqual(valuesOf(args, '--volume'), [
    '/srv/steps/1/work:/work:rw',
    '/srv/steps/1/inputs:/inputs:ro',
  ]);
  assert.deepEqual(valuesOf(args, '--workdir'), ['/work']);
  assert.deepEqual(valuesOf(args, '--env').sort(), [
    'HOME=/work',
    'MODE=fast',
    'PATH=/usr/local/bin:/usr/bin:/bin',
  ]);
  // The image, then the arguments, each one argv entry: no shell anywhere.
  assert.deepEqual(args.slice(-5), [
    '--entrypoint',
    'samtools',
    'quay.io/biocontainers/samtools:1.19',
    'view',
    'a b; $(id)',
  ]);
  assert.ok(!args.includes('--publish'));
});

test("an interactive step shares the host's network to listen on its loopback port, PORT", () => {
  const args = containerArgs(command, 'platform-step-2', { user: '1000:1000', port: 40123 });
  assert.deepEqual(valuesOf(args, '--network'), ['host']);
  assert.deepEqual(valuesOf(args, '--user'), ['1000:1000']);
  assert.ok(valuesOf(args, '--env').includes('PORT=40123'));
});

test('an image name naming no registry is looked for in the configured one', () => {
  assert.equal(
    imageReference('platform/busybox:1', '127.0.0.1:5000'),
    '127.0.0.1:5000/platform/busybox:1',
  );
  assert.equal(
    imageReference('busybox:1', 'registry.example.org/lab/'),
    'registry.example.org/lab/busybox:1',
  );
  assert.equal(
    imageReference('quay.io/biocontainers/samtools:1.19', '127.0.0.1:5000'),
    'quay.io/biocontainers/samtools:1.19',
  );
  assert.equal(imageReference('localhost/x:1', '127.0.0.1:5000'), 'localhost/x:1');
  assert.equal(imageReference('platform/busybox:1'), 'platform/busybox:1');
});

test('where the runtime cannot run, the engine says so and a step fails with that reason', async () => {
  const engine = createContainerEngine({
    runtime: 'podman',
    log: { warn: () => undefined },
  });
  const available = await engine.available();
  assert.equal(available.ok, false);
  assert.match((available as { reason: string }).reason, /podman is not installed|does not run/);
  await engine.close();
});

// The container runtime engine (CONTAINER_RUNTIME=docker|podman), which this machine cannot run (no
// container engine runs here: docs/executor.md): the `run` command line a step gets — no network
// (or only its port on 127.0.0.1 when interactive), a read-only root, nobody, no capabilities, the
// memory, CPU-time and file-size limits, the working directory at /work and the mounts read-only,
// only the given environment, the program as entrypoint with its arguments unsplit — and the
// engine saying why it cannot run steps where the runtime's engine is unreachable.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { containerArgs, createContainerEngine } from '../../../src/backends/executor/index.ts';

const command = {
  argv: ['samtools', 'view', 'a b; $(id)'],
  workDir: '/srv/steps/1/work',
  logDir: '/srv/steps/1/logs',
  mounts: [{ host: '/srv/steps/1/inputs', sandbox: '/inputs' }],
  containerImage: 'quay.io/biocontainers/samtools:1.19',
  env: { MODE: 'fast' },
  limits: { wallClockSeconds: 60, cpuSeconds: 30, memoryBytes: 64 << 20, outputBytes: 1 << 20 },
};

/** The value after each occurrence of `flag`. */
const valuesOf = (args: string[], flag: string) =>
  args.flatMap((arg, index) => (arg === flag ? [args[index + 1]] : []));

test('a batch step: sandboxed like the local engine, limits as the runtime takes them', () => {
  const args = containerArgs(command, 'platform-step-1');
  assert.equal(args[0], 'run');
  assert.deepEqual(valuesOf(args, '--network'), ['none']);
  assert.ok(args.includes('--read-only'));
  assert.deepEqual(valuesOf(args, '--user'), ['65534:65534']);
  assert.deepEqual(valuesOf(args, '--cap-drop'), ['ALL']);
  assert.deepEqual(valuesOf(args, '--memory'), [String(64 << 20)]);
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

test('an interactive step publishes only its port, on 127.0.0.1, and gets PORT', () => {
  const args = containerArgs(command, 'platform-step-2', 40123);
  assert.deepEqual(valuesOf(args, '--network'), []);
  assert.deepEqual(valuesOf(args, '--publish'), ['127.0.0.1:40123:40123']);
  assert.ok(valuesOf(args, '--env').includes('PORT=40123'));
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

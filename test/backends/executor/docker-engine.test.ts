// The container engine on a real Docker engine (JOB_EXECUTOR=docker; docs/executor.md "Docker"),
// with dockerd and the loopback registry of scripts/job-engines/docker.sh: an image named without
// its registry is pulled by name from the configured one when absent; the step runs detached (its
// container named to `tracking.submitted`) as an unprivileged user, with no network, a read-only
// root and its working directory at /work, its output kept in the log directory and its CPU time
// taken from its cgroup; a memory breach ends it failed with `memory`, its wall clock with
// `wall-clock`; a stop kills its container; an interactive step serves on its loopback port; an image that cannot be pulled fails the step at once
// naming the image and Docker's reason; and a second engine (a restarted gateway) given the
// container's name follows a step the first one started, after that one's process was killed.
// In CI these fail when Docker cannot run; elsewhere they skip with the reason.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import {
  createContainerEngine,
  type ExecutionEngine,
  type StepCommand,
  type StepLimits,
} from '../../../src/backends/executor/index.ts';
import {
  docker,
  skipWithoutDocker,
  testImage,
  testImageName,
  testImageTag,
  testRegistry,
} from '../../support/docker.ts';

const MiB = 1024 * 1024;
const limits: StepLimits = {
  wallClockSeconds: 20,
  cpuSeconds: 10,
  memoryBytes: 64 * MiB,
  outputBytes: 4 * MiB,
  cpus: 1,
  processes: 32,
};

describe('the container engine on Docker', { skip: skipWithoutDocker() }, () => {
  let root: string;
  let engine: ExecutionEngine;
  let count = 0;

  /** A step of the test image (named without its registry), in folders of its own. */
  const step = async (argv: string[], changes: Partial<StepCommand> = {}) => {
    const dir = join(root, `step-${++count}`);
    await mkdir(join(dir, 'work'), { recursive: true });
    return {
      argv,
      workDir: join(dir, 'work'),
      logDir: join(dir, 'logs'),
      containerImage: `${testImageName}:${testImageTag}`,
      limits,
      ...changes,
    } satisfies StepCommand;
  };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'docker-engine-'));
    engine = createContainerEngine({
      runtime: 'docker',
      registry: testRegistry,
      log: pino({ level: 'silent' }),
      pollMs: 100,
    });
  });
  after(async () => {
    await engine?.close();
    await rm(root, { recursive: true, force: true });
  });

  test('pulled by name, run as nobody with no network and a read-only root, output kept', async () => {
    docker(['image', 'rm', '--force', testImage]);
    const command = await step([
      '/bin/sh',
      '-c',
      // Some CPU time to account for, then what the container sees.
      'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; id -u > /work/uid; ' +
        'grep -c : /proc/net/dev > /work/interfaces; ' +
        'touch /root-file 2>/dev/null && echo writable > /work/root || echo read-only > /work/root; ' +
        // Its cgroup's limits, as cgroup v1 (here) or v2 shows them inside.
        'cat /sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/pids.max > /work/pids 2>/dev/null; ' +
        'cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu.max > /work/cpus 2>/dev/null; ' +
        'echo "a b; $(id -un)"; echo oops >&2; exit 3',
    ]);
    const names: string[] = [];
    const outcome = await engine.run(command, new AbortController().signal, {
      submitted: (name) => void names.push(name),
    });
    assert.equal(outcome.state, 'failed', outcome.reason);
    assert.equal(outcome.reason, 'exited with status 3');
    assert.equal(docker(['image', 'inspect', testImage]).code, 0, 'pulled');
    assert.equal((await readFile(join(command.workDir, 'uid'), 'utf8')).trim(), '65534');
    // /proc/net/dev lists only lo.
    assert.equal((await readFile(join(command.workDir, 'interfaces'), 'utf8')).trim(), '1');
    assert.equal((await readFile(join(command.workDir, 'root'), 'utf8')).trim(), 'read-only');
    assert.equal((await readFile(join(command.workDir, 'pids'), 'utf8')).trim(), '32');
    // One CPU: 100 ms of every 100 ms period.
    assert.match(
      (await readFile(join(command.workDir, 'cpus'), 'utf8')).trim(),
      /^100000( 100000)?$/,
    );
    assert.equal(await readFile(join(command.logDir, 'stdout'), 'utf8'), 'a b; nobody\n');
    assert.equal(await readFile(join(command.logDir, 'stderr'), 'utf8'), 'oops\n');
    assert.equal(
      JSON.parse(await readFile(join(command.logDir, 'exit-status'), 'utf8')).exitCode,
      3,
    );
    assert.ok(outcome.cpuSeconds > 0, `CPU seconds from its cgroup: ${outcome.cpuSeconds}`);
    assert.equal(names.length, 1);
    assert.notEqual(docker(['inspect', names[0]!]).code, 0, 'the container is removed');
  });

  test('a memory breach is named memory, a wall clock passed wall-clock', async () => {
    const [memory, wallClock] = await Promise.all([
      engine.run(
        await step(['/bin/sh', '-c', 'tail /dev/zero'], {
          limits: { ...limits, memoryBytes: 16 * MiB },
        }),
        new AbortController().signal,
      ),
      engine.run(
        await step(['sleep', '30'], { limits: { ...limits, wallClockSeconds: 1 } }),
        new AbortController().signal,
      ),
    ]);
    assert.equal(memory.state, 'failed');
    assert.equal(memory.limit, 'memory');
    assert.equal(memory.reason, 'went over its memory limit of 16 MiB');
    assert.equal(wallClock.limit, 'wall-clock');
  });

  test('a stop kills the container', async () => {
    const abort = new AbortController();
    let name = '';
    const done = engine.run(await step(['sleep', '30']), abort.signal, {
      submitted: (handle) => void (name = handle),
    });
    while (docker(['inspect', '--format', '{{.State.Running}}', name]).stdout.trim() !== 'true')
      await new Promise((resolve) => setTimeout(resolve, 50));
    const stoppedAt = Date.now();
    abort.abort();
    const outcome = await done;
    assert.equal(outcome.state, 'stopped');
    assert.ok(Date.now() - stoppedAt < 5000);
    assert.notEqual(docker(['inspect', name]).code, 0, 'the container is gone');
  });

  test('an image that cannot be pulled fails the step at once, naming it and why', async () => {
    const command = await step(['true'], { containerImage: 'platform/no-such-image:9' });
    const outcome = await engine.run(command, new AbortController().signal);
    assert.equal(outcome.state, 'failed');
    assert.match(
      outcome.reason,
      /^could not start: its image 127\.0\.0\.1:5000\/platform\/no-such-image:9 could not be pulled: .*manifest unknown/,
    );
  });

  test("an interactive step listens on its loopback port on the host's network until stopped", async () => {
    const command = await step([
      '/bin/sh',
      '-c',
      'echo hello > /work/index.html; exec httpd -f -p 127.0.0.1:$PORT -h /work',
    ]);
    const session = await engine.startInteractive(command);
    const deadline = Date.now() + 10_000;
    while (session.status() !== 'running' && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(session.status(), 'running');
    const page = await fetch(`http://127.0.0.1:${session.port}/index.html`);
    assert.equal(await page.text(), 'hello\n');
    const outcome = await session.stop();
    assert.equal(outcome.state, 'stopped');
    assert.equal(session.status(), 'exited');
  });

  test('a second engine follows a container the first started, after its process was killed', async () => {
    const command = await step([
      '/bin/sh',
      '-c',
      'echo started; while [ ! -e /work/go ]; do sleep 0.05; done; echo done > /work/out',
    ]);
    // The first engine, in a gateway process of its own: it prints the container's name once the
    // container exists, then is killed with the step still running.
    const first = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { createContainerEngine } from ${JSON.stringify(new URL('../../../src/backends/executor/index.ts', import.meta.url).href)};
         const engine = createContainerEngine({ runtime: 'docker', registry: ${JSON.stringify(testRegistry)}, log: { warn() {} } });
         await engine.run(${JSON.stringify(command)}, new AbortController().signal, { submitted: (name) => console.log(name) });`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const name = await new Promise<string>((resolve, reject) => {
      first.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8').trim()));
      first.once('exit', () => reject(new Error('the first engine ended before naming its step')));
    });
    const status = () => docker(['inspect', '--format', '{{.State.Status}}', name]).stdout.trim();
    while (status() !== 'running') await new Promise((resolve) => setTimeout(resolve, 50));
    first.kill('SIGKILL');
    const restarted = createContainerEngine({
      runtime: 'docker',
      registry: testRegistry,
      log: pino({ level: 'silent' }),
    });
    try {
      const followed = restarted.run(command, new AbortController().signal, { attach: name });
      // The step is still running: only now is it let finish.
      assert.equal(status(), 'running');
      await mkdir(join(command.workDir, 'go'));
      const outcome = await followed;
      assert.equal(outcome.state, 'completed', outcome.reason);
      assert.equal(await readFile(join(command.workDir, 'out'), 'utf8'), 'done\n');
      assert.equal(await readFile(join(command.logDir, 'stdout'), 'utf8'), 'started\n');
      assert.notEqual(docker(['inspect', name]).code, 0, 'the container is removed');
    } finally {
      await restarted.close();
    }
  });
});

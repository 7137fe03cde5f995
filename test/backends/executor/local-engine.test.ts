// The local execution engine (src/backends/executor): a step runs under bubblewrap with its argv
// passed verbatim, sees only the system directories, its read-only tools and its own /work, has no
// network, and ends `completed`, `failed` (its status, its signal, or the limit it went over: wall
// clock, CPU time of its tree, memory, output size) or `stopped` (its whole sandbox killed,
// detached grandchildren included), with its logs and outcome written beside it. Also: a missing
// bubblewrap, close(), and interactive steps on a loopback port. Root images are in image.test.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import {
  createLocalEngine,
  type ExecutionEngine,
  type StepCommand,
  type StepLimits,
} from '../../../src/backends/executor/index.ts';

const log = pino({ level: 'silent' });
const MiB = 1024 * 1024;
const roomyLimits: StepLimits = {
  wallClockSeconds: 20,
  cpuSeconds: 10,
  memoryBytes: 512 * MiB,
  outputBytes: 16 * MiB,
};

/** Polls `condition` every 20 ms until it holds, failing after `withinMs`. */
async function waitFor(
  what: string,
  condition: () => Promise<boolean> | boolean,
  withinMs = 10_000,
) {
  const deadline = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** Host processes whose command line is exactly `argv`, with their pid and session inside their namespace. */
async function processesRunning(argv: string[]) {
  const wanted = `${argv.join('\0')}\0`;
  const found: { pid: number; nsPid: string; nsSid: string }[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if ((await readFile(`/proc/${name}/cmdline`, 'utf8')) !== wanted) continue;
      const status = await readFile(`/proc/${name}/status`, 'utf8');
      const last = (field: string) =>
        new RegExp(`^${field}:\\s+(.*)$`, 'm').exec(status)?.[1]?.split(/\s+/).pop() ?? '';
      found.push({ pid: Number(name), nsPid: last('NSpid'), nsSid: last('NSsid') });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe('local execution engine', () => {
  let root: string;
  let tools: string;
  let engine: ExecutionEngine;
  let count = 0;

  /** A fresh working directory and log directory, side by side under the test's temporary root. */
  const newStep = async () => {
    count += 1;
    const dir = join(root, `step-${count}`);
    await mkdir(join(dir, 'work'), { recursive: true });
    return { workDir: join(dir, 'work'), logDir: join(dir, 'log') };
  };

  const command = async (
    argv: string[],
    more: Partial<StepCommand> = {},
  ): Promise<StepCommand> => ({
    argv,
    ...(await newStep()),
    readOnly: [tools],
    limits: roomyLimits,
    ...more,
  });

  const run = (step: StepCommand, signal = new AbortController().signal) =>
    engine.run(step, signal);

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'executor-test-'));
    // The fixtures are copied out of the repository: under /work here, which the sandbox uses itself.
    tools = join(root, 'tools');
    await cp(join(import.meta.dirname, '../../fixtures/executor'), tools, { recursive: true });
    engine = createLocalEngine({ log, pollMs: 50 });
  });

  after(async () => {
    await engine.close();
    await rm(root, { recursive: true, force: true });
  });

  test('is available here', async () => {
    assert.deepEqual(await engine.available(), { ok: true });
    assert.equal(engine.name, 'local');
  });

  test('a step reads its input, writes its output and logs, and completes', async () => {
    const step = await command([join(tools, 'writes-output.sh')]);
    await writeFile(join(step.workDir, 'input.txt'), 'hello sandbox\n');
    const outcome = await run(step);
    assert.equal(outcome.state, 'completed');
    assert.equal(outcome.exitCode, 0);
    assert.equal(outcome.signal, null);
    assert.equal(outcome.reason, 'exited with status 0');
    assert.ok(outcome.startedAt <= outcome.endedAt);
    assert.equal(await readFile(join(step.workDir, 'output.txt'), 'utf8'), 'HELLO SANDBOX\n');
    assert.equal(await readFile(join(step.logDir, 'stdout'), 'utf8'), 'read 14 bytes\n');
    assert.equal(await readFile(join(step.logDir, 'stderr'), 'utf8'), 'a warning\n');
    const recorded = JSON.parse(await readFile(join(step.logDir, 'exit-status'), 'utf8'));
    assert.deepEqual(recorded, outcome);
  });

  test('a non-zero exit status fails the step with that status', async () => {
    const outcome = await run(await command(['/bin/sh', '-c', 'exit 3']));
    assert.equal(outcome.state, 'failed');
    assert.equal(outcome.exitCode, 3);
    assert.equal(outcome.limit, undefined);
    assert.equal(outcome.reason, 'exited with status 3');
  });

  test('a program killed by a signal fails the step with that signal', async () => {
    const outcome = await run(await command(['/bin/sh', '-c', 'kill -SEGV $$']));
    assert.equal(outcome.state, 'failed');
    assert.equal(outcome.signal, 'SIGSEGV');
    assert.equal(outcome.exitCode, null);
    assert.equal(outcome.reason, 'was killed by signal SIGSEGV');
  });

  test('a missing program is a step that could not start', async () => {
    const outcome = await run(await command(['/no/such/program']));
    assert.equal(outcome.state, 'failed');
    assert.match(outcome.reason, /^could not start: .*\/no\/such\/program/);
  });

  test('an argument with shell metacharacters arrives verbatim, as one argument', async () => {
    const value = `a b; rm -rf / $(id) 'q' "x" | & > * \`id\` \\ $HOME\nnext line`;
    const step = await command([join(tools, 'write-arg.sh'), value]);
    const outcome = await run(step);
    assert.equal(outcome.state, 'completed');
    assert.deepEqual(await readFile(join(step.workDir, 'arg.txt')), Buffer.from(value));
    assert.equal(await readFile(join(step.workDir, 'count.txt'), 'utf8'), '1');
  });

  test('the environment holds only PATH, HOME=/work, PWD and the given variables', async () => {
    const step = await command(['/usr/bin/env'], {
      env: { GREETING: 'hello world', PATH: '/bin' },
    });
    assert.equal((await run(step)).state, 'completed');
    const lines = (await readFile(join(step.logDir, 'stdout'), 'utf8')).trim().split('\n').sort();
    // PWD is bubblewrap's, set with --chdir.
    assert.deepEqual(lines, ['GREETING=hello world', 'HOME=/work', 'PATH=/bin', 'PWD=/work']);
  });

  test('stopping a step kills its whole sandbox, a detached grandchild included', async () => {
    const marker = `1000.${Date.now() % 1_000_000}`;
    const step = await command([join(tools, 'detach.sh'), marker]);
    const controller = new AbortController();
    const outcome = run(step, controller.signal);
    await waitFor(
      'the grandchild to start',
      async () => (await processesRunning(['sleep', marker])).length === 1,
    );
    const [grandchild] = await processesRunning(['sleep', marker]);
    // It is in a session of its own, and it is the one the script recorded.
    assert.equal(grandchild!.nsSid, grandchild!.nsPid);
    await waitFor('the pid file', () => exists(join(step.workDir, 'grandchild.pid')));
    assert.equal(
      (await readFile(join(step.workDir, 'grandchild.pid'), 'utf8')).trim(),
      grandchild!.nsPid,
    );

    controller.abort();
    const ended = await outcome;
    assert.equal(ended.state, 'stopped');
    assert.equal(ended.reason, 'was stopped');
    assert.equal(ended.limit, undefined);
    await waitFor(
      'the grandchild to be gone',
      async () => !(await exists(`/proc/${grandchild!.pid}`)),
    );
    assert.deepEqual(await processesRunning(['sleep', marker]), []);
    assert.equal(
      JSON.parse(await readFile(join(step.logDir, 'exit-status'), 'utf8')).state,
      'stopped',
    );
  });

  test('a step already aborted does not run', async () => {
    const step = await command(['/bin/sh', '-c', 'touch ran']);
    const controller = new AbortController();
    controller.abort();
    const outcome = await run(step, controller.signal);
    assert.equal(outcome.state, 'stopped');
    assert.equal(await exists(join(step.workDir, 'ran')), false);
  });

  test('the wall-clock limit ends a step that runs too long', async () => {
    const limits = { ...roomyLimits, wallClockSeconds: 1 };
    const outcome = await run(await command(['/bin/sleep', '30'], { limits }));
    assert.equal(outcome.state, 'failed');
    assert.equal(outcome.limit, 'wall-clock');
    assert.equal(outcome.signal, 'SIGKILL');
    assert.equal(outcome.reason, 'went over its wall-clock limit of 1 s');
    assert.ok(outcome.endedAt - outcome.startedAt >= 1000);
    assert.ok(outcome.endedAt - outcome.startedAt < 5000);
  });

  test('the CPU-time limit ends a busy process (the kernel: SIGXCPU)', async () => {
    const limits = { ...roomyLimits, cpuSeconds: 1 };
    const outcome = await run(await command(['/bin/sh', '-c', 'while :; do :; done'], { limits }));
    assert.equal(outcome.state, 'failed');
    assert.equal(outcome.limit, 'cpu-time');
    assert.equal(outcome.reason, 'went over its CPU-time limit of 1 s');
  });

  test('the CPU-time limit counts the whole process tree (the monitor)', async () => {
    // Three busy processes, none of them near the per-process limit (2 s) when together they pass 1.5 s.
    const limits = { ...roomyLimits, cpuSeconds: 1.5 };
    const busy = 'while :; do :; done';
    const argv = ['/bin/sh', '-c', `(${busy}) & (${busy}) & ${busy}`];
    const outcome = await run(await command(argv, { limits }));
    assert.equal(outcome.limit, 'cpu-time');
    assert.equal(outcome.signal, 'SIGKILL');
    assert.equal(outcome.reason, 'went over its CPU-time limit of 1.5 s');
    assert.ok(outcome.cpuSeconds > 1.5, `saw ${outcome.cpuSeconds} s`);
  });

  test('the memory limit ends a step whose resident memory grows past it', async () => {
    const limits = { ...roomyLimits, memoryBytes: 64 * MiB };
    // tail keeps the current line in memory, and /dev/zero has no line end.
    const outcome = await run(await command(['/usr/bin/tail', '/dev/zero'], { limits }));
    assert.equal(outcome.state, 'failed');
    assert.equal(outcome.limit, 'memory');
    assert.equal(outcome.signal, 'SIGKILL');
    assert.equal(outcome.reason, 'went over its memory limit of 64 MiB');
  });

  test('the output-size limit ends a step writing one file too big (the kernel: SIGXFSZ)', async () => {
    const limits = { ...roomyLimits, outputBytes: MiB };
    const step = await command(['/bin/sh', '-c', 'head -c 10M /dev/zero > big'], { limits });
    const outcome = await run(step);
    assert.equal(outcome.state, 'failed');
    assert.equal(outcome.limit, 'output-size');
    assert.equal(outcome.reason, 'went over its output-size limit of 1 MiB');
    assert.equal((await stat(join(step.workDir, 'big'))).size, MiB);
  });

  test('the output-size limit counts all files together, while it runs and at its end', async () => {
    const limits = { ...roomyLimits, outputBytes: MiB };
    const write = 'head -c 600K /dev/zero > a; mkdir d; head -c 600K /dev/zero > d/b';
    const running = await run(
      await command(['/bin/sh', '-c', `${write}; exec sleep 30`], { limits }),
    );
    assert.equal(running.limit, 'output-size');
    assert.equal(running.signal, 'SIGKILL');
    assert.ok(running.endedAt - running.startedAt < 10_000);

    const finished = await run(await command(['/bin/sh', '-c', write], { limits }));
    assert.equal(finished.state, 'failed');
    assert.equal(finished.exitCode, 0);
    assert.equal(finished.limit, 'output-size');
  });

  test('stdout and stderr are kept up to the output size, and the program is not held up', async () => {
    const limits = { ...roomyLimits, outputBytes: MiB };
    const step = await command(
      ['/bin/sh', '-c', 'head -c 3M /dev/zero; head -c 2M /dev/zero >&2'],
      {
        limits,
      },
    );
    const outcome = await run(step);
    assert.equal(outcome.state, 'completed');
    assert.equal((await stat(join(step.logDir, 'stdout'))).size, MiB);
    assert.equal((await stat(join(step.logDir, 'stderr'))).size, MiB);
  });

  describe('with a server listening on the host loopback', () => {
    let server: Server;
    let port: number;
    before(async () => {
      server = createServer((socket) => {
        socket.on('error', () => undefined); // the test's own connection is reset on purpose
        socket.end('hello');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    test('a batch step has no network: it cannot reach the host', async () => {
      const reachable = await new Promise<boolean>((resolve) => {
        const socket = connect(
          { host: '127.0.0.1', port },
          () => (socket.destroy(), resolve(true)),
        );
        socket.once('error', () => resolve(false));
      });
      assert.equal(reachable, true, 'the host itself reaches the server');
      const step = await command(['/usr/bin/node', join(tools, 'connect.mjs'), String(port)]);
      assert.equal((await run(step)).state, 'completed');
      assert.equal(
        await readFile(join(step.workDir, 'connect.txt'), 'utf8'),
        'failed: ECONNREFUSED',
      );
    });
  });

  test('a step sees nothing of the host but the system, its tools and /work, and writes only /work', async () => {
    await writeFile(join(root, 'secret.txt'), 'not for steps');
    const other = await newStep();
    await writeFile(join(other.workDir, 'theirs.txt'), 'another step');
    const hostPaths = [
      join(root, 'secret.txt'),
      other.workDir,
      '/root',
      '/home',
      '/etc/shadow',
      '/etc/passwd',
      '/var',
      '/opt',
      '/run',
      '/sys',
      process.cwd(),
    ];
    const step = await command([join(tools, 'visible.sh'), ...hostPaths, '/work/mine.txt', tools]);
    await writeFile(join(step.workDir, 'mine.txt'), 'mine');
    assert.equal((await run(step)).state, 'completed');
    assert.equal(
      await readFile(join(step.logDir, 'stdout'), 'utf8'),
      `sees /work/mine.txt\nsees ${tools}\n`,
    );
    assert.equal(await exists(join(tools, 'written')), false);
  });

  test('a read-only path where the sandbox mounts its own is refused', async () => {
    const outcome = await run(await command(['/bin/true'], { readOnly: ['/work/tools'] }));
    assert.equal(outcome.state, 'failed');
    assert.equal(
      outcome.reason,
      "could not start: its read-only path /work/tools would cover the sandbox's own /, /work, /proc or /dev",
    );
  });

  test('interactive: starting until its port answers, running, reachable on 127.0.0.1, then stopped', async () => {
    const id = `vice-${randomUUID()}`;
    const step = await command(['/usr/bin/node', join(tools, 'http-server.mjs')]);
    const session = await engine.startInteractive(step, id);
    assert.equal(session.id, id);
    assert.equal(session.status(), 'starting');
    assert.equal(engine.interactive(id), session);
    await waitFor('the session to run', () => session.status() === 'running');
    const answer = await fetch(`http://127.0.0.1:${session.port}/hello`);
    assert.equal(await answer.text(), 'hello from /hello');

    const outcome = await session.stop();
    assert.equal(outcome.state, 'stopped');
    assert.equal(session.status(), 'exited');
    assert.equal(await session.done, outcome);
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: session.port });
      socket.once('connect', () => (socket.destroy(), resolve(false)));
      socket.once('error', () => resolve(true));
    });
    assert.equal(refused, true, 'the port is closed');
    assert.equal(engine.interactive(id), session, 'an ended session is still found for a while');
  });

  test('interactive: the wall-clock limit ends it too', async () => {
    const limits = { ...roomyLimits, wallClockSeconds: 1 };
    const step = await command(['/usr/bin/node', join(tools, 'http-server.mjs')], { limits });
    const session = await engine.startInteractive(step);
    const outcome = await session.done;
    assert.equal(outcome.limit, 'wall-clock');
    assert.equal(session.status(), 'exited');
  });

  test('close() stops every step still running', async () => {
    const closing = createLocalEngine({ log });
    const step = await command(['/bin/sh', '-c', 'touch started; exec sleep 30']);
    const outcome = closing.run(step, new AbortController().signal);
    await waitFor('the step to start', () => exists(join(step.workDir, 'started')));
    await closing.close();
    assert.equal((await outcome).state, 'stopped');
    const after = await closing.run(await command(['/bin/true']), new AbortController().signal);
    assert.equal(after.reason, 'could not start: the engine is closing');
  });

  test('without bubblewrap: not available, and a step fails with how to install it', async () => {
    const missing = createLocalEngine({ log, bwrapPath: join(root, 'no-bwrap') });
    const reason = 'bubblewrap (bwrap) is not installed: apt-get install bubblewrap';
    assert.deepEqual(await missing.available(), { ok: false, reason });
    const step = await command(['/bin/true']);
    const outcome = await missing.run(step, new AbortController().signal);
    assert.equal(outcome.state, 'failed');
    assert.equal(outcome.reason, reason);
    assert.equal(
      JSON.parse(await readFile(join(step.logDir, 'exit-status'), 'utf8')).reason,
      reason,
    );
    assert.equal(await readFile(join(step.logDir, 'stdout'), 'utf8'), '');
  });
});

// The Slurm engine (JOB_EXECUTOR=slurm) on the one-node cluster of scripts/job-engines/slurm.sh:
// a step is a Slurm job, named to the runner once sbatch answers, that runs the command in the
// local engine's sandbox on the node, its output in the working directory, its logs, outcome and
// CPU time beside it; a submission Slurm refuses (an unknown partition or account, more memory
// than the partition allows) or one over the engine's ceilings fails at once with the reason; a
// known account is charged; a stop cancels the job and leaves none of its processes; the
// sandbox's memory limit is named on the node; a second engine (a restarted gateway) follows a job
// the first submitted to its end; and an interactive step is a Slurm job too, serving on the
// loopback port the engine picked until stopped. The controller silent (Slurm's commands failing as
// they do when it is down, through SLURM_BIN_DIR): back within the grace, the job is followed on
// to its end; silent longer, the step fails saying so, never left Running. Also, without a
// cluster: sbatch's command line.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import type { SlurmSettings } from '../../../src/config/index.ts';
import {
  createSlurmEngine,
  sbatchArgs,
  type ExecutionEngine,
  type StepCommand,
  type StepLimits,
} from '../../../src/backends/executor/index.ts';
import { skipWithoutSlurm } from '../../support/slurm.ts';

const log = pino({ level: 'silent' });
const MiB = 1024 * 1024;
const limits: StepLimits = {
  wallClockSeconds: 60,
  cpuSeconds: 30,
  memoryBytes: 128 * MiB,
  outputBytes: 16 * MiB,
};
const settings: SlurmSettings = {
  partition: 'debug',
  maxCpus: 2,
  maxGpus: 0,
  maxMemoryBytes: 1024 * MiB,
  maxWallClockSeconds: 3600,
  pollMs: 100,
  controllerGraceSeconds: 60,
};

/** Polls `condition` every 50 ms until it holds, failing after `withinMs`. */
async function waitFor(
  what: string,
  condition: () => Promise<boolean> | boolean,
  withinMs = 15_000,
) {
  const deadline = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Host processes whose command line is exactly `argv`. */
async function processesRunning(argv: string[]): Promise<number[]> {
  const wanted = `${argv.join('\0')}\0`;
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (cmdline === wanted) found.push(Number(name));
  }
  return found;
}

/** Slurm's state of a job (`RUNNING`, `CANCELLED`, ...). */
const jobState = (jobId: string) =>
  /JobState=(\S+)/.exec(
    execFileSync('scontrol', ['show', 'job', '-o', jobId], { encoding: 'utf8' }),
  )?.[1];

test("sbatch's arguments: the step's resources and time with the runner's share, nothing of the gateway's environment", () => {
  const args = sbatchArgs(
    {
      argv: ['/tool/x'],
      workDir: '/shared/steps/1/work',
      logDir: '/shared/steps/1/logs',
      limits: { ...limits, wallClockSeconds: 90, memoryBytes: 100 * MiB },
      resources: { cpus: 4, gpus: 2 },
    },
    { partition: 'gpu', account: 'lab' },
    '/shared/steps/1/logs/slurm-step.sh',
  );
  assert.deepEqual(args, [
    '--parsable',
    '--job-name',
    'platform-step',
    '--partition',
    'gpu',
    '--account',
    'lab',
    '--nodes=1',
    '--ntasks=1',
    '--cpus-per-task=4',
    '--mem=228M',
    '--gres=gpu:2',
    '--time=2',
    '--export=NONE',
    '--chdir',
    '/shared/steps/1/logs',
    '--output',
    '/shared/steps/1/logs/slurm-%j.out',
    '--error',
    '/shared/steps/1/logs/slurm-%j.err',
    '/shared/steps/1/logs/slurm-step.sh',
  ]);
});

describe('Slurm execution engine', { skip: skipWithoutSlurm(), concurrency: true }, () => {
  let root: string;
  let tools: string;
  let engine: ExecutionEngine;
  let count = 0;

  const command = async (argv: string[], more: Partial<StepCommand> = {}): Promise<StepCommand> => {
    count += 1;
    const dir = join(root, `step-${count}`);
    await mkdir(join(dir, 'work'), { recursive: true });
    return {
      argv,
      workDir: join(dir, 'work'),
      logDir: join(dir, 'logs'),
      readOnly: [tools],
      limits,
      ...more,
    };
  };

  /** Runs `step`, answering its outcome and the job id the engine named. */
  const run = async (step: StepCommand, signal = new AbortController().signal, use = engine) => {
    const ids: string[] = [];
    const outcome = await use.run(step, signal, { submitted: (id) => void ids.push(id) });
    return { outcome, jobId: ids[0] };
  };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'slurm-engine-test-'));
    tools = join(root, 'tools');
    await cp(join(import.meta.dirname, '../../fixtures/executor'), tools, { recursive: true });
    engine = createSlurmEngine({ settings, log });
  });

  after(async () => {
    await engine.close();
    await rm(root, { recursive: true, force: true });
  });

  test('is available here', async () => {
    assert.deepEqual(await engine.available(), { ok: true });
    assert.equal(engine.name, 'slurm');
  });

  test('a step runs as a Slurm job in the sandbox: its output in the work dir, its logs beside it', async () => {
    const step = await command([join(tools, 'writes-output.sh')]);
    await writeFile(join(step.workDir, 'input.txt'), 'hello slurm\n');
    const { outcome, jobId } = await run(step);
    assert.equal(outcome.state, 'completed', outcome.reason);
    assert.equal(outcome.reason, 'exited with status 0');
    assert.match(jobId ?? '', /^\d+$/);
    assert.equal(jobState(jobId!), 'COMPLETED');
    assert.equal(await readFile(join(step.workDir, 'output.txt'), 'utf8'), 'HELLO SLURM\n');
    assert.equal(await readFile(join(step.logDir, 'stdout'), 'utf8'), 'read 12 bytes\n');
    assert.equal(await readFile(join(step.logDir, 'stderr'), 'utf8'), 'a warning\n');
    assert.deepEqual(JSON.parse(await readFile(join(step.logDir, 'exit-status'), 'utf8')), outcome);
  });

  test('a failing program fails the step with its status', async () => {
    const { outcome } = await run(await command(['/bin/sh', '-c', 'exit 3']));
    assert.equal(outcome.state, 'failed');
    assert.equal(outcome.exitCode, 3);
    assert.equal(outcome.reason, 'exited with status 3');
  });

  test("the step's CPU time is in its outcome", async () => {
    // A fixed amount of work (≈ 0.4 CPU seconds here), however loaded the machine.
    const loop = 'i=0; while [ $i -lt 600000 ]; do i=$((i+1)); done';
    const { outcome } = await run(await command(['/bin/sh', '-c', loop]));
    assert.equal(outcome.state, 'completed', outcome.reason);
    assert.ok(outcome.cpuSeconds >= 0.2, `${outcome.cpuSeconds} CPU seconds`);
  });

  test('an unknown partition fails the step at once with Slurm reason', async () => {
    const elsewhere = createSlurmEngine({
      settings: { ...settings, partition: 'no-such-partition' },
      log,
    });
    const started = Date.now();
    const { outcome, jobId } = await run(await command(['/bin/true']), undefined, elsewhere);
    // At once: sbatch's refusal, no poll (generous on a loaded machine; a stuck step never ends).
    assert.ok(Date.now() - started < 10_000, 'refused at once');
    assert.equal(jobId, undefined);
    assert.equal(outcome.state, 'failed');
    assert.match(
      outcome.reason,
      /^could not start: Slurm refused it: .*invalid partition specified: no-such-partition/,
    );
  });

  test('the account: an unknown one fails the step at once, a known one is charged', async () => {
    const unknown = createSlurmEngine({
      settings: { ...settings, account: 'no-such-account' },
      log,
    });
    const refused = await run(await command(['/bin/true']), undefined, unknown);
    assert.equal(refused.jobId, undefined);
    assert.match(refused.outcome.reason, /^could not start: Slurm refused it: .*Invalid account/);
    const research = createSlurmEngine({ settings: { ...settings, account: 'research' }, log });
    const charged = await run(await command(['/bin/true']), undefined, research);
    assert.equal(charged.outcome.state, 'completed', charged.outcome.reason);
    const shown = execFileSync('scontrol', ['show', 'job', '-o', charged.jobId!], {
      encoding: 'utf8',
    });
    assert.match(shown, / Account=research /);
  });

  test('more than the partition allows, or than the ceilings, fails at once', async () => {
    const small = createSlurmEngine({ settings: { ...settings, partition: 'small' }, log });
    // The small partition allows 256 MiB a node.
    const overPartition = await run(
      await command(['/bin/true'], { limits: { ...limits, memoryBytes: 512 * MiB } }),
      undefined,
      small,
    );
    assert.equal(overPartition.outcome.state, 'failed');
    assert.match(
      overPartition.outcome.reason,
      /Slurm refused it: .*Memory required by task is not available/,
    );
    const overCeiling = await run(await command(['/bin/true'], { resources: { cpus: 3 } }));
    assert.equal(overCeiling.jobId, undefined);
    assert.equal(
      overCeiling.outcome.reason,
      'could not start: it asks for 3 CPUs, more than the 2 a step may have (SLURM_MAX_CPUS)',
    );
  });

  test('a stop cancels the job and kills its processes, a detached grandchild included', async () => {
    const marker = '97.31';
    const step = await command([join(tools, 'detach.sh'), marker]);
    const stop = new AbortController();
    let jobId: string | undefined;
    const ended = engine.run(step, stop.signal, { submitted: (id) => void (jobId = id) });
    await waitFor(
      'the grandchild',
      async () => (await processesRunning(['sleep', marker])).length > 0,
    );
    stop.abort();
    const outcome = await ended;
    assert.equal(outcome.state, 'stopped');
    assert.equal(outcome.reason, 'was stopped');
    assert.equal(jobState(jobId!), 'CANCELLED');
    await waitFor(
      'no process left',
      async () => (await processesRunning(['sleep', marker])).length === 0,
      5000,
    );
  });

  test('the memory limit is held on the node and named', async () => {
    const step = await command(['/usr/bin/tail', '/dev/zero'], {
      limits: { ...limits, memoryBytes: 64 * MiB },
    });
    const { outcome } = await run(step);
    assert.equal(outcome.state, 'failed');
    assert.equal(outcome.limit, 'memory');
    assert.equal(outcome.reason, 'went over its memory limit of 64 MiB');
  });

  test('a second engine (after a restart) follows a job the first submitted to its end', async () => {
    const step = await command(['/bin/sh', '-c', 'sleep 1; echo done > later.txt']);
    const first = createSlurmEngine({ settings, log });
    let submitted!: (id: string) => void;
    const named = new Promise<string>((resolve) => (submitted = resolve));
    const firstRun = first.run(step, new AbortController().signal, { submitted });
    const jobId = await named;
    const second = createSlurmEngine({ settings, log });
    let again = false;
    const outcome = await second.run(step, new AbortController().signal, {
      attach: jobId,
      submitted: () => void (again = true),
    });
    assert.equal(again, false, 'nothing submitted again');
    assert.equal(outcome.state, 'completed', outcome.reason);
    assert.equal(await readFile(join(step.workDir, 'later.txt'), 'utf8'), 'done\n');
    assert.equal((await firstRun).state, 'completed');
  });

  test('an interactive step runs as a Slurm job on the port the engine picked, until stopped', async () => {
    const id = `vice-slurm-${Date.now()}`;
    const step = await command(['/usr/bin/node', join(tools, 'http-server.mjs')]);
    const session = await engine.startInteractive(step, id);
    assert.equal(session.id, id);
    assert.equal(engine.interactive(id), session);
    await waitFor('the session to run', () => session.status() === 'running');
    const answer = await fetch(`http://127.0.0.1:${session.port}/hello`);
    assert.equal(await answer.text(), 'hello from /hello');
    const jobId = /slurm-(\d+)\.out/.exec((await readdir(step.logDir)).join(' '))?.[1];
    assert.equal(jobState(jobId!), 'RUNNING');
    const outcome = await session.stop();
    assert.equal(outcome.state, 'stopped');
    assert.equal(session.status(), 'exited');
    assert.equal(jobState(jobId!), 'CANCELLED');
    await waitFor(
      'the port to close',
      () =>
        fetch(`http://127.0.0.1:${session.port}/`).then(
          () => false,
          () => true,
        ),
      5000,
    );
  });

  /**
   * A SLURM_BIN_DIR whose commands are Slurm's own, except while `down` is there: then they fail
   * as they do when the controller is unreachable.
   */
  const silencedSlurm = async () => {
    const bin = await mkdtemp(join(root, 'slurm-bin-'));
    for (const program of ['sbatch', 'scontrol', 'scancel', 'sacct']) {
      const real = execFileSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).trim();
      const wrapper = join(bin, program);
      await writeFile(
        wrapper,
        [
          '#!/bin/sh',
          `if [ -e '${bin}/down' ]; then`,
          `  echo '${program}: error: Unable to contact slurm controller (connect failure)' >&2`,
          '  exit 1',
          'fi',
          `exec '${real}' "$@"`,
          '',
        ].join('\n'),
      );
      await chmod(wrapper, 0o755);
    }
    return {
      bin,
      down: () => writeFile(join(bin, 'down'), ''),
      up: () => rm(join(bin, 'down'), { force: true }),
    };
  };

  test('the controller silent for a moment: the job is followed on to its end', async () => {
    const silenced = await silencedSlurm();
    const shaky = createSlurmEngine({ settings: { ...settings, binDir: silenced.bin }, log });
    const step = await command(['/bin/sh', '-c', 'sleep 1.5; echo done > later.txt']);
    let submitted!: (id: string) => void;
    const named = new Promise<string>((resolve) => (submitted = resolve));
    const outcome = shaky.run(step, new AbortController().signal, { submitted });
    await named;
    await silenced.down();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await silenced.up();
    assert.equal((await outcome).state, 'completed');
    assert.equal(await readFile(join(step.workDir, 'later.txt'), 'utf8'), 'done\n');
  });

  test('the controller silent longer than the grace: the step fails saying so', async () => {
    const silenced = await silencedSlurm();
    const shaky = createSlurmEngine({
      settings: { ...settings, binDir: silenced.bin, controllerGraceSeconds: 1 },
      log,
    });
    let submitted!: (id: string) => void;
    const named = new Promise<string>((resolve) => (submitted = resolve));
    const outcome = shaky.run(
      await command(['/bin/sh', '-c', 'sleep 30']),
      new AbortController().signal,
      { submitted },
    );
    const jobId = await named;
    await silenced.down();
    try {
      const ended = await outcome;
      assert.equal(ended.state, 'failed');
      assert.match(
        ended.reason,
        new RegExp(
          `^Slurm's controller has not answered about job ${jobId} for \\d+ s \\(scontrol: error: Unable to contact slurm controller`,
        ),
      );
    } finally {
      execFileSync('scancel', [jobId]);
    }
  });
});

// Reading Slurm's answers, without a cluster: `scontrol show job -o` lines and `sacct -P` lines (as
// the one-node cluster printed them) become a job's state, times and CPU seconds; sbatch's
// complaint loses its prefixes; and Slurm's own endings become outcomes: TIMEOUT the wall-clock
// limit, OUT_OF_MEMORY the memory limit, CANCELLED a stop (saying so when the platform did not ask
// for it), NODE_FAIL and the like a failure in Slurm's words, and an ordinary end the node
// runner's own outcome with the larger CPU time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  parseSacct,
  parseScontrolJob,
  sbatchReason,
  slurmDuration,
} from '../../../src/backends/executor/slurm-commands.ts';
import { jobOutcome } from '../../../src/backends/executor/slurm-engine.ts';
import type { StepCommand, StepOutcome } from '../../../src/backends/executor/index.ts';

const completedLine =
  'JobId=116 JobName=wrap UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901644 Nice=0 Account=root QOS=normal JobState=COMPLETED Reason=None Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:00 TimeLimit=1-00:00:00 TimeMin=N/A SubmitTime=2026-11-29T18:55:29 EligibleTime=2026-11-29T18:55:29 AccrueTime=2026-11-29T18:55:29 StartTime=2026-11-29T18:55:29 EndTime=2026-11-29T18:55:30 Deadline=N/A SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-29T18:55:29 Scheduler=Backfill Partition=debug AllocNode:Sid=localhost:1589 ReqNodeList=(null) ExcNodeList=(null) NodeList=vm BatchHost=vm NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:* TRES=cpu=1,mem=256M,node=1,billing=1 Command=(null) WorkDir=/srv/steps/1/logs StdErr=/dev/null StdIn=/dev/null StdOut=/dev/null Power=';

const at = (time: string) => new Date(time).getTime();

test('scontrol: an ended job has its state, exit code and both times', () => {
  assert.deepEqual(parseScontrolJob(completedLine), {
    state: 'COMPLETED',
    exitCode: '0:0',
    startedAt: at('2026-11-29T18:55:29'),
    endedAt: at('2026-11-29T18:55:30'),
  });
});

test("scontrol: a pending job's expected start and a running job's deadline are not times it had", () => {
  const pending = completedLine
    .replace('JobState=COMPLETED Reason=None', 'JobState=PENDING Reason=Resources')
    .replace('StartTime=2026-11-29T18:55:29', 'StartTime=2026-11-30T01:00:00');
  assert.deepEqual(parseScontrolJob(pending), {
    state: 'PENDING',
    reason: 'Resources',
    exitCode: '0:0',
  });
  const running = parseScontrolJob(completedLine.replace('JobState=COMPLETED', 'JobState=RUNNING'));
  assert.equal(running?.startedAt, at('2026-11-29T18:55:29'));
  assert.equal(running?.endedAt, undefined);
  assert.equal(parseScontrolJob('slurm_load_jobs error: Invalid job id specified'), undefined);
});

test('sacct: the state without who cancelled, the times and TotalCPU', () => {
  assert.deepEqual(
    parseSacct('CANCELLED by 0|0:15|2026-11-29T18:42:36|2026-11-29T18:42:37|00:01.500|None'),
    {
      state: 'CANCELLED',
      exitCode: '0:15',
      startedAt: at('2026-11-29T18:42:36'),
      endedAt: at('2026-11-29T18:42:37'),
      cpuSeconds: 1.5,
    },
  );
  assert.equal(parseSacct('PENDING|0:0|Unknown|Unknown|00:00:00|None')?.startedAt, undefined);
  assert.equal(slurmDuration('1-02:03:04'), 93_784);
  assert.equal(slurmDuration('12:34:56.5'), 45_296.5);
  assert.equal(slurmDuration('n/a'), undefined);
});

test("sbatch's complaint without its prefixes", () => {
  assert.equal(
    sbatchReason(
      'sbatch: error: invalid partition specified: nope\nsbatch: error: Batch job submission failed: Invalid partition name specified\n',
    ),
    'invalid partition specified: nope; Invalid partition name specified',
  );
  assert.equal(sbatchReason(''), 'no reason given');
});

const command: StepCommand = {
  argv: ['/tool/x'],
  workDir: '/srv/steps/1/work',
  logDir: '/srv/steps/1/logs',
  limits: { wallClockSeconds: 60, cpuSeconds: 60, memoryBytes: 64 << 20, outputBytes: 1 << 20 },
};
const times = { startedAt: at('2026-11-29T18:55:29'), endedAt: at('2026-11-29T18:56:29') };
const facts = { jobId: '7', cancelled: false, jobError: '' };

test("Slurm's own endings as outcomes", () => {
  const timeout = jobOutcome({ state: 'TIMEOUT', ...times }, command, facts);
  assert.equal(timeout.state, 'failed');
  assert.equal(timeout.limit, 'wall-clock');
  assert.equal(timeout.reason, 'went over its wall-clock limit of 60 s');
  const memory = jobOutcome({ state: 'OUT_OF_MEMORY', ...times }, command, facts);
  assert.equal(memory.limit, 'memory');
  assert.equal(memory.reason, 'went over its memory limit of 64 MiB');
  const nodeFail = jobOutcome({ state: 'NODE_FAIL', reason: 'NodeDown', ...times }, command, facts);
  assert.equal(nodeFail.state, 'failed');
  assert.equal(nodeFail.reason, 'Slurm ended job 7: NODE_FAIL (NodeDown)');
  const cancelled = jobOutcome({ state: 'CANCELLED', ...times }, command, facts);
  assert.equal(cancelled.state, 'stopped');
  assert.equal(cancelled.reason, 'was cancelled in Slurm (job 7)');
  const stopped = jobOutcome({ state: 'CANCELLED', ...times }, command, {
    ...facts,
    cancelled: true,
  });
  assert.equal(stopped.reason, 'was stopped');
});

test("an ordinary end is the node runner's outcome, with the larger CPU time", () => {
  const onNode: StepOutcome = {
    state: 'failed',
    exitCode: 3,
    signal: null,
    reason: 'exited with status 3',
    ...times,
    cpuSeconds: 0.5,
  };
  const ended = jobOutcome({ state: 'FAILED', exitCode: '1:0', cpuSeconds: 2, ...times }, command, {
    ...facts,
    onNode,
  });
  assert.deepEqual(ended, { ...onNode, cpuSeconds: 2 });
  // Ended without the runner's outcome (it could not start): what the job printed says why.
  const lost = jobOutcome({ state: 'FAILED', exitCode: '127:0', ...times }, command, {
    ...facts,
    jobError: '/usr/bin/node: not found',
  });
  assert.equal(
    lost.reason,
    "Slurm job 7 ended FAILED (exit 127:0) without the step's outcome: /usr/bin/node: not found",
  );
});

// User tools on Slurm (JOB_EXECUTOR=slurm, docs/slurm.md), through the gateway on each database
// engine, on the one-node cluster of scripts/job-engines/slurm.sh: a tool's step runs as a Slurm
// job with the cores and memory its submission asks, its output in the data store and its logs in
// logs/, its CPU time Slurm's accounting's (sacct) and recorded with the QMS as cpu.hours; a pipeline of two tools on Slurm, the second reading the first's output; a stop of a
// running analysis cancelling its Slurm job, none of its processes left; and an interactive tool as
// a Slurm job on the port the platform assigned (reached through the platform's VICE proxy),
// reachable until stopped, its work kept.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../../support/fileio.ts';
import { engines, skipWithout } from '../../../support/postgres.ts';
import { endedAnalysis } from '../../../support/analyses.ts';
import type { MetadataGateway } from '../../../support/metadata-gateway.ts';
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
import { skipWithoutSlurm } from '../../../support/slurm.ts';
import { slurmDuration } from '../../../../src/backends/executor/slurm-commands.ts';

const fixtures = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../fixtures/tools',
);

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

/**
 * Slurm's jobs whose working directory is a step folder of analysis `id`: `[jobId, state, the
 * whole scontrol line]`.
 */
const slurmJobsOf = (id: string) =>
  execFileSync('scontrol', ['show', 'job', '-o'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(`/steps/${id}-`))
    .map((line) => [/JobId=(\d+)/.exec(line)?.[1], /JobState=(\S+)/.exec(line)?.[1], line]);

const reportParameters = [
  { type: 'FileInput', name: '--in', label: 'Lines', order: 1, required: true },
  { type: 'Text', name: '--label', label: 'Label', order: 2 },
  { type: 'FileOutput', name: '-o', label: 'Report', order: 3, defaultValue: 'report.txt' },
];

const slurmSkip = skipWithoutSlurm();

for (const engine of engines) {
  describe(
    `user tools on Slurm (${engine})`,
    { skip: slurmSkip || skipWithout(engine), concurrency: true },
    () => {
      let gw: MetadataGateway;
      before(async () => {
        gw = await startEngineGateway(engine, {
          JOB_EXECUTOR: 'slurm',
          SLURM_PARTITION: 'debug',
          SLURM_POLL_MS: '100',
          TOOL_EXECUTABLES_ALLOW: `${fixtures}/report.sh,${fixtures}/upper.sh,${fixtures}/sleepy.sh,${fixtures}/serve.sh`,
          TOOL_WALL_CLOCK_SECONDS: '60',
          TOOL_MEMORY_MB: '256',
          TOOL_OUTPUT_MB: '1',
        });
      });
      after(async () => {
        await gw?.close();
      });

      /** A tool of alice's on a fixture script, and an app on it; the app's launch keys by label. */
      const toolApp = async (
        script: string,
        parameters: Record<string, unknown>[],
        tool: Record<string, unknown> = {},
      ) => {
        const made = await gw.ok('alice', 'POST', '/tools', {
          json: {
            name: script,
            location: fixtures,
            type: 'executable',
            version: '1.0',
            container: { image: { name: 'host' } },
            ...tool,
          },
        });
        const app = await appOnTool(gw, `${script} on slurm ${Math.random()}`, made.id, parameters);
        return { app, keys: await launchKeys(gw, app.id) };
      };

      test('a tool runs as a Slurm job: its output in the data store, its logs in logs/', async () => {
        await gw.upload('alice', gw.home('alice'), 'lines.txt', 'one\ntwo\nthree\n');
        const { app, keys } = await toolApp('report.sh', reportParameters, {
          container: { image: { name: 'host' }, min_cpu_cores: 1, memory_limit: 64 * 1024 * 1024 },
        });
        const launched = await launch(
          gw,
          app,
          'on slurm',
          { [keys.Lines!]: `${gw.home('alice')}/lines.txt`, [keys.Label!]: 'on slurm' },
          // More cores than the tool's one, less memory than its 64 MiB: both hold.
          { requirements: [{ step_number: 1, min_cpu_cores: 2, memory_limit: 32 * 1024 * 1024 }] },
        );
        const done = await endedAnalysis(gw, 'alice', launched.id);
        assert.equal(done.status, 'Completed', JSON.stringify(done));
        const folder = done.resultfolderid as string;
        assert.equal(await download(gw, `${folder}/report.txt`), '3\n');
        assert.equal(await download(gw, `${folder}/label.txt`), 'on slurm');
        assert.equal(await download(gw, `${folder}/logs/step-1-stdout.txt`), 'made report.txt\n');
        const status = JSON.parse(await download(gw, `${folder}/logs/step-1-exit-status.json`));
        assert.equal(status.state, 'completed');
        // It was Slurm's job: scontrol still knows it (MinJobAge), completed, with the two cores
        // and the memory limit (32 MiB) the submission asked for, and the node runner's 128 MiB.
        const jobs = slurmJobsOf(launched.id);
        assert.deepEqual(
          jobs.map(([, state]) => state),
          ['COMPLETED'],
        );
        assert.match(jobs[0]![2]!, / CPUs\/Task=2 /);
        assert.match(jobs[0]![2]!, / MinMemoryNode=160M /);
        // Its CPU time is Slurm's own accounting's (sacct's TotalCPU of the job), kept on the step
        // and recorded with the QMS as alice's cpu.hours (at least a millisecond a step).
        const accounted = slurmDuration(
          execFileSync('sacct', ['-n', '-P', '-j', jobs[0]![0]!, '-o', 'TotalCPU'], {
            encoding: 'utf8',
          }).split('\n')[0]!,
        )!;
        assert.ok(accounted > 0, `sacct's TotalCPU: ${accounted}`);
        const step = await storedStep(gw, launched.id);
        assert.equal(Number(step.cpu_seconds), accounted);
        // alice's other analyses (this file's tests run side by side) add theirs: her usage is
        // the sum over her ended analyses' steps, each its engine's CPU seconds (at least 1 ms).
        const db = gw.running.gateway.store.db;
        const { username } = await db
          .selectFrom('analyses')
          .select('username')
          .where('id', '=', launched.id)
          .executeTakeFirstOrThrow();
        const fromSteps = async () =>
          (
            await db
              .selectFrom('analysis_steps')
              .innerJoin('analyses', 'analyses.id', 'analysis_steps.analysis_id')
              .select([
                'analysis_steps.cpu_seconds',
                'analysis_steps.start_date',
                'analysis_steps.end_date',
              ])
              .where('analyses.username', '=', username)
              .where('analyses.end_date', 'is not', null)
              .execute()
          ).reduce(
            (sum, row) =>
              row.start_date === null || row.end_date === null
                ? sum
                : sum +
                  Math.max(
                    1,
                    row.cpu_seconds !== null
                      ? Number(row.cpu_seconds) * 1000
                      : Number(row.end_date) - Number(row.start_date),
                  ),
            0,
          ) / 3_600_000;
        const usageOf = async () =>
          (await gw.ok('alice', 'GET', '/qms/user/usages')).result.find(
            (each: any) => each.resource_type.name === 'cpu.hours',
          )?.usage as number | undefined;
        await eventually(
          async () => {
            const [usage, expected] = [await usageOf(), await fromSteps()];
            return usage !== undefined && Math.abs(usage - expected) < 1e-12;
          },
          10_000,
          "alice's cpu.hours usage to be her steps' CPU seconds",
        );
      });

      test("a pipeline on Slurm: the second step reads the first's output", async () => {
        await gw.upload('alice', gw.home('alice'), 'words.txt', 'alpha\nbeta\n');
        const upper = await toolApp('upper.sh', [
          { type: 'FileInput', name: '', label: 'Text', order: 1, required: true },
          { type: 'FileOutput', name: '', label: 'Shouted', order: 2, defaultValue: 'upper.txt' },
        ]);
        const report = await toolApp('report.sh', reportParameters);
        const [upperTask, reportTask] = await Promise.all(
          [upper, report].map(({ app }) => firstTask(gw, app)),
        );
        const { pipeline, keys } = await twoStepPipeline(
          gw,
          { name: `shout then report on slurm ${engine}`, description: 'two tools' },
          { step: 'shout', task: upperTask, label: 'Shouted' },
          { step: 'report', task: reportTask, label: 'Lines' },
        );
        const launched = await launch(gw, pipeline, 'on slurm', {
          [keys.Text!]: `${gw.home('alice')}/words.txt`,
          [keys.Label!]: 'piped',
        });
        const done = await endedAnalysis(gw, 'alice', launched.id);
        assert.equal(done.status, 'Completed', JSON.stringify(done));
        const folder = done.resultfolderid as string;
        assert.equal(await download(gw, `${folder}/upper.txt`), 'ALPHA\nBETA\n');
        assert.equal(await download(gw, `${folder}/report.txt`), '2\n');
        assert.deepEqual(
          slurmJobsOf(launched.id).map(([, state]) => state),
          ['COMPLETED', 'COMPLETED'],
        );
      });

      test('a stop of a running analysis cancels its Slurm job, none of its processes left', async () => {
        const marker = `slurm-marker-${process.pid}-${Date.now()}`;
        const { app, keys } = await toolApp('sleepy.sh', [
          { type: 'Text', name: '', label: 'Marker', order: 1 },
        ]);
        const launched = await launch(gw, app, 'on slurm', { [Object.values(keys)[0]!]: marker });
        await eventually(
          () => processesWith(marker, 'sleep 300').length >= 2,
          15_000,
          'the step to start on the node',
        );
        assert.deepEqual(
          slurmJobsOf(launched.id).map(([, state]) => state),
          ['RUNNING'],
        );
        const stopped = await gw.ok('alice', 'POST', `/analyses/${launched.id}/stop`);
        assert.equal(stopped.status, 'Canceled');
        await eventually(() => processesWith(marker).length === 0, 10_000, 'the processes to die');
        await eventually(
          () => slurmJobsOf(launched.id)[0]?.[1] === 'CANCELLED',
          10_000,
          'the job to be cancelled',
        );
        const folder = (await endedAnalysis(gw, 'alice', launched.id)).resultfolderid as string;
        const status = JSON.parse(await download(gw, `${folder}/logs/step-1-exit-status.json`));
        assert.equal(status.state, 'stopped');
      });

      test('an interactive tool is a Slurm job on the port the platform assigned, until stopped', async () => {
        const marker = `slurm-interactive-${process.pid}-${Date.now()}`;
        const { app, keys } = await toolApp(
          'serve.sh',
          [{ type: 'Text', name: '', label: 'Marker', order: 1 }],
          { type: 'interactive', interactive: true },
        );
        const launched = await launch(gw, app, 'on slurm', { [keys.Marker!]: marker });
        const pid = await eventually(
          () =>
            processesWith(marker).find((candidate) =>
              readFileSync(`/proc/${candidate}/cmdline`, 'utf8').startsWith('/usr/bin/node'),
            ),
          15_000,
          'the server to start on the node',
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
        // Reached as users reach it, through the platform's proxy at its VICE host.
        const { text: proxied } = await throughViceProxy(
          gw,
          launched.id,
          '/',
          10_000,
          'the proxy to reach the session',
        );
        assert.equal(proxied, marker);
        assert.deepEqual(
          slurmJobsOf(launched.id).map(([, state]) => state),
          ['RUNNING'],
        );
        await gw.ok('alice', 'POST', `/analyses/${launched.id}/stop`);
        await eventually(() => processesWith(marker).length === 0, 10_000, 'the server to stop');
        await eventually(
          () => slurmJobsOf(launched.id)[0]?.[1] === 'CANCELLED',
          10_000,
          'the job to be cancelled',
        );
        const folder = (await endedAnalysis(gw, 'alice', launched.id)).resultfolderid as string;
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
    },
  );
}

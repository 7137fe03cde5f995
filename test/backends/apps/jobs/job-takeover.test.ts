// A gateway SIGKILLed, or stopped with SIGTERM (a rolling restart), while an analysis's step runs
// outside it, in a container (JOB_EXECUTOR=docker) or as a Slurm job (JOB_EXECUTOR=slurm; issue
// 44, docs/executor.md "Which gateway follows a job"), on each database engine: the step goes on
// (SIGTERM lets go of it rather than stopping it); the gateway started again takes the analysis
// over (at once on SQLite, where it is alone; once the dead one's lease lapses, or at once when
// the stopping one released it, on PostgreSQL), follows the same container or job to its end,
// uploads its output and logs, and records the completion once, with one notification. In CI these
// fail when Docker or Slurm cannot run; elsewhere they skip with the reason.
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  skipWithoutDocker,
  testImageName,
  testImageTag,
  testRegistry,
} from '../../../support/docker.ts';
import { eventually } from '../../../support/fileio.ts';
import { noRateLimits } from '../../../support/gateway.ts';
import { startMainProcess, type MainProcess } from '../../../support/main-process.ts';
import { engineDatabase, engines, skipWithout } from '../../../support/postgres.ts';
import { skipWithoutSlurm } from '../../../support/slurm.ts';
import { firstStepHandle } from '../../../support/step-handle.ts';
import { shellApp, type ProcessCallers } from '../../../support/process-callers.ts';
import { closeProcessFixture, openProcessFixture } from '../../../support/process-fixture.ts';

/** Where the step runs: its settings, and the tool it runs (`sh -c <script>`) as that engine takes it. */
const executors: {
  name: string;
  skip: () => string | false;
  env: Record<string, string>;
  tool: Record<string, unknown>;
}[] = [
  {
    name: 'a container',
    skip: skipWithoutDocker,
    env: { JOB_EXECUTOR: 'docker', DOCKER_REGISTRY: testRegistry },
    tool: {
      container: {
        image: { name: testImageName, tag: testImageTag, url: '', osg_image_path: '' },
        entrypoint: '/bin/sh',
        network_mode: '',
        skip_tmp_mount: false,
      },
    },
  },
  {
    name: 'a Slurm job',
    skip: skipWithoutSlurm,
    env: {
      JOB_EXECUTOR: 'slurm',
      SLURM_PARTITION: 'debug',
      SLURM_POLL_MS: '100',
      TOOL_EXECUTABLES_ALLOW: '/bin/sh',
    },
    tool: { location: '/bin', container: { image: { name: 'host' } } },
  },
];

// Side by side: each waits on process starts, a lease and its engine's polls.
describe('gateways killed mid-step', { concurrency: true }, () => {
  for (const executor of executors)
    for (const engine of engines) {
      describe(
        `a gateway killed while a step runs as ${executor.name} (${engine})`,
        // One gateway at a time: its two tests in turn.
        { skip: skipWithout(engine) || executor.skip(), concurrency: 1 },
        () => {
          let dataDir: string;
          let database: Awaited<ReturnType<typeof engineDatabase>>;
          let gateway: MainProcess | undefined;
          let callers: ProcessCallers;
          before(async () => {
            ({ dataDir, database, callers } = await openProcessFixture(
              'takeover-',
              engine,
              () => gateway!.url,
            ));
          });
          after(() => closeProcessFixture(gateway, { dataDir, database, callers }));

          /** What names the analysis's first step in its engine, read from the gateway's database. */
          const handleOf = (id: string) => firstStepHandle(database.env.DATABASE_URL, dataDir, id);
          const start = () =>
            startMainProcess({
              ...noRateLimits,
              ...database.env,
              GATEWAY_DATA_DIR: dataDir,
              AUTH_JWKS_URL: callers.jwksUrl,
              ...executor.env,
              JOB_LEASE_SECONDS: '1',
            });
          const ok: ProcessCallers['ok'] = (...args) => callers.ok(...args);

          const outlives = async (stopSignal: 'SIGKILL' | 'SIGTERM') => {
            await gateway?.stop('SIGTERM');
            gateway = await start();
            const home = '/platform/home/alice';
            const { appId, script } = await shellApp(callers, executor.tool);
            const launched = await ok('alice', 'POST', '/analyses', {
              system_id: 'de',
              app_id: appId,
              name: 'outlives its gateway',
              output_dir: home,
              config: {
                [script]:
                  'while [ ! -e go ]; do sleep 0.05; done; rm go; echo finished > result.txt; echo on its way',
              },
            });
            const work = path.join(dataDir, 'executor', 'steps', `${launched.id}-1`, 'work');
            // The engine holds the step once its container or job exists (its name on the step).
            const held = await eventually(
              async () => {
                const handle = await handleOf(launched.id);
                if (handle) return handle;
                const { steps } = await ok('alice', 'GET', `/analyses/${launched.id}/history`);
                if (steps[0].status !== 'Running' && steps[0].status !== 'Submitted')
                  throw new Error(`the step ended first: ${JSON.stringify(steps[0].updates)}`);
                return undefined;
              },
              20_000,
              'the engine to hold the step',
            );
            assert.ok(existsSync(work));
            await gateway.stop(stopSignal);
            gateway = undefined;
            // Still there after its gateway is gone: not removed with the step's folder.
            assert.ok(existsSync(work), "the step's working directory outlives its gateway");
            writeFileSync(path.join(work, 'go'), '');

            gateway = await start();
            const ended = await eventually(
              async () => {
                const { analyses } = await ok(
                  'alice',
                  'GET',
                  `/analyses?filter=${encodeURIComponent(JSON.stringify([{ field: 'id', value: launched.id }]))}`,
                );
                return ['Completed', 'Failed', 'Canceled'].includes(analyses[0]?.status)
                  ? analyses[0]
                  : undefined;
              },
              30_000,
              'the analysis to end under the second gateway',
            );
            assert.equal(
              ended.status,
              'Completed',
              JSON.stringify((await ok('alice', 'GET', `/analyses/${launched.id}/history`)).steps),
            );
            const history = await ok('alice', 'GET', `/analyses/${launched.id}/history`);
            const stepStatuses = history.steps[0].updates.map(
              (update: { status: string }) => update.status,
            );
            assert.equal(stepStatuses.filter((status: string) => status === 'Completed').length, 1);
            assert.ok(!stepStatuses.includes('Failed'), stepStatuses.join(', '));
            const folder = ended.resultfolderid as string;
            const download = await callers.call(
              'alice',
              'GET',
              `/secured/fileio/download?path=${encodeURIComponent(`${folder}/result.txt`)}`,
            );
            assert.equal(download.text, 'finished\n');
            assert.equal(await handleOf(launched.id), held, 'the same container or job, followed');
            const notices = await eventually(
              async () => {
                const { messages } = await ok(
                  'alice',
                  'GET',
                  '/secured/notifications/messages?filter=analysis&limit=100',
                );
                const about = (messages as any[]).filter((m) => m.payload.id === launched.id);
                return about.some((m) => m.payload.status === 'Completed') ? about : undefined;
              },
              10_000,
              'the completion notification',
            );
            assert.deepEqual(notices!.map((m: any) => m.payload.status).sort(), [
              'Completed',
              'Running',
              'Submitted',
            ]);
          };

          test('killed (SIGKILL): the gateway started again follows the same container or job to its end, completed once, notified once', () =>
            outlives('SIGKILL'));
          test('stopped (SIGTERM): it lets go of the step, still running, and the gateway started again follows it to its end, completed once, notified once', () =>
            outlives('SIGTERM'));
        },
      );
    }
});

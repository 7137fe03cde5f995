// The job engines gone while an analysis's step runs on them (issue 44), on each database engine,
// each reached through a proxy of the test's own, which then refuses every connection, as a
// stopped daemon does:
// - Docker (JOB_EXECUTOR=docker, DOCKER_HOST through the proxy): the analysis ends Failed at once,
//   its step saying it lost its container and what Docker answered, never stuck Running.
// - Slurm's controller (JOB_EXECUTOR=slurm, SLURM_CONF naming the proxy's port as the
//   controller's): back within SLURM_CONTROLLER_GRACE_SECONDS, the job is followed on to its end
//   and completes; silent longer, the analysis ends Failed saying the controller has not answered.
// In CI these fail when Docker or Slurm cannot run; elsewhere they skip with the reason.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  docker,
  skipWithoutDocker,
  testImageName,
  testImageTag,
  testRegistry,
} from '../../../support/docker.ts';
import { eventually } from '../../../support/fileio.ts';
import { firstStepHandle } from '../../../support/step-handle.ts';
import { skipWithoutSlurm, slurmConfThrough, slurmctldPort } from '../../../support/slurm.ts';
import { noRateLimits } from '../../../support/gateway.ts';
import { startMainProcess, type MainProcess } from '../../../support/main-process.ts';
import { engineDatabase, engines, skipWithout } from '../../../support/postgres.ts';
import { tally, testFile } from '../../../support/reliability.ts';
import { startTcpProxy, type TcpProxy } from '../../../support/tcp-proxy.ts';
import { shellApp, type ProcessCallers } from '../../../support/process-callers.ts';
import { closeProcessFixture, openProcessFixture } from '../../../support/process-fixture.ts';

/** The report's row of a test (docs/reliability.md): the analyses whose engine went away. */
const outageCases = (t: { after(fn: () => void): void }, what: string, engine: string) =>
  tally(t, { area: 'faults', what, file: testFile(import.meta.url), note: engine });

describe('the Docker engine gone mid-step', { concurrency: true }, () => {
  for (const engine of engines) {
    describe(engine, { skip: skipWithout(engine) || skipWithoutDocker() }, () => {
      let dataDir: string;
      let database: Awaited<ReturnType<typeof engineDatabase>>;
      let proxy: TcpProxy;
      let gateway: MainProcess | undefined;
      let callers: ProcessCallers;
      const containers: string[] = [];
      before(async () => {
        ({ dataDir, database, callers } = await openProcessFixture(
          'engine-outage-',
          engine,
          () => gateway!.url,
        ));
        proxy = await startTcpProxy({ path: '/var/run/docker.sock' });
        gateway = await startMainProcess({
          ...noRateLimits,
          ...database.env,
          GATEWAY_DATA_DIR: dataDir,
          AUTH_JWKS_URL: callers.jwksUrl,
          JOB_EXECUTOR: 'docker',
          DOCKER_REGISTRY: testRegistry,
          DOCKER_HOST: `tcp://${proxy.host}:${proxy.port}`,
        });
      });
      after(() =>
        closeProcessFixture(gateway, { dataDir, database, callers }, async () => {
          await proxy?.close();
          for (const name of containers) docker(['rm', '--force', name]);
        }),
      );
      const ok: ProcessCallers['ok'] = (...args) => callers.ok(...args);

      test('the analysis ends Failed at once, saying its container cannot be followed and why', async (t) => {
        const cases = outageCases(
          t,
          "the Docker engine refusing connections while an analysis's step runs in it: the analysis ends Failed, not stuck Running, its step saying it lost its container and what Docker answered",
          engine,
        );
        const { appId, script } = await shellApp(callers, {
          container: {
            image: { name: testImageName, tag: testImageTag, url: '', osg_image_path: '' },
            entrypoint: '/bin/sh',
          },
        });
        const launched = await ok('alice', 'POST', '/analyses', {
          system_id: 'de',
          app_id: appId,
          name: 'loses its engine',
          output_dir: '/platform/home/alice',
          config: { [script]: 'echo started; sleep 300' },
        });
        // Running in its container (Docker lists it, labelled as a platform step).
        const container = await eventually(
          () =>
            docker(['ps', '--filter', 'label=platform-gateway.step=1', '--format', '{{.Names}}'])
              .stdout.split('\n')
              .find((name) => name !== '' && !containers.includes(name) && running(name)),
          20_000,
          'the container to run',
        );
        containers.push(container!);
        // Followed: the engine's `docker logs --follow` and `docker wait` hold their connections.
        await eventually(
          () => docker(['logs', container!]).stdout.includes('started') && proxy.connections() >= 2,
          20_000,
          'the engine to follow the container',
        );

        cases.tried += 1;
        await proxy.refuse();
        const history = await eventually(
          async () => {
            const found = await ok('alice', 'GET', `/analyses/${launched.id}/history`);
            return found.steps[0].status === 'Failed' ? found : undefined;
          },
          20_000,
          'the analysis to fail',
        );
        assert.match(
          history.steps[0].updates.at(-1).message,
          // Docker's own words follow: which of the engine's calls met the outage first (its
          // `docker wait` cut mid-answer, a later call refused) decides them, not the meaning.
          new RegExp(
            `(lost its container ${container}: docker answered|its container ${container} cannot be followed:) "?\\S`,
          ),
        );
        cases.held += 1;
        await proxy.restore();
      });

      /** Whether the container `name` runs now, and is this gateway's step (its work dir is ours). */
      function running(name: string): boolean {
        const mounts = docker([
          'inspect',
          '--format',
          '{{range .Mounts}}{{.Source}} {{end}}',
          name,
        ]);
        return mounts.stdout.includes(dataDir);
      }
    });
  }
});

describe("Slurm's controller gone mid-step", { concurrency: true }, () => {
  for (const engine of engines) {
    // Its two tests in turn: each cuts the one proxy.
    describe(engine, { skip: skipWithout(engine) || skipWithoutSlurm(), concurrency: 1 }, () => {
      let dataDir: string;
      let database: Awaited<ReturnType<typeof engineDatabase>>;
      let proxy: TcpProxy;
      let gateway: MainProcess | undefined;
      let callers: ProcessCallers;
      before(async () => {
        ({ dataDir, database, callers } = await openProcessFixture(
          'controller-outage-',
          engine,
          () => gateway!.url,
        ));
        proxy = await startTcpProxy({ host: '127.0.0.1', port: slurmctldPort() });
        gateway = await startMainProcess({
          ...noRateLimits,
          ...database.env,
          GATEWAY_DATA_DIR: dataDir,
          AUTH_JWKS_URL: callers.jwksUrl,
          JOB_EXECUTOR: 'slurm',
          SLURM_PARTITION: 'debug',
          SLURM_POLL_MS: '100',
          SLURM_CONTROLLER_GRACE_SECONDS: '3',
          SLURM_CONF: slurmConfThrough(proxy.port, dataDir),
          TOOL_EXECUTABLES_ALLOW: '/bin/sh',
        });
      });
      after(() =>
        closeProcessFixture(gateway, { dataDir, database, callers }, async () => {
          await proxy?.close();
          // Whatever of ours the controller still runs (a step given up while it was unreachable).
          for (const job of ourJobs()) execFileSync('scancel', [job.id]);
        }),
      );
      const ok: ProcessCallers['ok'] = (...args) => callers.ok(...args);

      /** This gateway's Slurm jobs the controller knows (asked directly, not through the proxy). */
      function ourJobs(): { id: string; state: string; folder: string }[] {
        return execFileSync('squeue', ['-h', '-o', '%i|%T|%o'], { encoding: 'utf8' })
          .split('\n')
          .map((line) => line.split('|'))
          .filter((fields) => fields.length === 3 && fields[2]!.startsWith(dataDir))
          .map(([id, state, command]) => ({
            id: id!,
            state: state!,
            folder: path.dirname(path.dirname(command!)),
          }));
      }

      /** Launches a step that waits for a `go` file; answers the analysis and its working directory once its job runs. */
      async function launchWaiting(name: string) {
        const { appId, script } = await shellApp(callers, {
          location: '/bin',
          container: { image: { name: 'host' } },
        });
        const launched = await ok('alice', 'POST', '/analyses', {
          system_id: 'de',
          app_id: appId,
          name,
          output_dir: '/platform/home/alice',
          config: {
            [script]: 'while [ ! -e go ]; do sleep 0.05; done; echo finished > result.txt',
          },
        });
        const job = await eventually(
          () =>
            ourJobs().find(
              (candidate) =>
                candidate.state === 'RUNNING' && candidate.folder.endsWith(`${launched.id}-1`),
            ),
          20_000,
          "the step's Slurm job to run",
        );
        // And the gateway has heard sbatch's answer (the job id recorded): a controller cut before
        // that would cut sbatch's reply, not the following this test is about.
        await eventually(
          () => firstStepHandle(database.env.DATABASE_URL, dataDir, launched.id),
          20_000,
          "the gateway to record the step's job",
        );
        return { id: launched.id as string, work: path.join(job!.folder, 'work') };
      }

      const ended = (id: string) =>
        eventually(
          async () => {
            const found = await ok('alice', 'GET', `/analyses/${id}/history`);
            return ['Completed', 'Failed'].includes(found.steps[0].status) ? found : undefined;
          },
          30_000,
          'the analysis to end',
        );

      test('back within the grace: the job is followed on to its end and completes', async (t) => {
        const cases = outageCases(
          t,
          "Slurm's controller unreachable for a second, shorter than SLURM_CONTROLLER_GRACE_SECONDS (3 s), while a step runs and ends: the job is followed on to its end and the analysis completes",
          engine,
        );
        const { id, work } = await launchWaiting('outlives an outage');
        cases.tried += 1;
        await proxy.refuse();
        // The controller unreachable for a second (ten of the engine's polls), the step ending
        // meanwhile, then back.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        writeFileSync(path.join(work, 'go'), '');
        await proxy.restore();
        const history = await ended(id);
        assert.equal(
          history.steps[0].status,
          'Completed',
          JSON.stringify(history.steps[0].updates),
        );
        cases.held += 1;
      });

      test('silent longer than the grace: the analysis ends Failed, saying the controller has not answered', async (t) => {
        const cases = outageCases(
          t,
          "Slurm's controller unreachable for longer than SLURM_CONTROLLER_GRACE_SECONDS (3 s) while a step runs: the analysis ends Failed, not stuck Running, saying the controller has not answered",
          engine,
        );
        const { id } = await launchWaiting('loses its controller');
        cases.tried += 1;
        await proxy.refuse();
        try {
          const history = await ended(id);
          assert.equal(history.steps[0].status, 'Failed');
          assert.match(
            history.steps[0].updates.at(-1).message,
            /Slurm's controller has not answered about job \d+ for \d+ s \(.+\); the step is given up/,
          );
          cases.held += 1;
        } finally {
          await proxy.restore();
        }
      });
    });
  }
});

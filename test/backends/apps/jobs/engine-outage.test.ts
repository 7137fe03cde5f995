// The Docker engine gone while an analysis's step runs in a container (JOB_EXECUTOR=docker; issue
// 44), on each database engine: the gateway reaches dockerd through a proxy of the test's own
// (DOCKER_HOST), which then refuses every connection, as a stopped engine does. The analysis ends
// Failed at once, its step saying it lost its container and what Docker answered, never stuck
// Running. (The Slurm controller's silence: slurm-engine.test.ts.) In CI these fail when Docker
// cannot run; elsewhere they skip with the reason.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
import { noRateLimits } from '../../../support/gateway.ts';
import { startMainProcess, type MainProcess } from '../../../support/main-process.ts';
import { engineDatabase, engines, skipWithout } from '../../../support/postgres.ts';
import { startTcpProxy, type TcpProxy } from '../../../support/tcp-proxy.ts';
import { processCallers, shellApp, type ProcessCallers } from '../../../support/process-callers.ts';

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
        dataDir = mkdtempSync(path.join(tmpdir(), 'engine-outage-'));
        callers = await processCallers(() => gateway!.url);
        database = await engineDatabase(engine);
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
      after(async () => {
        await gateway?.stop('SIGKILL');
        await proxy?.close();
        for (const name of containers) docker(['rm', '--force', name]);
        await callers?.close();
        await database?.drop();
        if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      });
      const ok: ProcessCallers['ok'] = (...args) => callers.ok(...args);

      test('the analysis ends Failed at once, saying its container cannot be followed and why', async () => {
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

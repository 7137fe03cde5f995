// The Docker engine the `docker` job executor's tests run on: dockerd and the loopback registry
// that scripts/job-engines/docker.sh starts (CI runs it before the tests; elsewhere run it as root
// first), and the test image it pushed there. In CI (`CI=true`) a missing engine fails the tests
// that need it; elsewhere they skip with the reason.
import { spawnSync } from 'node:child_process';

/** The loopback registry docker.sh serves images from. */
export const testRegistry = '127.0.0.1:5000';
/** The test image's name in that registry (busybox, with nobody in /etc/passwd), and its tag. */
export const testImageName = 'platform/busybox';
export const testImageTag = '1';
export const testImage = `${testRegistry}/${testImageName}:${testImageTag}`;

/** Runs `docker args`, answering its status and output (synchronously: a check before tests). */
export function docker(args: string[]) {
  const result = spawnSync('docker', args, { encoding: 'utf8', timeout: 60_000 });
  return {
    code: result.error ? null : result.status,
    stdout: result.stdout ?? '',
    stderr: result.error ? result.error.message : (result.stderr ?? ''),
  };
}

let checked: string | false | undefined;

/** Why the Docker tests cannot run here (false when they can); throws in CI instead of skipping. */
export function skipWithoutDocker(): string | false {
  if (checked === undefined) {
    const info = docker(['info', '--format', '{{.ServerVersion}}']);
    const registry =
      info.code === 0 ? docker(['manifest', 'inspect', '--insecure', testImage]) : undefined;
    checked =
      info.code !== 0
        ? `no Docker engine answers (${info.stderr.trim().split('\n').at(-1) ?? ''}): run scripts/job-engines/docker.sh as root`
        : false;
    // The registry and its image are checked by pulling in the tests themselves; `manifest
    // inspect` is only a quicker reason when they are missing.
    if (!checked && registry && registry.code !== 0)
      checked = `the test image ${testImage} is not in the loopback registry: run scripts/job-engines/docker.sh as root`;
  }
  if (checked && process.env.CI)
    throw new Error(`Docker must run in CI: its tests may not be skipped (${checked})`);
  return checked;
}

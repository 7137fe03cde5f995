// Whether the one-node Slurm cluster of scripts/job-engines/slurm.sh is up here, for the Slurm
// engine's tests: they skip, saying why, on a developer machine without it, and fail in CI
// (CI=true), where .ci's start of the job engines must have brought it up.
import { execFileSync } from 'node:child_process';

function clusterProblem(): string | undefined {
  try {
    const ping = execFileSync('scontrol', ['ping'], { encoding: 'utf8', timeout: 10_000 });
    if (!/is UP/.test(ping)) return `Slurm's controller is not up (scontrol ping: ${ping.trim()})`;
    const states = execFileSync('sinfo', ['-h', '-o', '%T'], { encoding: 'utf8', timeout: 10_000 });
    if (!/^(idle|mixed|allocated)/m.test(states))
      return `no Slurm node is ready (sinfo: ${states.trim() || 'no nodes'})`;
    return undefined;
  } catch (error) {
    return `Slurm does not answer here (${(error as Error).message.split('\n')[0]})`;
  }
}

/**
 * `false` when the cluster is up (run the tests), else the reason to skip them; throws in CI,
 * where the Slurm tests may not be skipped.
 */
export function skipWithoutSlurm(): false | string {
  const problem = clusterProblem();
  if (!problem) return false;
  if (process.env.CI)
    throw new Error(
      `${problem}: in CI the Slurm tests may not be skipped (sudo bash scripts/job-engines/slurm.sh starts it)`,
    );
  return `${problem}; run scripts/job-engines/slurm.sh as root to start a one-node cluster`;
}

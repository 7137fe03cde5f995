// Whether the one-node Slurm cluster of scripts/job-engines/slurm.sh is up here, for the Slurm
// engine's tests: they skip, saying why, on a developer machine without it, and fail in CI
// (CI=true), where .ci's start of the job engines must have brought it up.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

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

/**
 * A copy of the cluster's slurm.conf, in `dir`, whose clients reach the controller on `port` of
 * the loopback interface (a proxy of the test's own) instead of its own port, and give up on it
 * after 2 s: `SLURM_CONF` set to the answer makes sbatch, scontrol, scancel and sacct go through
 * it, the daemons unchanged.
 */
export function slurmConfThrough(port: number, dir: string): string {
  const conf = readFileSync(process.env.SLURM_CONF ?? '/etc/slurm/slurm.conf', 'utf8')
    .split('\n')
    .filter((line) => !/^\s*SlurmctldPort\s*=/i.test(line))
    .join('\n');
  const file = path.join(dir, 'slurm.conf');
  // Clients give up on an unreachable controller after about MessageTimeout (else 18 s here).
  writeFileSync(
    file,
    `${conf.replace(/^\s*MessageTimeout\s*=.*$/gim, '')}\nSlurmctldPort=${port}\nMessageTimeout=2\n`,
  );
  return file;
}

/** The controller's own port, as the cluster's slurm.conf sets it (Slurm's default: 6817). */
export function slurmctldPort(): number {
  const conf = readFileSync(process.env.SLURM_CONF ?? '/etc/slurm/slurm.conf', 'utf8');
  const set = /^\s*SlurmctldPort\s*=\s*(\d+)/im.exec(conf);
  return set ? Number(set[1]) : 6817;
}

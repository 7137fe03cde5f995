// Analyses and how their steps run (docs/executor.md): how many a user may have at once, where
// steps work, which programs and images any tool may run, the most a step may use, and the
// container runtime image tools run on.
import path from 'node:path';
import { ConfigError, integer, list, text, type Env } from './variables.ts';

/** Where user tools' steps run (JOB_EXECUTOR): this machine's sandbox, or a Slurm cluster's jobs. */
export type JobExecutor = 'local' | 'slurm';

/** The Slurm engine's settings (JOB_EXECUTOR=slurm, docs/slurm.md). */
export interface SlurmSettings {
  /** The partition steps are submitted to (SLURM_PARTITION; the cluster's default when unset). */
  partition?: string;
  /** The account they are charged to (SLURM_ACCOUNT; the submitting user's default when unset). */
  account?: string;
  /** The most a step may ask for; a tool asking for more fails at once (SLURM_MAX_*). */
  maxCpus: number;
  maxGpus: number;
  maxMemoryBytes: number;
  maxWallClockSeconds: number;
  /** How often a submitted job's state is read (SLURM_POLL_MS). */
  pollMs: number;
  /**
   * How long the controller may not answer about a job before its step fails, saying so
   * (SLURM_CONTROLLER_GRACE_SECONDS); back within it, the job is followed on.
   */
  controllerGraceSeconds: number;
  /** Where sbatch, scontrol, scancel and sacct are (SLURM_BIN_DIR; on PATH when unset). */
  binDir?: string;
}

export interface ExecutorSettings {
  /**
   * Steps' working directories and unpacked images (JOB_WORK_DIR, or its older name
   * EXECUTOR_WORK_DIR; default `<GATEWAY_DATA_DIR>/executor`). With Slurm, on a filesystem the
   * nodes share at the same path.
   */
  workDir: string;
  /** Where steps run (JOB_EXECUTOR, default `local`). */
  jobExecutor: JobExecutor;
  /** Present when jobExecutor is `slurm`. */
  slurm?: SlurmSettings;
  /**
   * Executables and root filesystem image tars any tool may run (TOOL_EXECUTABLES_ALLOW): absolute
   * paths, an entry ending in `/` allowing everything below it. Administrators approve others tool
   * by tool through the admin tool routes.
   */
  allow: string[];
  /** The most a step may use; a tool asks for less (TOOL_WALL_CLOCK_SECONDS, TOOL_CPU_SECONDS, TOOL_MEMORY_MB, TOOL_OUTPUT_MB). */
  limits: {
    wallClockSeconds: number;
    cpuSeconds: number;
    memoryBytes: number;
    outputBytes: number;
  };
  /** Image tools run on this container runtime instead of the sandbox (CONTAINER_RUNTIME: docker or podman). */
  containerRuntime?: 'docker' | 'podman';
}

export interface AnalysesSettings {
  /** Analyses a user may have submitted or running at once (MAX_CONCURRENT_JOBS); more are refused with ERR_LIMIT_REACHED. */
  maxConcurrentJobs: number;
  /** How user tools run (docs/executor.md). */
  executor: ExecutorSettings;
  /**
   * How long an analysis stays with the gateway following it without that gateway renewing its
   * lease (JOB_LEASE_SECONDS); then another gateway takes it over.
   */
  leaseSeconds: number;
}

export function analysesSettings(env: Env, dataDir: string): AnalysesSettings {
  return {
    maxConcurrentJobs: integer(env, 'MAX_CONCURRENT_JOBS', 8, 1, 10_000),
    executor: executorSettings(env, dataDir),
    leaseSeconds: integer(env, 'JOB_LEASE_SECONDS', 30, 1, 3600),
  };
}

function executorSettings(env: Env, dataDir: string): ExecutorSettings {
  const allow = list(env, 'TOOL_EXECUTABLES_ALLOW', []);
  const relative = allow.find((entry) => !path.isAbsolute(entry));
  if (relative !== undefined)
    throw new ConfigError(
      'TOOL_EXECUTABLES_ALLOW',
      `entries must be absolute paths, got "${relative}"`,
    );
  const runtime = text(env, 'CONTAINER_RUNTIME');
  if (runtime !== undefined && runtime !== 'docker' && runtime !== 'podman')
    throw new ConfigError('CONTAINER_RUNTIME', `must be docker or podman, got "${runtime}"`);
  const mebibytes = 1024 * 1024;
  const jobExecutor = text(env, 'JOB_EXECUTOR') ?? 'local';
  if (jobExecutor !== 'local' && jobExecutor !== 'slurm')
    throw new ConfigError('JOB_EXECUTOR', `must be local or slurm, got "${jobExecutor}"`);
  const workDir =
    text(env, 'JOB_WORK_DIR') ?? text(env, 'EXECUTOR_WORK_DIR') ?? path.join(dataDir, 'executor');
  return {
    workDir: path.resolve(workDir),
    jobExecutor,
    ...(jobExecutor === 'slurm' ? { slurm: slurmSettings(env) } : {}),
    allow: allow.map((entry) =>
      entry.endsWith('/') ? `${path.resolve(entry)}/` : path.resolve(entry),
    ),
    limits: {
      wallClockSeconds: integer(env, 'TOOL_WALL_CLOCK_SECONDS', 86_400, 1, 31 * 86_400),
      cpuSeconds: integer(env, 'TOOL_CPU_SECONDS', 86_400, 1, 31 * 86_400),
      memoryBytes: integer(env, 'TOOL_MEMORY_MB', 4096, 16, 4 * 1024 * 1024) * mebibytes,
      outputBytes: integer(env, 'TOOL_OUTPUT_MB', 10_240, 1, 1024 * 1024 * 1024) * mebibytes,
    },
    ...(runtime ? { containerRuntime: runtime } : {}),
  };
}

function slurmSettings(env: Env): SlurmSettings {
  const day = 86_400;
  const partition = text(env, 'SLURM_PARTITION');
  const account = text(env, 'SLURM_ACCOUNT');
  const binDir = text(env, 'SLURM_BIN_DIR');
  if (binDir !== undefined && !path.isAbsolute(binDir))
    throw new ConfigError('SLURM_BIN_DIR', `must be an absolute path, got "${binDir}"`);
  for (const [name, value] of [
    ['SLURM_PARTITION', partition],
    ['SLURM_ACCOUNT', account],
  ] as const)
    if (value !== undefined && !/^[A-Za-z0-9_.-]+$/.test(value))
      throw new ConfigError(name, `must be a Slurm name (letters, digits, _ . -), got "${value}"`);
  return {
    ...(partition ? { partition } : {}),
    ...(account ? { account } : {}),
    maxCpus: integer(env, 'SLURM_MAX_CPUS', 64, 1, 100_000),
    maxGpus: integer(env, 'SLURM_MAX_GPUS', 0, 0, 1024),
    maxMemoryBytes: integer(env, 'SLURM_MAX_MEMORY_MB', 256 * 1024, 1, 2 ** 30) * 2 ** 20,
    maxWallClockSeconds: integer(env, 'SLURM_MAX_WALL_CLOCK_SECONDS', 31 * day, 60, 366 * day),
    pollMs: integer(env, 'SLURM_POLL_MS', 1000, 20, 600_000),
    controllerGraceSeconds: integer(env, 'SLURM_CONTROLLER_GRACE_SECONDS', 600, 1, 7 * day),
    ...(binDir ? { binDir: path.resolve(binDir) } : {}),
  };
}

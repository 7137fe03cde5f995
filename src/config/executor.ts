// Analyses and how their steps run (docs/executor.md): how many a user may have at once, where
// steps work, which programs and images any tool may run, the most a step may use, and the
// container runtime image tools run on.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { addressRanges, ConfigError, integer, list, text, type Env } from './variables.ts';

/**
 * Where user tools' steps run (JOB_EXECUTOR): `local`, sandboxed processes of the gateway
 * (default); `docker`, image tools in containers on a Docker engine (the others sandboxed here);
 * `slurm`, every batch step a job of a Slurm cluster, sandboxed on its node.
 */
export type JobExecutor = 'local' | 'docker' | 'slurm';

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
  /**
   * The most a step may use; a tool or a submission asks for less (TOOL_WALL_CLOCK_SECONDS,
   * TOOL_CPU_SECONDS, TOOL_MEMORY_MB, TOOL_OUTPUT_MB; TOOL_CPUS and TOOL_PIDS, which only the
   * container engine holds steps to).
   */
  limits: {
    wallClockSeconds: number;
    cpuSeconds: number;
    memoryBytes: number;
    outputBytes: number;
    cpus: number;
    processes: number;
  };
  /**
   * Image tools run on this container runtime instead of the sandbox: `docker` with
   * JOB_EXECUTOR=docker, or CONTAINER_RUNTIME (docker or podman; the older way to say it).
   */
  containerRuntime?: 'docker' | 'podman';
  /** The registry image names naming none are pulled from (DOCKER_REGISTRY, e.g. `127.0.0.1:5000`). */
  registry?: string;
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
  /**
   * Who may POST the third-party job API's status updates, `/callbacks/...` (CALLBACKS_ALLOW): IP
   * addresses and CIDR ranges; default loopback. They carry no credentials, and the job id they
   * name is an analysis's id, which its readers see.
   */
  callbackClients: string[];
}

export function analysesSettings(env: Env, dataDir: string): AnalysesSettings {
  return {
    maxConcurrentJobs: integer(env, 'MAX_CONCURRENT_JOBS', 8, 1, 10_000),
    executor: executorSettings(env, dataDir),
    leaseSeconds: integer(env, 'JOB_LEASE_SECONDS', 30, 1, 3600),
    callbackClients: addressRanges(env, 'CALLBACKS_ALLOW', ['127.0.0.0/8', '::1/128']),
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
  const jobExecutor = text(env, 'JOB_EXECUTOR') ?? 'local';
  if (jobExecutor !== 'local' && jobExecutor !== 'docker' && jobExecutor !== 'slurm')
    throw new ConfigError('JOB_EXECUTOR', `must be local, docker or slurm, got "${jobExecutor}"`);
  const named = text(env, 'CONTAINER_RUNTIME');
  if (named !== undefined && named !== 'docker' && named !== 'podman')
    throw new ConfigError('CONTAINER_RUNTIME', `must be docker or podman, got "${named}"`);
  if (jobExecutor === 'docker' && named === 'podman')
    throw new ConfigError(
      'CONTAINER_RUNTIME',
      'must be docker (or unset) with JOB_EXECUTOR=docker',
    );
  const runtime = named ?? (jobExecutor === 'docker' ? 'docker' : undefined);
  const registry = text(env, 'DOCKER_REGISTRY');
  if (registry !== undefined && !/^[\w.-]+(:\d+)?(\/[\w.-]+)*\/?$/.test(registry))
    throw new ConfigError(
      'DOCKER_REGISTRY',
      `must be a registry host (and port, and path), like 127.0.0.1:5000, got "${registry}"`,
    );
  const mebibytes = 1024 * 1024;
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
      cpus: integer(env, 'TOOL_CPUS', availableParallelism(), 1, 4096),
      processes: integer(env, 'TOOL_PIDS', 1024, 8, 4 * 1024 * 1024),
    },
    ...(runtime ? { containerRuntime: runtime } : {}),
    ...(registry ? { registry } : {}),
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

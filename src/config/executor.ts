// Analyses and how their steps run (docs/executor.md): how many a user may have at once, where
// steps work, which programs and images any tool may run, the most a step may use, and the
// container runtime image tools run on.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { ConfigError, integer, list, text, type Env } from './variables.ts';

export interface ExecutorSettings {
  /** Steps' working directories and unpacked images (EXECUTOR_WORK_DIR, default `<GATEWAY_DATA_DIR>/executor`). */
  workDir: string;
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
   * Where user tools' steps run (JOB_EXECUTOR): `local`, sandboxed processes of the gateway
   * (default); `docker`, image tools in containers on a Docker engine.
   */
  jobExecutor: 'local' | 'docker';
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
  const jobExecutor = text(env, 'JOB_EXECUTOR') ?? 'local';
  if (jobExecutor !== 'local' && jobExecutor !== 'docker')
    throw new ConfigError('JOB_EXECUTOR', `must be local or docker, got "${jobExecutor}"`);
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
  return {
    workDir: path.resolve(text(env, 'EXECUTOR_WORK_DIR') ?? path.join(dataDir, 'executor')),
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
    jobExecutor,
    ...(runtime ? { containerRuntime: runtime } : {}),
    ...(registry ? { registry } : {}),
  };
}

// The engines analyses' steps run on, made through the executor's door from the configuration:
// the local sandbox, or Slurm's jobs when JOB_EXECUTOR=slurm (docs/slurm.md); and the container
// engine when JOB_EXECUTOR=docker (or the older CONTAINER_RUNTIME) names a runtime, for tools
// whose container names a registry image. The runner (job-runner.ts) is handed them and
// sandbox-step.ts picks one per step; a further kind of engine is made here and handed over the
// same way (docs/architecture.md, "Where to add a new kind of job engine").
import type { FastifyBaseLogger } from 'fastify';
import type { ExecutorSettings } from '../../../config/index.ts';
import {
  createContainerEngine,
  createLocalEngine,
  createSlurmEngine,
  type ExecutionEngine,
} from '../../executor/index.ts';

export interface JobEngines {
  /** Where user tools' steps run. */
  engine: ExecutionEngine;
  /** Where registry-image tools run with JOB_EXECUTOR=docker (or CONTAINER_RUNTIME). */
  containerEngine?: ExecutionEngine;
}

export function jobEngines(executor: ExecutorSettings, log: FastifyBaseLogger): JobEngines {
  if (executor.jobExecutor === 'slurm' && executor.slurm) {
    // Every step a Slurm job; image tools' too, run on the node's container runtime.
    const slurm = createSlurmEngine({
      settings: executor.slurm,
      log,
      ...(executor.containerRuntime
        ? {
            container: {
              runtime: executor.containerRuntime,
              ...(executor.registry ? { registry: executor.registry } : {}),
            },
          }
        : {}),
    });
    return { engine: slurm, ...(executor.containerRuntime ? { containerEngine: slurm } : {}) };
  }
  return {
    engine: createLocalEngine({ log }),
    ...(executor.containerRuntime
      ? {
          containerEngine: createContainerEngine({
            runtime: executor.containerRuntime,
            log,
            ...(executor.registry ? { registry: executor.registry } : {}),
          }),
        }
      : {}),
  };
}

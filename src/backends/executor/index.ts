// The executor's door: where the apps service runs the steps of user tools. It is not an HTTP
// service of its own; the apps service uses it in-process. See engine.ts for the interface.
export type {
  ExecutionEngine,
  InteractiveSession,
  LimitName,
  StepCommand,
  StepLimits,
  StepOutcome,
  StepTracking,
} from './engine.ts';
export { StepDetached } from './engine.ts';
export { createLocalEngine, type LocalEngineOptions } from './local-engine.ts';
export { unpackImage } from './image.ts';
/** Whether a session's loopback port accepts connections now (VICE's url-ready asks). */
export { acceptsConnections } from './interactive-session.ts';
export {
  containerArgs,
  createContainerEngine,
  imageReference,
  type ContainerEngineOptions,
} from './container-engine.ts';
export { createSlurmEngine, sbatchArgs, type SlurmEngineOptions } from './slurm-engine.ts';

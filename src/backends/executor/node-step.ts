// What the Slurm engine hands its node runner (step-on-node.ts) in the step's JSON file: the step's
// command and, when the nodes run image tools, the container runtime and registry to run them with.
import type { StepCommand } from './engine.ts';

/** The container runtime on the nodes, and the registry image names naming none come from. */
export interface NodeContainer {
  runtime: 'docker' | 'podman';
  registry?: string;
}

export interface NodeStep {
  command: StepCommand;
  container?: NodeContainer;
}

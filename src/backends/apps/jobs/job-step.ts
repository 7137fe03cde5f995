import type { FastifyBaseLogger } from 'fastify';
import type { UserNotification } from '../../../common/notifications.ts';
import type { Caller, DataStore } from '../../data-info/index.ts';

/** What a step gets: its parameter values by name, the caller, where outputs go. */
export interface StepRun {
  data: DataStore;
  caller: Caller;
  resultFolder: string;
  values: Record<string, unknown>;
  signal: AbortSignal;
  log: FastifyBaseLogger;
  /** Tells the user something besides the job's own status changes (the one event path). */
  notify: (notification: UserNotification) => Promise<boolean>;
  urlImport: { allowPrivateNetworks: boolean; maxBytes: number };
  /** Set once the step's own logs are in the result folder (else the job runner writes them). */
  logsLeft?: boolean;
}

/** Runs one step; answers the paths it wrote. A thrown error fails the job with its message. */
export type Executor = (run: StepRun) => Promise<string[]>;

export class StepError extends Error {}

/** A step ended on purpose before it finished (an interactive session exited): the job is Canceled. */
export class StepCanceled extends StepError {}

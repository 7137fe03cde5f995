import type { FastifyBaseLogger } from 'fastify';
import { GatewayError } from '../../common/errors.ts';
import { FastaError } from './fasta.ts';

/**
 * Jobs that run after their request has been answered. Each one reports its own outcome (job
 * row, notification); the set only lets the service wait for the running ones when it closes, so
 * none writes to a store that is gone.
 */
export class BackgroundJobs {
  private readonly running = new Set<Promise<void>>();

  private readonly log: FastifyBaseLogger;

  constructor(log: FastifyBaseLogger) {
    this.log = log;
  }

  start(name: string, work: () => Promise<void>): void {
    const job: Promise<void> = work()
      .catch((error: unknown) =>
        this.log.error({ err: error, job: name }, 'a genome job failed to report its outcome'),
      )
      .finally(() => this.running.delete(job));
    this.running.add(job);
  }

  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}

/**
 * What a failed job tells its user: the reason of an error meant for callers (a data-store refusal,
 * a file that is not FASTA); anything else is logged and described in general terms.
 */
export function failureReason(error: unknown, log: FastifyBaseLogger, job: string): string {
  if (error instanceof GatewayError || error instanceof FastaError) return error.message;
  log.error({ err: error, job }, 'genome job failed');
  return 'an internal error stopped the job';
}

// Interactive (VICE) steps as the job runner keeps them (migration 029): once its program runs, the
// step's row holds the loopback port and the deadline; the interactive-apps routes (time limits,
// exit, save-and-exit) change the row, and the runner, watching it, ends the step: at the deadline
// or on `save-and-exit` with its outputs saved (the analysis Completed), on `exit` without them
// (Canceled). Through the database, so it works wherever the routes and the runner run.
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';

/** Why an interactive step was ended by the platform rather than by itself or a stop. */
export type InteractiveEnding = 'exit' | 'save-and-exit' | 'time-limit';

/** A session's time limit when its tool names none: three days, as upstream. */
export const defaultSessionSeconds = 72 * 3600;

export interface InteractiveHooks {
  /** The program has started, listening (soon) on `port`, with `seconds` until its deadline. */
  started(port: number, seconds: number): Promise<void>;
  /** How the platform wants the step ended, if it does now. */
  ending(): Promise<InteractiveEnding | undefined>;
}

export function interactiveHooks(
  db: Kysely<Database>,
  externalId: string,
  now: () => number,
): InteractiveHooks {
  return {
    async started(port, seconds) {
      await db
        .updateTable('analysis_steps')
        .set({ port, time_limit: now() + seconds * 1000, session_seconds: seconds })
        .where('external_id', '=', externalId)
        .execute();
    },
    async ending() {
      const row = await db
        .selectFrom('analysis_steps')
        .select(['time_limit', 'exit_request'])
        .where('external_id', '=', externalId)
        .executeTakeFirst();
      if (row?.exit_request === 'exit' || row?.exit_request === 'save-and-exit')
        return row.exit_request;
      if (
        row?.time_limit !== null &&
        row?.time_limit !== undefined &&
        Number(row.time_limit) <= now()
      )
        return 'time-limit';
      return undefined;
    },
  };
}

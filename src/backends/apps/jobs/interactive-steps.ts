// Interactive (VICE) steps as the job runner keeps them (migration 029): once its program runs, the
// step's row holds the loopback port and the deadline; the interactive-apps routes (time limits,
// exit, save-and-exit, save-output-files, download-input-files) change the row, and the runner,
// watching it, acts: ends the step at the deadline or on `save-and-exit` with its outputs saved (the
// analysis Completed), on `exit` without them (Canceled); saves the outputs or stages the inputs
// again while it goes on. Through the database, so it works wherever the routes and the runner run.
import type { ExecutionEngine, StepCommand, StepOutcome } from '../../executor/index.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';

/** Why an interactive step was ended by the platform rather than by itself or a stop. */
export type InteractiveEnding = 'exit' | 'save-and-exit' | 'time-limit';

/** What the platform may ask of a running session: an ending, or an action while it goes on. */
export type InteractiveRequest = InteractiveEnding | 'save-output-files' | 'download-input-files';

const requests = ['exit', 'save-and-exit', 'save-output-files', 'download-input-files'];

/** The actions a session's requests run while it goes on. */
export interface SessionActions {
  saveOutputs(): Promise<void>;
  restageInputs(): Promise<void>;
  /** A request or the row's reading failed: said in the job's log, the session goes on. */
  failed(error: unknown, request?: InteractiveRequest): void;
}

/** A session's time limit when its tool names none: three days, as upstream. */
export const defaultSessionSeconds = 72 * 3600;

export interface InteractiveHooks {
  /** The program has started, listening (soon) on `port`, with `seconds` until its deadline. */
  started(port: number, seconds: number): Promise<void>;
  /** What the platform asks of the step now, if anything. */
  request(): Promise<InteractiveRequest | undefined>;
  /** A request carried out (unless another has replaced it meanwhile). */
  done(request: InteractiveRequest): Promise<void>;
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
    async request() {
      const row = await db
        .selectFrom('analysis_steps')
        .select(['time_limit', 'exit_request'])
        .where('external_id', '=', externalId)
        .executeTakeFirst();
      if (row?.exit_request && requests.includes(row.exit_request))
        return row.exit_request as InteractiveRequest;
      if (
        row?.time_limit !== null &&
        row?.time_limit !== undefined &&
        Number(row.time_limit) <= now()
      )
        return 'time-limit';
      return undefined;
    },
    async done(request) {
      await db
        .updateTable('analysis_steps')
        .set({ exit_request: null })
        .where('external_id', '=', externalId)
        .where('exit_request', '=', request)
        .execute();
    },
  };
}

/** How often a running interactive step's row is read for a request or its deadline. */
const sessionWatchMs = 500;

/**
 * Runs an interactive step until it ends by itself, by a stop (`signal`), or as the platform asks
 * through its row: its deadline, exit, save-and-exit end it (answered as `ending`); saving its
 * outputs or staging its inputs again are done while it goes on, one at a time.
 */
export async function runInteractive(
  engine: ExecutionEngine,
  command: StepCommand,
  id: string,
  signal: AbortSignal,
  hooks: InteractiveHooks,
  seconds: number,
  actions: SessionActions,
): Promise<{ outcome: StepOutcome; ending?: InteractiveEnding }> {
  const session = await engine.startInteractive(command, id);
  let ending: InteractiveEnding | undefined;
  const stop = () => void session.stop();
  if (signal.aborted) stop();
  signal.addEventListener('abort', stop, { once: true });
  let busy = false;
  const look = async () => {
    const wanted = await hooks.request();
    if (!wanted || ending) return;
    if (wanted !== 'save-output-files' && wanted !== 'download-input-files') {
      ending = wanted;
      stop();
      return;
    }
    // Done or failed, the request is cleared: a failing one is not tried for ever.
    try {
      await (wanted === 'save-output-files' ? actions.saveOutputs() : actions.restageInputs());
    } catch (error) {
      actions.failed(error, wanted);
    } finally {
      await hooks.done(wanted);
    }
  };
  const watch = setInterval(() => {
    if (busy || ending) return;
    busy = true;
    // The row unreadable (the store unreachable for a moment): said, and the next look tries again.
    look()
      .catch((error: unknown) => actions.failed(error))
      .finally(() => (busy = false));
  }, sessionWatchMs);
  try {
    await hooks.started(session.port, seconds);
    return { outcome: await session.done, ...(ending ? { ending } : {}) };
  } finally {
    clearInterval(watch);
    signal.removeEventListener('abort', stop);
  }
}

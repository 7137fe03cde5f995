// A job's status notifications, each delivered once (issue 44, docs/executor.md "Notifications"):
// written to notification_outbox in the transaction that records the status change, sent to the
// notification agent under the row's id as its `Idempotency-Key`, and removed once the agent took
// it. One the agent did not take (it was down, or the gateway died between the commit and the
// send) stays, and is sent again by whichever runner's round finds it due, an analysis's in the
// order they were recorded. The agent records a key once, so a send repeated after an acceptance
// whose removal was lost adds nothing.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import type { UserNotification } from '../../../common/notifications.ts';
import type { Database } from '../../../store/schema.ts';

/** A notification and the key the agent records it under once. */
export type KeyedNotification = UserNotification & { key: string };

/** How long after a failed send the next is tried: 1 s, doubling, at most a minute. */
const retryDelayMs = (attempts: number) => Math.min(60_000, 1000 * 2 ** Math.min(attempts, 6));

/** At most this many due notifications sent in one round. */
const roundSize = 100;

export interface JobNoticesOptions {
  db: Kysely<Database>;
  /** Sends one to the agent: whether it took it (never throws). */
  send: (notification: KeyedNotification) => Promise<boolean>;
  now: () => number;
  log: Pick<FastifyBaseLogger, 'warn'>;
  /** This runner's name (its leases'): the one sending a notification until `holdMs` has passed. */
  holder: string;
  /** How long a runner that recorded or claimed a notification has to send it before others may. */
  holdMs: number;
}

export class JobNotices {
  private readonly options: JobNoticesOptions;

  private lastRecorded = 0;

  constructor(options: JobNoticesOptions) {
    this.options = options;
  }

  /** Records `notification` about `analysisId` within `trx` (the status change's transaction). */
  async record(
    trx: Transaction<Database>,
    analysisId: string,
    notification: UserNotification,
  ): Promise<void> {
    const { now, holder, holdMs } = this.options;
    // Strictly increasing here: a job's Running and Completed recorded in one millisecond keep
    // their order.
    const at = (this.lastRecorded = Math.max(now(), this.lastRecorded + 1));
    await trx
      .insertInto('notification_outbox')
      .values({
        id: randomUUID(),
        analysis_id: analysisId,
        notification_json: JSON.stringify(notification),
        created_at: at,
        attempt_after: at + holdMs,
        holder,
      })
      .execute();
  }

  /**
   * Sends what is waiting about `analysisId`, in order, stopping at the first the agent does not
   * take (the later ones wait behind it).
   */
  async flush(analysisId: string): Promise<void> {
    const { db } = this.options;
    const waiting = await db
      .selectFrom('notification_outbox')
      .select(['id', 'notification_json', 'attempts', 'attempt_after', 'holder'])
      .where('analysis_id', '=', analysisId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    for (const row of waiting) if (!(await this.claimAndSend(row))) return;
  }

  /** One round: the notifications due (not taken before, their sender's hold passed), sent. */
  async sendDue(): Promise<void> {
    const { db, now } = this.options;
    const due = await db
      .selectFrom('notification_outbox')
      .select('analysis_id')
      .distinct()
      .where('attempt_after', '<=', now())
      .limit(roundSize)
      .execute();
    for (const { analysis_id } of due) await this.flush(analysis_id);
  }

  /** Sends one row if this runner holds it or may take it; whether it was taken by the agent. */
  private async claimAndSend(row: {
    id: string;
    notification_json: string;
    attempts: number;
    attempt_after: number;
    holder: string | null;
  }): Promise<boolean> {
    const { db, now, holder, holdMs, send, log } = this.options;
    const at = now();
    const claimed = await db
      .updateTable('notification_outbox')
      .set({ holder, attempt_after: at + holdMs })
      .where('id', '=', row.id)
      .where((eb) => eb.or([eb('holder', '=', holder), eb('attempt_after', '<=', at)]))
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) === 0) return false;
    const notification = JSON.parse(row.notification_json) as UserNotification;
    if (await send({ ...notification, key: row.id })) {
      await db.deleteFrom('notification_outbox').where('id', '=', row.id).execute();
      return true;
    }
    const attempts = Number(row.attempts) + 1;
    await db
      .updateTable('notification_outbox')
      .set({ attempts, attempt_after: now() + retryDelayMs(attempts), holder: null })
      .where('id', '=', row.id)
      .execute()
      .catch((error: unknown) =>
        log.warn({ err: error, notification: row.id }, 'could not note a failed notification'),
      );
    return false;
  }
}

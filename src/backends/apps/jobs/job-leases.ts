// Which gateway follows each active analysis (issue 44): the one whose runner holds its lease
// (analyses.lease_holder, lease_expires_at; migration 038). The holder renews its leases while it
// runs the jobs; a lease left to lapse (its gateway died) is taken over by another runner, with a
// conditional update so that exactly one takes each job, on SQLite and on PostgreSQL alike.
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';

/** Statuses a job can still leave. */
export const activeStatuses = ['Submitted', 'Running'];

/** An active job's lease as read, to take it over only if nobody renewed or took it since. */
export interface LeaseSeen {
  id: string;
  lease_holder: string | null;
  lease_expires_at: number | null;
}

/** Extends `holder`'s leases to `until`; answers the ids of the active jobs it still holds. */
export async function renewLeases(
  db: Kysely<Database>,
  holder: string,
  until: number,
): Promise<Set<string>> {
  const renewed = await db
    .updateTable('analyses')
    .set({ lease_expires_at: until })
    .where('lease_holder', '=', holder)
    .where('status', 'in', activeStatuses)
    .returning('id')
    .execute();
  return new Set(renewed.map((row) => row.id));
}

/**
 * Active jobs another runner may take over at `now`: their lease lapsed, or they never had one
 * (submitted before leases, or recorded by hand); with `everyOther`, every job `holder` does not
 * hold (the only process using the store, just started: any other holder is gone).
 */
export async function lapsedLeases(
  db: Kysely<Database>,
  holder: string,
  now: number,
  everyOther: boolean,
): Promise<LeaseSeen[]> {
  const active = db
    .selectFrom('analyses')
    .select(['id', 'lease_holder', 'lease_expires_at'])
    .where('status', 'in', activeStatuses)
    // Never its own: a lease of `holder`'s that lapsed (its renewal came late) is renewed, not
    // taken over, which would follow the job a second time beside the first.
    .where((eb) => eb.or([eb('lease_holder', 'is', null), eb('lease_holder', '<>', holder)]));
  return (
    everyOther
      ? active
      : active.where((eb) =>
          eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', now)]),
        )
  )
    .orderBy('start_date')
    .execute();
}

/**
 * Takes the job over for `holder` until `until` if its lease is still as `seen` saw it: of
 * several runners trying at once, exactly one succeeds.
 */
export async function takeOver(
  db: Kysely<Database>,
  seen: LeaseSeen,
  holder: string,
  until: number,
): Promise<boolean> {
  const result = await db
    .updateTable('analyses')
    .set({ lease_holder: holder, lease_expires_at: until })
    .where('id', '=', seen.id)
    .where('status', 'in', activeStatuses)
    .where((eb) =>
      eb.and([
        seen.lease_holder === null
          ? eb('lease_holder', 'is', null)
          : eb('lease_holder', '=', seen.lease_holder),
        seen.lease_expires_at === null
          ? eb('lease_expires_at', 'is', null)
          : eb('lease_expires_at', '=', seen.lease_expires_at),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Lets `holder`'s leases lapse now (its gateway is stopping): another takes them over at once. */
export async function releaseLeases(db: Kysely<Database>, holder: string): Promise<void> {
  await db
    .updateTable('analyses')
    .set({ lease_expires_at: 0 })
    .where('lease_holder', '=', holder)
    .where('status', 'in', activeStatuses)
    .execute();
}

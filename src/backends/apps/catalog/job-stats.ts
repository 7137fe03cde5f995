import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';

/** The AdminAppListingJobStats of apps (spec "App models"), from their analyses, in one query. */
export async function jobStats(db: Kysely<Database>, appIds: string[]) {
  const rows =
    appIds.length === 0
      ? []
      : await db
          .selectFrom('analyses')
          .select((eb) => [
            'app_id',
            eb.fn.countAll<number>().as('job_count'),
            eb.fn
              .sum<number>(eb.case().when('status', '=', 'Completed').then(1).else(0).end())
              .as('job_count_completed'),
            eb.fn
              .sum<number>(eb.case().when('status', '=', 'Failed').then(1).else(0).end())
              .as('job_count_failed'),
            eb.fn
              .max<number>(
                eb.case().when('status', '=', 'Completed').then(eb.ref('end_date')).end(),
              )
              .as('job_last_completed'),
            eb.fn.max<number>('start_date').as('last_used'),
          ])
          .where('app_id', 'in', appIds)
          .groupBy('app_id')
          .execute();
  const byApp = new Map(rows.map((row) => [row.app_id, row]));
  const iso = (ms: number | null | undefined) =>
    ms === null || ms === undefined ? undefined : new Date(Number(ms)).toISOString();
  return new Map(
    appIds.map((id) => {
      const row = byApp.get(id);
      const lastCompleted = iso(row?.job_last_completed);
      const lastUsed = iso(row?.last_used);
      return [
        id,
        {
          job_count: Number(row?.job_count ?? 0),
          job_count_completed: Number(row?.job_count_completed ?? 0),
          job_count_failed: Number(row?.job_count_failed ?? 0),
          ...(lastCompleted ? { job_last_completed: lastCompleted } : {}),
          ...(lastUsed ? { last_used: lastUsed } : {}),
        },
      ];
    }),
  );
}

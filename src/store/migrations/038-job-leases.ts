import { sql, type Kysely } from 'kysely';

/**
 * Job leases (issue 44): which gateway follows an active analysis, and until when.
 * `analyses.lease_holder` is the following gateway's runner id, `lease_expires_at` (ms since the
 * epoch) the moment another gateway may take the job over; the holder renews it while it runs
 * the job. `analysis_steps.engine_handle` is what names a step in the engine that runs it (a
 * container's name, a Slurm job id), recorded once the engine holds it, so that the gateway that
 * takes a job over can follow the step the last one started.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table analyses add column lease_holder text`.execute(db);
  await sql`alter table analyses add column lease_expires_at bigint`.execute(db);
  await sql`alter table analysis_steps add column engine_handle text`.execute(db);
  // The take-over's scan: active jobs by lease end.
  await sql`create index analyses_active_leases on analyses (lease_expires_at)
    where status in ('Submitted', 'Running')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index analyses_active_leases`.execute(db);
  await sql`alter table analysis_steps drop column engine_handle`.execute(db);
  await sql`alter table analyses drop column lease_expires_at`.execute(db);
  await sql`alter table analyses drop column lease_holder`.execute(db);
}

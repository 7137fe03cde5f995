import type { Kysely } from 'kysely';

/**
 * The CPU seconds a step's engine counted for it (the container's cgroup for Docker, the process
 * tree's times for the local engine), once it has ended; null for steps no engine ran (built-in
 * apps) and those recorded before. An analysis's cpu.hours usage is taken from them where present
 * (job-runner.ts recordCpuHours), its steps' running times elsewhere.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('analysis_steps')
    .addColumn('cpu_seconds', 'double precision')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('analysis_steps').dropColumn('cpu_seconds').execute();
}

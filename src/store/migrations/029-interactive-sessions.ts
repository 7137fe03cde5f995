import type { Kysely } from 'kysely';

/**
 * Interactive (VICE) steps as the platform serves them: the loopback port the executor gave the
 * step's program, its time limit (a deadline, milliseconds since the epoch, which users extend by
 * the session's length, `session_seconds`),
 * and a pending request (`exit`: stop, outputs dropped; `save-and-exit`: stop, outputs saved;
 * `save-output-files`, `download-input-files`: act while it goes on). The apps service's job runner keeps the step and watches the row; the interactive-apps
 * routes (served by the analyses service) read and change it, wherever either runs.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('analysis_steps').addColumn('port', 'integer').execute();
  await db.schema.alterTable('analysis_steps').addColumn('time_limit', 'bigint').execute();
  await db.schema.alterTable('analysis_steps').addColumn('session_seconds', 'integer').execute();
  await db.schema.alterTable('analysis_steps').addColumn('exit_request', 'varchar(32)').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('analysis_steps').dropColumn('exit_request').execute();
  await db.schema.alterTable('analysis_steps').dropColumn('session_seconds').execute();
  await db.schema.alterTable('analysis_steps').dropColumn('time_limit').execute();
  await db.schema.alterTable('analysis_steps').dropColumn('port').execute();
}

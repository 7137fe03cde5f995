import type { Kysely } from 'kysely';

/**
 * Tickets are looked up by object (ticket listings, removal on every delete to the trash, and the
 * ON DELETE CASCADE of each permanently deleted object), which without this index scans them all.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('data_tickets_object')
    .on('data_tickets')
    .column('object_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('data_tickets_object').execute();
}

import { sql, type Kysely } from 'kysely';

/**
 * `data_objects.blob_id`: the blob (BlobStore id) holding a file's current bytes when it is not the
 * object's own id. A new file's bytes are written under its id; new content for an existing file
 * (an overwrite, a save) is written whole to a blob of its own, and the row is pointed at it in the
 * transaction that records its size and MD5, so a crash leaves either the old bytes with the old
 * row or the new bytes with the new row, the other blob an orphan the sweep removes
 * (src/backends/data-info/writes.ts replaceContent). Null: the object's id names its bytes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table data_objects add column blob_id varchar(36)`.execute(db);
  // The orphan sweep and fsck ask which rows name a blob (orphans.ts, fsck.ts); most rows name none.
  await sql`create index data_objects_blob on data_objects (blob_id) where blob_id is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index data_objects_blob`.execute(db);
  await sql`alter table data_objects drop column blob_id`.execute(db);
}

import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Indexes that keep a page of a large listing independent of its size (issue 20, `npm run
 * bench:scale`):
 *
 * - `data_objects_children_*`: a folder's children of one type (folders, then files, are read
 *   apart) in each order the paged listing offers but path: by case-folded name, by date modified,
 *   by date created, by size. A page then reads its rows off the index (scanned backwards for a
 *   descending sort) and sorts only ties on the listing's later keys, instead of sorting the whole
 *   folder. On PostgreSQL the case-folded name is indexed in the "C" collation the listing sorts
 *   in (byte order on both engines). They replace migration 004's `data_objects_parent`: any of
 *   them serves its lookups (`parent_path = ?`).
 * - `data_folder_counts`: how many children of each type every folder holds, kept by triggers on
 *   `data_objects` in the writing transaction (whichever code inserts, moves or deletes), so a
 *   listing's `total` is read, not counted. On PostgreSQL the triggers run once per statement over
 *   its transition tables and apply one change per folder, in key order (a bulk insert or a move
 *   of a subtree updates each counter once, and writers take the counters' locks in one order).
 * - `notification_counts`: how many live (not deleted) notifications each user has of each type,
 *   seen and unseen, kept the same way by triggers on `notifications`, so the totals and unseen
 *   counts every listing, count and mark answers are read, not counted.
 * - `notifications_user_unseen`: a user's live notifications by seen and type (the selections of
 *   mark-all-seen and delete-all).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const folded = postgres ? sql.raw('lower(name) collate "C"') : sql.raw('lower(name)');
  await sql`create index data_objects_children_name on data_objects (parent_path, type, (${folded}))`.execute(
    db,
  );
  // Each of these serves `parent_path = ?`, as migration 004's single-column index did.
  await sql`drop index data_objects_parent`.execute(db);
  for (const column of ['modified_at', 'created_at', 'size']) {
    await sql`create index ${sql.raw(`data_objects_children_${column}`)} on data_objects (parent_path, type, ${sql.raw(column)})`.execute(
      db,
    );
  }
  await sql`create table data_folder_counts (
    parent_path varchar(4096) not null,
    type varchar(4) not null,
    count bigint not null,
    primary key (parent_path, type)
  )`.execute(db);
  if (postgres) await folderCountsPostgres(db);
  else await folderCountsSqlite(db);
  await sql`insert into data_folder_counts (parent_path, type, count)
    select parent_path, type, count(*) from data_objects group by parent_path, type`.execute(db);
  await sql`create table notification_counts (
    username varchar(512) not null,
    type varchar(32) not null,
    seen boolean not null,
    count bigint not null,
    primary key (username, type, seen)
  )`.execute(db);
  if (postgres) await notificationCountsPostgres(db);
  else await notificationCountsSqlite(db);
  await sql`insert into notification_counts (username, type, seen, count)
    select username, type, seen, count(*) from notifications where deleted = ${sql.lit(false)}
    group by username, type, seen`.execute(db);
  await db.schema
    .createIndex('notifications_user_unseen')
    .on('notifications')
    .columns(['username', 'deleted', 'seen', 'type'])
    .execute();
}

async function folderCountsSqlite(db: Kysely<unknown>): Promise<void> {
  const add = (row: 'new') =>
    sql.raw(`insert into data_folder_counts (parent_path, type, count)
      values (${row}.parent_path, ${row}.type, 1)
      on conflict (parent_path, type) do update set count = count + 1;`);
  const remove = (row: 'old') =>
    sql.raw(`update data_folder_counts set count = count - 1
      where parent_path = ${row}.parent_path and type = ${row}.type;`);
  await sql`create trigger data_folder_counts_insert after insert on data_objects begin
    ${add('new')}
  end`.execute(db);
  await sql`create trigger data_folder_counts_delete after delete on data_objects begin
    ${remove('old')}
  end`.execute(db);
  await sql`create trigger data_folder_counts_move after update of parent_path, type on data_objects
    when new.parent_path is not old.parent_path or new.type is not old.type begin
    ${remove('old')}
    ${add('new')}
  end`.execute(db);
}

async function folderCountsPostgres(db: Kysely<unknown>): Promise<void> {
  // Each statement's changes per folder and type, applied once each, in key order.
  const apply = (changes: string) => `
    insert into data_folder_counts (parent_path, type, count)
      select parent_path, type, sum(delta) from (${changes}) as changes
      group by parent_path, type having sum(delta) <> 0 order by parent_path, type
    on conflict (parent_path, type) do update set count = data_folder_counts.count + excluded.count;`;
  const added = 'select parent_path, type, 1 as delta from added_rows';
  const removed = 'select parent_path, type, -1 as delta from removed_rows';
  const triggers: [string, string, string, string][] = [
    ['insert', 'insert', 'new table as added_rows', apply(added)],
    ['delete', 'delete', 'old table as removed_rows', apply(removed)],
    [
      'move',
      'update',
      'old table as removed_rows new table as added_rows',
      apply(`${added} union all ${removed}`),
    ],
  ];
  for (const [name, event, transition, body] of triggers) {
    await sql
      .raw(
        `create function data_folder_counts_${name}() returns trigger language plpgsql as $$
      begin ${body} return null; end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger data_folder_counts_${name} after ${event} on data_objects
      referencing ${transition} for each statement execute function data_folder_counts_${name}()`,
      )
      .execute(db);
  }
}

async function notificationCountsSqlite(db: Kysely<unknown>): Promise<void> {
  const add = `insert into notification_counts (username, type, seen, count)
      select new.username, new.type, new.seen, 1 where not new.deleted
      on conflict (username, type, seen) do update set count = count + 1;`;
  const remove = `update notification_counts set count = count - 1
      where not old.deleted and username = old.username and type = old.type and seen = old.seen;`;
  await sql
    .raw(
      `create trigger notification_counts_insert after insert on notifications begin
    ${add}
  end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger notification_counts_delete after delete on notifications begin
    ${remove}
  end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger notification_counts_update
    after update of username, type, seen, deleted on notifications begin
    ${remove}
    ${add}
  end`,
    )
    .execute(db);
}

async function notificationCountsPostgres(db: Kysely<unknown>): Promise<void> {
  const apply = (changes: string) => `
    insert into notification_counts (username, type, seen, count)
      select username, type, seen, sum(delta) from (${changes}) as changes
      group by username, type, seen having sum(delta) <> 0 order by username, type, seen
    on conflict (username, type, seen) do update set count = notification_counts.count + excluded.count;`;
  const added = 'select username, type, seen, 1 as delta from added_rows where not deleted';
  const removed = 'select username, type, seen, -1 as delta from removed_rows where not deleted';
  const triggers: [string, string, string, string][] = [
    ['insert', 'insert', 'new table as added_rows', apply(added)],
    ['delete', 'delete', 'old table as removed_rows', apply(removed)],
    [
      'update',
      'update',
      'old table as removed_rows new table as added_rows',
      apply(`${added} union all ${removed}`),
    ],
  ];
  for (const [name, event, transition, body] of triggers) {
    await sql
      .raw(
        `create function notification_counts_${name}() returns trigger language plpgsql as $$
      begin ${body} return null; end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger notification_counts_${name} after ${event} on notifications
      referencing ${transition} for each statement execute function notification_counts_${name}()`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const name of ['insert', 'delete', 'move']) {
    await sql
      .raw(`drop trigger data_folder_counts_${name}${postgres ? ' on data_objects' : ''}`)
      .execute(db);
    if (postgres) await sql.raw(`drop function data_folder_counts_${name}()`).execute(db);
  }
  await sql`drop table data_folder_counts`.execute(db);
  for (const name of ['insert', 'delete', 'update']) {
    await sql
      .raw(`drop trigger notification_counts_${name}${postgres ? ' on notifications' : ''}`)
      .execute(db);
    if (postgres) await sql.raw(`drop function notification_counts_${name}()`).execute(db);
  }
  await sql`drop table notification_counts`.execute(db);
  await db.schema.dropIndex('notifications_user_unseen').execute();
  for (const column of ['name', 'modified_at', 'created_at', 'size'])
    await db.schema.dropIndex(`data_objects_children_${column}`).execute();
  await db.schema
    .createIndex('data_objects_parent')
    .on('data_objects')
    .column('parent_path')
    .execute();
}

import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * `data_folder_counts.version`: a number that changes whenever the order of a folder's children
 * of one type may have changed (a child inserted, deleted, moved in or out, renamed, or its date
 * created, date modified or size changed), kept by migration 033's triggers in the writing
 * transaction, whichever code writes. The paged listing remembers where the pages it served
 * started and ended (src/backends/data-info/page-marks.ts) and starts a later deep page from the
 * nearest of those places instead of walking the folder from its first child; a remembered place
 * holds only while the version it was read at is the folder's version (issue 20, `npm run
 * bench:scale`).
 *
 * SQLite: the insert, delete and move triggers also bump the version; a new trigger bumps it when
 * a child's name, dates or size change in place. PostgreSQL: the per-statement functions bump the
 * version of every folder and type they touch, and the update function now also counts a change
 * of name, dates or size (rows that differ between the statement's old and new transition tables
 * on those columns, paired by id), each folder once per statement, in key order, as before.
 */
/** The columns of a child that decide its folder, type and place in a listing's order. */
const keyColumns = ['parent_path', 'type', 'name', 'created_at', 'modified_at', 'size'];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table data_folder_counts add column version bigint not null default 0`.execute(
    db,
  );
  if (isPostgres(db)) await postgresFunctions(db, true);
  else await sqliteTriggers(db, true);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) await postgresFunctions(db, false);
  else await sqliteTriggers(db, false);
  await sql`alter table data_folder_counts drop column version`.execute(db);
}

const isPostgres = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof PostgresAdapter;

/** Migration 033's triggers again, the version bumped with each count when `versioned`, and a trigger for changes in place. */
async function sqliteTriggers(db: Kysely<unknown>, versioned: boolean): Promise<void> {
  for (const name of ['insert', 'delete', 'move'])
    await sql.raw(`drop trigger data_folder_counts_${name}`).execute(db);
  const bump = versioned ? ', version = version + 1' : '';
  const add = `insert into data_folder_counts (parent_path, type, count${versioned ? ', version' : ''})
      values (new.parent_path, new.type, 1${versioned ? ', 1' : ''})
      on conflict (parent_path, type) do update set count = count + 1${bump};`;
  const remove = `update data_folder_counts set count = count - 1${bump}
      where parent_path = old.parent_path and type = old.type;`;
  const triggers = [
    `data_folder_counts_insert after insert on data_objects begin ${add} end`,
    `data_folder_counts_delete after delete on data_objects begin ${remove} end`,
    `data_folder_counts_move after update of parent_path, type on data_objects
    when new.parent_path is not old.parent_path or new.type is not old.type begin ${remove} ${add} end`,
  ];
  for (const trigger of triggers) await sql.raw(`create trigger ${trigger}`).execute(db);
  if (!versioned) {
    await sql`drop trigger data_folder_versions_change`.execute(db);
    return;
  }
  await sql`create trigger data_folder_versions_change
    after update of name, created_at, modified_at, size on data_objects
    when new.parent_path is old.parent_path and new.type is old.type
      and (new.name is not old.name or new.created_at is not old.created_at
        or new.modified_at is not old.modified_at or new.size is not old.size) begin
    update data_folder_counts set version = version + 1
      where parent_path = new.parent_path and type = new.type;
  end`.execute(db);
}

/**
 * Migration 033's per-statement functions, replaced: with `versioned`, every folder and type a
 * statement touches is counted and versioned once, in key order, and an update counts the rows
 * whose keys differ between their old and new versions (a change of other columns moves nothing);
 * without, 033's bodies (a folder written only when its count changes).
 */
async function postgresFunctions(db: Kysely<unknown>, versioned: boolean): Promise<void> {
  const apply = (changes: string) => `
    insert into data_folder_counts (parent_path, type, count${versioned ? ', version' : ''})
      select parent_path, type, sum(delta)${versioned ? ', 1' : ''} from (${changes}) as changes
      group by parent_path, type${versioned ? '' : ' having sum(delta) <> 0'} order by parent_path, type
    on conflict (parent_path, type) do update
      set count = data_folder_counts.count + excluded.count${versioned ? ', version = data_folder_counts.version + 1' : ''};`;
  const added = 'select parent_path, type, 1 as delta from added_rows';
  const removed = 'select parent_path, type, -1 as delta from removed_rows';
  // An update's rows whose keys changed, old and new side, paired by id (an update keeps ids): a
  // hash join, ≈ 3.5 times cheaper at 100k rows than comparing the tables by `except all`.
  const differs = keyColumns
    .map((column) => `n.${column} is distinct from o.${column}`)
    .join(' or ');
  const changed = `with changed as (select n.parent_path as new_parent, n.type as new_type,
        o.parent_path as old_parent, o.type as old_type
      from added_rows n join removed_rows o on o.id = n.id where ${differs})
    select new_parent as parent_path, new_type as type, 1 as delta from changed
    union all select old_parent, old_type, -1 from changed`;
  const bodies: [string, string][] = [
    ['insert', apply(added)],
    ['delete', apply(removed)],
    ['move', apply(versioned ? changed : `${added} union all ${removed}`)],
  ];
  for (const [name, body] of bodies)
    await sql
      .raw(
        `create or replace function data_folder_counts_${name}() returns trigger language plpgsql as $$
      begin ${body} return null; end $$`,
      )
      .execute(db);
}

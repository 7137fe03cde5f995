import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The favourites listing's sort keys and counts, kept with the favourites (issue 20, `npm run
 * bench:scale`; data-info's `/favorite-lister`, src/backends/data-info/favorite-listing.ts):
 *
 * - `favorites.obj_*`: a copy of the marked object's type, name, path, dates and size (all NULL
 *   while no data object has the favourite's id: never made, or deleted). Triggers keep it in the
 *   writing transaction, whichever code writes: filled when a favourite is marked, rewritten when
 *   the object is inserted, renamed, moved (a subtree move rewrites every path below it, so every
 *   favourite below it) or changed, set to NULL when it is deleted. On SQLite per row; on
 *   PostgreSQL the `data_objects` side runs once per statement over its transition tables (one
 *   join, so a bulk insert or a subtree move touches each favourite once), the fill per row.
 * - `favorites_page_*`: one owner's favourites of one object type in each order the listing
 *   offers (the field, then the case-folded name and the name that break its ties, then the id),
 *   so that a page is read in order off an index and stops after it, instead of joining and
 *   sorting every favourite. `favorites_page_path` also serves the listing's `total`: the
 *   favourites outside the caller's granted folders are found by path ranges. On PostgreSQL the
 *   name and path copies are in the "C" collation (byte order, the listing's order on both
 *   engines).
 * - `favorites_target`: the favourites of one object, for the triggers above.
 * - `favorite_counts`: per owner, marked kind and object type, the favourites whose object
 *   exists (`obj_type` not NULL), kept by triggers on `favorites` (PostgreSQL: per statement,
 *   one change per key in key order, as migration 033's counters).
 */
const objectColumns = [
  'obj_type',
  'obj_name',
  'obj_path',
  'obj_created',
  'obj_modified',
  'obj_size',
];
const sourceColumns = ['type', 'name', 'path', 'created_at', 'modified_at', 'size'];

const orders: Record<string, string[]> = {
  name: ['lower(obj_name)', 'obj_name'],
  path: ['obj_path'],
  modified: ['obj_modified', 'lower(obj_name)', 'obj_name'],
  created: ['obj_created', 'lower(obj_name)', 'obj_name'],
  size: ['obj_size', 'lower(obj_name)', 'obj_name'],
};

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const text = (length: number) => `varchar(${length})${postgres ? ' collate "C"' : ''}`;
  const types: Record<string, string> = {
    obj_type: 'varchar(4)',
    obj_name: text(1024),
    obj_path: text(4096),
    obj_created: 'bigint',
    obj_modified: 'bigint',
    obj_size: 'bigint',
  };
  for (const column of objectColumns)
    await sql.raw(`alter table favorites add column ${column} ${types[column]}`).execute(db);
  // The favourites marked before this migration.
  if (postgres)
    await sql
      .raw(
        `update favorites f set ${objectColumns.map((column, i) => `${column} = o.${sourceColumns[i]}`).join(', ')}
        from data_objects o where o.id = f.target_id`,
      )
      .execute(db);
  else
    await sql
      .raw(
        `update favorites set (${objectColumns.join(', ')}) =
        (select ${sourceColumns.join(', ')} from data_objects o where o.id = favorites.target_id)`,
      )
      .execute(db);
  for (const [order, keys] of Object.entries(orders))
    await sql
      .raw(
        `create index favorites_page_${order} on favorites (owner_id, obj_type, ${keys.join(', ')}, target_id)`,
      )
      .execute(db);
  await sql`create index favorites_target on favorites (target_id)`.execute(db);
  await sql`create table favorite_counts (
    owner_id varchar(512) not null,
    target_type varchar(16) not null,
    obj_type varchar(4) not null,
    count bigint not null,
    primary key (owner_id, target_type, obj_type)
  )`.execute(db);
  await sql`insert into favorite_counts (owner_id, target_type, obj_type, count)
    select owner_id, target_type, obj_type, count(*) from favorites where obj_type is not null
    group by owner_id, target_type, obj_type`.execute(db);
  if (postgres) await triggersPostgres(db);
  else await triggersSqlite(db);
  // Statistics for the new indexes (SQLite would guess how selective each is), but not of an
  // empty PostgreSQL table: see migration 034 (statistics saying "empty" made bulk inserts
  // quadratic until autovacuum analyzed the table again).
  const empty =
    postgres &&
    (await sql<{ found: boolean }>`select exists (select 1 from favorites) as found`.execute(db))
      .rows[0]?.found !== true;
  if (!empty) await sql`analyze favorites`.execute(db);
}

async function triggersSqlite(db: Kysely<unknown>): Promise<void> {
  const copy = (row: string) =>
    `update favorites set (${objectColumns.join(', ')}) =
      (${sourceColumns.map((column) => `${row}.${column}`).join(', ')}) where target_id = ${row}.id;`;
  const statements: string[] = [
    `create trigger favorites_keys_fill after insert on favorites begin
      update favorites set (${objectColumns.join(', ')}) =
        (select ${sourceColumns.join(', ')} from data_objects o where o.id = new.target_id)
      where owner_id = new.owner_id and target_id = new.target_id;
    end`,
    `create trigger favorites_keys_object_insert after insert on data_objects begin ${copy('new')} end`,
    `create trigger favorites_keys_object_update
      after update of ${sourceColumns.join(', ')} on data_objects begin ${copy('new')} end`,
    `create trigger favorites_keys_object_delete after delete on data_objects begin
      update favorites set (${objectColumns.join(', ')}) =
        (${objectColumns.map(() => 'null').join(', ')}) where target_id = old.id;
    end`,
  ];
  const add = `insert into favorite_counts (owner_id, target_type, obj_type, count)
      select new.owner_id, new.target_type, new.obj_type, 1 where new.obj_type is not null
      on conflict (owner_id, target_type, obj_type) do update set count = count + 1;`;
  const remove = `update favorite_counts set count = count - 1
      where old.obj_type is not null and owner_id = old.owner_id
      and target_type = old.target_type and obj_type = old.obj_type;`;
  statements.push(
    `create trigger favorite_counts_insert after insert on favorites begin ${add} end`,
    `create trigger favorite_counts_delete after delete on favorites begin ${remove} end`,
    `create trigger favorite_counts_update after update of owner_id, target_type, obj_type on favorites
      when new.owner_id is not old.owner_id or new.target_type is not old.target_type
        or new.obj_type is not old.obj_type
      begin ${remove} ${add} end`,
  );
  for (const statement of statements) await sql.raw(statement).execute(db);
}

async function triggersPostgres(db: Kysely<unknown>): Promise<void> {
  const set = (row: string) =>
    objectColumns.map((column, i) => `${column} = ${row}.${sourceColumns[i]}`).join(', ');
  const changed = `(${objectColumns.map((column) => `f.${column}`).join(', ')}) is distinct from
    (${sourceColumns.map((column) => `n.${column}`).join(', ')})`;
  const functions: [string, string][] = [
    [
      'favorites_keys_fill',
      `begin
        select ${sourceColumns.join(', ')} into ${objectColumns.map((column) => `new.${column}`).join(', ')}
          from data_objects where id = new.target_id;
        return new;
      end`,
    ],
    [
      'favorites_keys_object_insert',
      `begin
        update favorites f set ${set('n')} from added_rows n where f.target_id = n.id;
        return null;
      end`,
    ],
    [
      'favorites_keys_object_update',
      `begin
        update favorites f set ${set('n')} from added_rows n where f.target_id = n.id and ${changed};
        return null;
      end`,
    ],
    [
      'favorites_keys_object_delete',
      `begin
        update favorites f set ${objectColumns.map((column) => `${column} = null`).join(', ')}
          from removed_rows r where f.target_id = r.id;
        return null;
      end`,
    ],
  ];
  // Each statement's changes per owner, kind and object type, applied once each, in key order.
  const apply = (changes: string) => `begin
    insert into favorite_counts (owner_id, target_type, obj_type, count)
      select owner_id, target_type, obj_type, sum(delta) from (${changes}) as changes
      group by owner_id, target_type, obj_type having sum(delta) <> 0
      order by owner_id, target_type, obj_type
    on conflict (owner_id, target_type, obj_type)
      do update set count = favorite_counts.count + excluded.count;
    return null;
  end`;
  const added =
    'select owner_id, target_type, obj_type, 1 as delta from added_rows where obj_type is not null';
  const removed =
    'select owner_id, target_type, obj_type, -1 as delta from removed_rows where obj_type is not null';
  functions.push(
    ['favorite_counts_insert', apply(added)],
    ['favorite_counts_delete', apply(removed)],
    ['favorite_counts_update', apply(`${added} union all ${removed}`)],
  );
  for (const [name, body] of functions)
    await sql
      .raw(`create function ${name}() returns trigger language plpgsql as $$ ${body} $$`)
      .execute(db);
  const triggers: [string, string][] = [
    ['favorites_keys_fill', 'before insert on favorites for each row'],
    [
      'favorites_keys_object_insert',
      'after insert on data_objects referencing new table as added_rows for each statement',
    ],
    [
      'favorites_keys_object_update',
      'after update on data_objects referencing new table as added_rows for each statement',
    ],
    [
      'favorites_keys_object_delete',
      'after delete on data_objects referencing old table as removed_rows for each statement',
    ],
    [
      'favorite_counts_insert',
      'after insert on favorites referencing new table as added_rows for each statement',
    ],
    [
      'favorite_counts_delete',
      'after delete on favorites referencing old table as removed_rows for each statement',
    ],
    [
      'favorite_counts_update',
      'after update on favorites referencing old table as removed_rows new table as added_rows for each statement',
    ],
  ];
  for (const [name, event] of triggers)
    await sql.raw(`create trigger ${name} ${event} execute function ${name}()`).execute(db);
}

const triggerTables: Record<string, string> = {
  favorites_keys_fill: 'favorites',
  favorites_keys_object_insert: 'data_objects',
  favorites_keys_object_update: 'data_objects',
  favorites_keys_object_delete: 'data_objects',
  favorite_counts_insert: 'favorites',
  favorite_counts_delete: 'favorites',
  favorite_counts_update: 'favorites',
};

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const [name, table] of Object.entries(triggerTables)) {
    await sql.raw(`drop trigger ${name}${postgres ? ` on ${table}` : ''}`).execute(db);
    if (postgres) await sql.raw(`drop function ${name}()`).execute(db);
  }
  await sql`drop table favorite_counts`.execute(db);
  for (const order of [...Object.keys(orders).map((order) => `page_${order}`), 'target'])
    await sql.raw(`drop index favorites_${order}`).execute(db);
  for (const column of objectColumns)
    await sql.raw(`alter table favorites drop column ${column}`).execute(db);
}

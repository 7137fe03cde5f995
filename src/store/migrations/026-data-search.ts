import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The data search's name index (routes.md §26): the database's own full-text search over the name
 * of every data object, kept current by triggers on `data_objects`, so that every write (an
 * insert, a rename or a move that renames, a delete, whichever code makes it) updates it in the
 * same transaction.
 *
 * - SQLite: an FTS5 table with the trigram tokenizer (`data_search_names`), which finds any
 *   substring of three characters or more, any letter case. FTS5 rows are keyed by integers and
 *   `data_objects` by UUIDs, so `data_search_keys` gives each object a stable integer key (a
 *   table's implicit rowid may change on VACUUM).
 * - PostgreSQL: a `tsvector` per object with a GIN index (`data_search_names.terms`). Full-text
 *   search matches whole words or word prefixes, so each word of a name (runs of a–z, 0–9 after
 *   lower-casing) is indexed with all its suffixes: a prefix query on a suffix finds any substring
 *   of a word. Deleted objects leave through the foreign key's cascade.
 *
 * On both engines the index only narrows the candidates; the search then checks each name exactly.
 * `data_objects_folders` indexes the folders alone, for the search's reading of granted folders.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // The folders alone: a search first reads which folders the caller holds a grant on.
  await sql`create index data_objects_folders on data_objects (path) where type = 'dir'`.execute(
    db,
  );
  if (db.getExecutor().adapter instanceof PostgresAdapter) await upPostgres(db);
  else await upSqlite(db);
}

async function upSqlite(db: Kysely<unknown>): Promise<void> {
  await sql`create table data_search_keys (
    key integer primary key autoincrement,
    object_id varchar(36) not null unique
  )`.execute(db);
  await sql`create virtual table data_search_names using fts5(name, tokenize = 'trigram')`.execute(
    db,
  );
  await sql`create trigger data_search_insert after insert on data_objects begin
    insert into data_search_keys (object_id) values (new.id);
    insert into data_search_names (rowid, name)
      values ((select key from data_search_keys where object_id = new.id), new.name);
  end`.execute(db);
  await sql`create trigger data_search_rename after update of name on data_objects
    when new.name is not old.name begin
    update data_search_names set name = new.name
      where rowid = (select key from data_search_keys where object_id = new.id);
  end`.execute(db);
  await sql`create trigger data_search_delete after delete on data_objects begin
    delete from data_search_names
      where rowid = (select key from data_search_keys where object_id = old.id);
    delete from data_search_keys where object_id = old.id;
  end`.execute(db);
  await sql`insert into data_search_keys (object_id) select id from data_objects`.execute(db);
  await sql`insert into data_search_names (rowid, name)
    select k.key, o.name from data_search_keys k inner join data_objects o on o.id = k.object_id`.execute(
    db,
  );
}

async function upPostgres(db: Kysely<unknown>): Promise<void> {
  // Suffixes start within a word's first 255 characters: longer words are not worth the index.
  await sql`create function data_search_terms(name text) returns tsvector
    language sql immutable parallel safe as $$
      select coalesce(array_to_tsvector(array_agg(distinct substr(w, i))), ''::tsvector)
      from regexp_split_to_table(lower(name), '[^a-z0-9]+') as w
      cross join lateral generate_series(1, least(length(w), 255)) as i
      where w <> ''
    $$`.execute(db);
  await sql`create table data_search_names (
    object_id varchar(36) primary key references data_objects (id) on delete cascade,
    terms tsvector not null
  )`.execute(db);
  await sql`create index data_search_names_terms on data_search_names using gin (terms)`.execute(
    db,
  );
  await sql`create function data_search_sync() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into data_search_names (object_id, terms) values (new.id, data_search_terms(new.name));
      elsif new.name is distinct from old.name then
        update data_search_names set terms = data_search_terms(new.name) where object_id = new.id;
      end if;
      return null;
    end
  $$`.execute(db);
  await sql`create trigger data_search_sync after insert or update of name on data_objects
    for each row execute function data_search_sync()`.execute(db);
  await sql`insert into data_search_names (object_id, terms)
    select id, data_search_terms(name) from data_objects`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index data_objects_folders`.execute(db);
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger data_search_sync on data_objects`.execute(db);
    await sql`drop table data_search_names`.execute(db);
    await sql`drop function data_search_sync()`.execute(db);
    await sql`drop function data_search_terms(text)`.execute(db);
    return;
  }
  for (const trigger of ['data_search_insert', 'data_search_rename', 'data_search_delete'])
    await sql`drop trigger ${sql.raw(trigger)}`.execute(db);
  await sql`drop table data_search_names`.execute(db);
  await sql`drop table data_search_keys`.execute(db);
}

import {
  PostgresAdapter,
  sql,
  type Expression,
  type Kysely,
  type RawBuilder,
  type SqlBool,
} from 'kysely';
import type { Database } from '../../store/schema.ts';
import { atLeast, everyone, strongest, type DataObject } from './object-index.ts';
import { type Permission } from '../../common/data-stat.ts';
import { isWithin } from '../../common/data-path.ts';
import { codePoints } from './tree.ts';
import type { Caller, DataStore } from './store.ts';
import { gatewayError } from '../../common/errors.ts';

/**
 * What a caller may see (backends.md §2.1, "shared with me"). A grant on a folder covers all of
 * it, so a folder the caller holds a level on is readable with everything in it. A folder they
 * hold nothing on may still lie on the way to something shared with them or with everyone — their
 * own home under `/<zone>/home`, bob's home when bob shared one file inside it: such a folder is a
 * *pass-through*. It can be listed, shows only the children that lead to granted items, and is
 * reported with permission `read`. Another user's trash is never shown, whatever grants lie in it.
 */
export type Access = Permission | 'pass-through';

/** The level to report for an access: pass-through folders are reported as `read`. */
export function reported(access: Access): Permission {
  return access === 'pass-through' ? 'read' : access;
}

/** SQL: `column` is `ancestor` or lies below it (by whole segments); `ancestor` is a value. */
export function withinValue(column: Expression<unknown>, ancestor: string): RawBuilder<SqlBool> {
  const prefix = `${ancestor}/`;
  return sql<SqlBool>`(${column} = ${ancestor} or substr(${column}, 1, ${sql.lit(codePoints(prefix))}) = ${prefix})`;
}

/** SQL: `inner` is `outer` or lies below it; both are columns. */
function withinColumn(inner: Expression<unknown>, outer: Expression<unknown>): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${inner} = ${outer} or substr(${inner}, 1, length(${outer}) + 1) = ${outer} || '/')`;
}

export function isPostgres(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Text compared byte-wise (code point order) on both engines, whatever the database's locale. */
export function binaryText(
  db: Kysely<Database>,
  expression: Expression<unknown>,
): RawBuilder<unknown> {
  return isPostgres(db) ? sql`${expression} collate "C"` : sql`${expression}`;
}

/** More granted folders than this and readableFast's condition would grow too long to help. */
const MAX_SEARCH_ROOTS = 200;

/** The paths that lie below none of the others. */
function topmost(paths: string[]): string[] {
  const sorted = [...new Set(paths)].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const path of sorted) if (!kept.some((root) => isWithin(path, root))) kept.push(path);
  return kept;
}

export class Visibility {
  private readonly trashHome: string;

  private readonly data: DataStore;

  constructor(data: DataStore) {
    this.data = data;
    this.trashHome = `/${data.zone}/trash/home`;
  }

  private ownTrash(caller: Caller): string {
    return this.data.catalog.basePaths(caller.name).user_trash_path;
  }

  /** True for anything inside another user's trash. */
  hidden(caller: Caller, path: string): boolean {
    return path.startsWith(`${this.trashHome}/`) && !isWithin(path, this.ownTrash(caller));
  }

  /** SQL: the path column does not lie in another user's trash. */
  private notHidden(caller: Caller, column: Expression<unknown>): RawBuilder<SqlBool> {
    const prefix = `${this.trashHome}/`;
    return sql<SqlBool>`(substr(${column}, 1, ${sql.lit(codePoints(prefix))}) <> ${prefix} or ${withinValue(column, this.ownTrash(caller))})`;
  }

  /** The caller's level on a path (grants on it or above), none inside another user's trash. */
  async level(caller: Caller, path: string): Promise<Permission | undefined> {
    if (this.hidden(caller, path)) return undefined;
    return this.data.permission(caller, path);
  }

  /** level() for many paths at once. */
  async levels(caller: Caller, paths: string[]): Promise<Map<string, Permission | undefined>> {
    const levels = await this.data.permissions(
      caller,
      paths.filter((path) => !this.hidden(caller, path)),
    );
    return new Map(paths.map((path) => [path, levels.get(path)]));
  }

  /**
   * SQL: some grant to the caller or to everyone sits on the path column or below it, outside
   * other users' trash. Used to keep a pass-through folder's children to those that lead somewhere.
   */
  leadsToGrant(caller: Caller, column: Expression<unknown>): RawBuilder<SqlBool> {
    return sql<SqlBool>`exists (select 1 from data_permissions p inner join data_objects g on g.id = p.object_id
      where p.username in (${caller.name}, ${everyone}) and ${withinColumn(sql.ref('g.path'), column)} and ${this.notHidden(caller, sql.ref('g.path'))})`;
  }

  /** SQL: the path column is readable: a grant to the caller or everyone sits on it or above it. */
  readable(caller: Caller, column: Expression<unknown>): RawBuilder<SqlBool> {
    return sql<SqlBool>`(exists (select 1 from data_permissions p inner join data_objects g on g.id = p.object_id
      where p.username in (${caller.name}, ${everyone}) and ${withinColumn(column, sql.ref('g.path'))}) and ${this.notHidden(caller, column)})`;
  }

  /**
   * SQL: the object (its id and path columns) is readable, as `readable` says, in a form that
   * stays fast over a whole catalog: `readable` looks at every grant of the caller for each row,
   * and a user holds one on everything they made. Here the folders granted to the caller or
   * everyone are read first and kept to the topmost ones (a user's home covers all their own
   * things), so each row needs its own grant (by key) or a path below one of those folders.
   * Past `MAX_SEARCH_ROOTS` folders it falls back to `readable`.
   */
  async readableFast(
    caller: Caller,
    idColumn: Expression<unknown>,
    pathColumn: Expression<unknown>,
  ): Promise<RawBuilder<SqlBool>> {
    const roots = await this.grantedRoots(caller);
    if (roots === undefined) return this.readable(caller, pathColumn);
    return this.readableBelow(caller, roots, idColumn, pathColumn);
  }

  /**
   * The topmost folders granted to the caller or everyone (readableFast's), or undefined past
   * `MAX_SEARCH_ROOTS` of them.
   */
  async grantedRoots(caller: Caller): Promise<string[] | undefined> {
    // Folders first, through the partial index of migration 026 (`type = 'dir'` written as a
    // literal so that both engines use it): a user holds a grant on every file they made.
    const rows = await this.data.db
      .selectFrom('data_objects as g')
      .select('g.path')
      .where(sql<SqlBool>`g.type = 'dir'`)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('data_permissions as p')
            .select('p.object_id')
            .whereRef('p.object_id', '=', 'g.id')
            .where('p.username', 'in', [caller.name, everyone]),
        ),
      )
      .execute();
    const roots = topmost(rows.map((row) => row.path));
    return roots.length > MAX_SEARCH_ROOTS ? undefined : roots;
  }

  /** readableFast's condition for the caller's granted roots (grantedRoots). */
  readableBelow(
    caller: Caller,
    roots: string[],
    idColumn: Expression<unknown>,
    pathColumn: Expression<unknown>,
  ): RawBuilder<SqlBool> {
    const own = sql<SqlBool>`exists (select 1 from data_permissions d where d.object_id = ${idColumn} and d.username in (${caller.name}, ${everyone}))`;
    const below = roots.map((root) => withinValue(pathColumn, root));
    // The paths first: both engines test an `or` in the order written, and most hits lie below
    // a granted folder, so the grant lookup runs only for the others.
    return sql<SqlBool>`((${sql.join([...below, own], sql` or `)}) and ${this.notHidden(caller, pathColumn)})`;
  }

  /**
   * The paths readableBelow may hide although they lie below a granted root: other users' trash
   * (everything below `/<zone>/trash/home/`, the caller's own trash aside, which this keeps).
   */
  hiddenRange(caller: Caller): { below: string; except: string } {
    return { below: this.trashHome, except: this.ownTrash(caller) };
  }

  /** True when something granted to the caller or everyone lies strictly below `folder`. */
  async passesThrough(caller: Caller, folder: string): Promise<boolean> {
    if (this.hidden(caller, folder)) return false;
    const prefix = `${folder}/`;
    const row = await this.data.db
      .selectFrom('data_permissions as p')
      .innerJoin('data_objects as g', 'g.id', 'p.object_id')
      .select('p.object_id')
      .where('p.username', 'in', [caller.name, everyone])
      .where(sql<SqlBool>`substr(g.path, 1, ${sql.lit(codePoints(prefix))}) = ${prefix}`)
      .where(this.notHidden(caller, sql.ref('g.path')))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The caller's access to an object: a level, pass-through for a folder on the way to a grant, or none. */
  async access(caller: Caller, object: DataObject): Promise<Access | undefined> {
    const level = await this.level(caller, object.path);
    if (level) return level;
    if (object.type === 'dir' && (await this.passesThrough(caller, object.path)))
      return 'pass-through';
    return undefined;
  }

  /** Access for reading or listing, or ERR_NOT_READABLE. */
  async requireRead(caller: Caller, object: DataObject): Promise<Access> {
    const access = await this.access(caller, object);
    if (!access) throw this.refusal(caller, object, 'read');
    return access;
  }

  /** A real level of at least `needed` (pass-through never suffices), or the matching refusal. */
  async requireLevel(caller: Caller, object: DataObject, needed: Permission): Promise<Permission> {
    const level = await this.level(caller, object.path);
    if (!atLeast(level, needed)) throw this.refusal(caller, object, needed);
    return level!;
  }

  refusal(caller: Caller, object: DataObject, needed: Permission) {
    const code =
      needed === 'read'
        ? 'ERR_NOT_READABLE'
        : needed === 'write'
          ? 'ERR_NOT_WRITEABLE'
          : 'ERR_NOT_OWNER';
    const verb = needed === 'own' ? 'does not own' : `cannot ${needed}`;
    return gatewayError(code, `${caller.name} ${verb} ${object.path}`, {
      path: object.path,
      user: caller.name,
    });
  }

  /** The strongest grant to the caller or everyone on each object itself (not inherited). */
  async directGrants(caller: Caller, ids: string[]): Promise<Map<string, Permission>> {
    const grants = new Map<string, Permission>();
    if (ids.length === 0) return grants;
    const rows = await this.data.db
      .selectFrom('data_permissions')
      .select(['object_id', 'permission'])
      .where('object_id', 'in', ids)
      .where('username', 'in', [caller.name, everyone])
      .execute();
    for (const row of rows)
      grants.set(row.object_id, strongest([grants.get(row.object_id), row.permission])!);
    return grants;
  }
}

const visibilities = new WeakMap<DataStore, Visibility>();

/** One Visibility per data store. */
export function visibilityOf(data: DataStore): Visibility {
  let visibility = visibilities.get(data);
  if (!visibility) {
    visibility = new Visibility(data);
    visibilities.set(data, visibility);
  }
  return visibility;
}

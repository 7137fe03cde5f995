import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../../store/schema.js';
import { strongest, type DataObject } from './object-index.js';
import { type Permission } from '../../common/data-stat.js';
import { baseName, isBadName, type BadNameRules } from '../../common/data-path.js';
import type { Caller, DataStore } from './store.js';
import { binaryText, reported, visibilityOf, type Access } from './visibility.js';

/** backends.md §2.3: the paged folder listing, sorted and paged by the database. */

export const sortFields = ['datecreated', 'datemodified', 'name', 'path', 'size'] as const;
export type SortField = (typeof sortFields)[number];
export const sortDirs = ['ASC', 'DESC'] as const;
export type SortDir = (typeof sortDirs)[number];
export const entityTypes = ['any', 'file', 'folder'] as const;
export type EntityType = (typeof entityTypes)[number];

/** README names, in the order the listing prefers them. */
const readmeNames = ['README.md', 'README.txt', 'README', 'readme.md', 'readme.txt', 'readme'];

export interface ListingOptions extends BadNameRules {
  limit: number;
  offset: number;
  sortField: SortField;
  sortDir: SortDir;
  entityType: EntityType;
  infoTypes: string[];
}

export interface ListingEntry {
  id: string;
  path: string;
  name: string;
  permission: Permission;
  dateCreated: number;
  dateModified: number;
  size: number;
  infoType: string | null;
  badName: boolean;
}

export interface FolderListing extends ListingEntry {
  files: ListingEntry[];
  folders: ListingEntry[];
  readme: ListingEntry | false;
  total: number;
  totalBad: number;
}

/** Queries over `data_objects as o`. */
type AliasedDb = Database & { o: Database['data_objects'] };
export type ObjectQuery<O = {}> = SelectQueryBuilder<AliasedDb, 'o', O>;

const sortColumns: Record<SortField, string> = {
  datecreated: 'o.created_at',
  datemodified: 'o.modified_at',
  name: 'o.name',
  path: 'o.path',
  size: 'o.size',
};

/**
 * Folders before files; then the chosen field in the chosen direction; ties (and name and path
 * sorts) broken by case-folded name, then byte order, then id, so pages never overlap or skip.
 * Text sorts compare code points on both engines (PostgreSQL's locale would order differently).
 * The query reads `data_objects as o` (joined to other tables, maybe).
 */
export function orderObjects<DB, TB extends keyof DB, O>(
  db: Kysely<Database>,
  query: SelectQueryBuilder<DB, TB, O>,
  field: SortField,
  dir: SortDir,
): SelectQueryBuilder<DB, TB, O> {
  const direction = sql.raw(dir === 'DESC' ? 'desc' : 'asc');
  const column = sql.ref(sortColumns[field]);
  let ordered = query.orderBy(sql`case when o.type = 'dir' then 0 else 1 end`);
  if (field === 'name') {
    ordered = ordered
      .orderBy(sql`${binaryText(db, sql`lower(o.name)`)} ${direction}`)
      .orderBy(sql`${binaryText(db, column)} ${direction}`);
  } else if (field === 'path') {
    ordered = ordered.orderBy(sql`${binaryText(db, column)} ${direction}`);
  } else {
    ordered = ordered.orderBy(sql`${column} ${direction}`);
  }
  return ordered
    .orderBy(binaryText(db, sql`lower(o.name)`))
    .orderBy(binaryText(db, sql.ref('o.name')))
    .orderBy(sql.ref('o.id'));
}

/**
 * orderObjects for the children of one folder of one type (the paged listing): names are unique
 * within a folder, so the order ends at the name (the later keys of orderObjects never decide),
 * and the order by path is the byte order of the name (every path is the folder's, a slash and the
 * name). Each order is that of an index of migration 034, which holds all its keys and the id.
 */
function orderChildren<O>(
  db: Kysely<Database>,
  query: ObjectQuery<O>,
  field: SortField,
  dir: SortDir,
): ObjectQuery<O> {
  const direction = sql.raw(dir === 'DESC' ? 'desc' : 'asc');
  if (field === 'path')
    return query.orderBy(sql`${binaryText(db, sql.ref('o.name'))} ${direction}`);
  if (field === 'name')
    return query
      .orderBy(sql`${binaryText(db, sql`lower(o.name)`)} ${direction}`)
      .orderBy(sql`${binaryText(db, sql.ref('o.name'))} ${direction}`);
  return query
    .orderBy(sql`${sql.ref(sortColumns[field])} ${direction}`)
    .orderBy(binaryText(db, sql`lower(o.name)`))
    .orderBy(binaryText(db, sql.ref('o.name')));
}

/** The object types an entity-type filter keeps. */
function typesOf(entityType: EntityType): DataObject['type'][] {
  return entityType === 'file' ? ['file'] : entityType === 'folder' ? ['dir'] : ['dir', 'file'];
}

/** The path of a folder's child called `name`. */
function childPath(folder: string, name: string): string {
  return folder === '/' ? `/${name}` : `${folder}/${name}`;
}

export class Lister {
  constructor(private readonly data: DataStore) {}

  private get db() {
    return this.data.db;
  }

  /** Children of `folder` the caller may see: all of them, or for a pass-through folder those on the way to a grant. */
  private children(caller: Caller, folder: DataObject, access: Access): ObjectQuery {
    return this.visibleOnly(
      caller,
      access,
      this.db.selectFrom('data_objects as o').where('o.parent_path', '=', folder.path),
    );
  }

  /** Children of a folder the caller has `access` to: for a pass-through folder, those on the way to a grant. */
  private visibleOnly(caller: Caller, access: Access, query: ObjectQuery): ObjectQuery {
    if (access !== 'pass-through') return query;
    return query.where(visibilityOf(this.data).leadsToGrant(caller, sql.ref('o.path')));
  }

  /** Levels of listed children: the folder's level or a stronger grant on the child; pass-through children show `read`. */
  async levelsOf(
    caller: Caller,
    objects: DataObject[],
    folderAccess: Access | undefined,
  ): Promise<Map<string, Permission>> {
    const direct = await visibilityOf(this.data).directGrants(
      caller,
      objects.map((object) => object.id),
    );
    const inherited = folderAccess && folderAccess !== 'pass-through' ? folderAccess : undefined;
    return new Map(
      objects.map((object) => [object.id, strongest([inherited, direct.get(object.id)]) ?? 'read']),
    );
  }

  entry(object: DataObject, permission: Permission, options: ListingOptions): ListingEntry {
    const file = object.type === 'file';
    return {
      id: object.id,
      path: object.path,
      name: baseName(object.path),
      permission,
      dateCreated: Number(object.created_at),
      dateModified: Number(object.modified_at),
      size: file ? Number(object.size) : 0,
      infoType: file ? object.info_type : null,
      badName: isBadName(object.path, options),
    };
  }

  async list(
    caller: Caller,
    folder: DataObject,
    access: Access,
    options: ListingOptions,
  ): Promise<FolderListing> {
    let matching = this.children(caller, folder, access);
    if (options.entityType === 'file') matching = matching.where('o.type', '=', 'file');
    if (options.entityType === 'folder') matching = matching.where('o.type', '=', 'dir');
    // The info-type filter selects files; folders stay, so a chooser can still navigate.
    if (options.infoTypes.length > 0) {
      matching = matching.where((eb) =>
        eb.or([eb('o.type', '=', 'dir'), eb('o.info_type', 'in', options.infoTypes)]),
      );
    }

    // Folders come before files: each kind is counted, and paged in its own query, so that the
    // database reads a page off an index of the folder's children in that order (migration 034)
    // rather than sorting the whole folder.
    // The counts: the triggers' counters when every child counts, else counted.
    const everyChild = access !== 'pass-through' && options.infoTypes.length === 0;
    const [counts, readmes] = await Promise.all([
      everyChild
        ? this.db
            .selectFrom('data_folder_counts')
            .select(['type', 'count'])
            .where('parent_path', '=', folder.path)
            .where('type', 'in', typesOf(options.entityType))
            .execute()
        : matching
            .select((eb) => ['o.type', eb.fn.countAll<number>().as('count')])
            .groupBy('o.type')
            .execute(),
      // By path alone (the unique index; each is a child's path), not also by parent: with both,
      // a planner may walk the folder's children on one of the listing's indexes instead.
      this.visibleOnly(
        caller,
        access,
        this.db.selectFrom('data_objects as o').where(
          'o.path',
          'in',
          readmeNames.map((name) => childPath(folder.path, name)),
        ),
      )
        .selectAll('o')
        .where('o.type', '=', 'file')
        .execute() as Promise<DataObject[]>,
    ]);
    const folderCount = Number(counts.find((row) => row.type === 'dir')?.count ?? 0);
    const fileCount = Number(counts.find((row) => row.type === 'file')?.count ?? 0);
    const folderLimit = Math.max(0, Math.min(options.limit, folderCount - options.offset));
    const fileLimit = options.limit - folderLimit;
    // A page is picked by id first (a deferred join): the walk up to the offset then reads only
    // the index's entries, which hold every key of the order and the id; the page's rows are read
    // by id afterwards. Reading whole rows while walking costs a row per skipped child.
    const pageOf = (type: DataObject['type'], limit: number, offset: number) => {
      if (limit === 0) return Promise.resolve([] as DataObject[]);
      const order = (query: ObjectQuery) =>
        orderChildren(this.db, query, options.sortField, options.sortDir);
      const ids = order(matching.where('o.type', '=', type))
        .select('o.id')
        .limit(limit)
        .offset(offset);
      return order(this.db.selectFrom('data_objects as o').where('o.id', 'in', ids))
        .selectAll('o')
        .execute() as Promise<DataObject[]>;
    };
    const [folderPage, filePage] = await Promise.all([
      pageOf('dir', folderLimit, options.offset),
      pageOf('file', fileLimit, Math.max(0, options.offset - folderCount)),
    ]);
    const page = [...folderPage, ...filePage];
    const readme = readmeNames
      .map((name) => readmes.find((object) => object.name === name))
      .find((object) => object !== undefined);

    const levels = await this.levelsOf(caller, readme ? [...page, readme] : page, access);
    const entries = page.map((object) => this.entry(object, levels.get(object.id)!, options));
    return {
      ...this.entry(folder, reported(access), options),
      files: entries.filter((entry) => entry.infoType !== null),
      folders: entries.filter((entry) => entry.infoType === null),
      readme: readme ? this.entry(readme, levels.get(readme.id)!, options) : false,
      total: folderCount + fileCount,
      totalBad: 0,
    };
  }

  /** All sub-folders the caller may see, by name (navigation listings). */
  async subfolders(
    caller: Caller,
    folder: DataObject,
    access: Access,
  ): Promise<{ object: DataObject; permission: Permission }[]> {
    const query = this.children(caller, folder, access).selectAll('o').where('o.type', '=', 'dir');
    const folders = (await orderObjects(this.db, query, 'name', 'ASC').execute()) as DataObject[];
    const levels = await this.levelsOf(caller, folders, access);
    return folders.map((object) => ({ object, permission: levels.get(object.id)! }));
  }
}

import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { strongest, type DataObject } from './object-index.ts';
import { type Permission } from '../../common/data-stat.ts';
import { baseName, isBadName, type BadNameRules } from '../../common/data-path.ts';
import { PageMarks, type PageMark } from './page-marks.ts';
import type { Caller, DataStore } from './store.ts';
import { binaryText, reported, visibilityOf, type Access } from './visibility.ts';

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

/** One key of a listing's order: an expression over `data_objects as o`, its direction, and where a row's value is. */
interface OrderKey {
  expression: RawBuilder<unknown>;
  dir: SortDir;
  valueOf: (row: MarkedObject) => unknown;
}

/** A listed row with what its marks need: the case-folded name as the database folds it, the folder's version. */
type MarkedObject = DataObject & { sort_folded: string; folder_version?: number | string | null };

/**
 * The keys of the order of one folder's children of one type (the paged listing): names are
 * unique within a folder, so the order ends at the name (the later keys of orderObjects never
 * decide), and the order by path is the byte order of the name (every path is the folder's, a
 * slash and the name). Each order is that of an index of migration 034, which holds all its keys
 * and the id.
 */
function childKeys(db: Kysely<Database>, field: SortField, dir: SortDir): OrderKey[] {
  const folded: OrderKey = {
    expression: binaryText(db, sql`lower(o.name)`),
    dir: 'ASC',
    valueOf: (row) => row.sort_folded,
  };
  const name: OrderKey = {
    expression: binaryText(db, sql.ref('o.name')),
    dir: 'ASC',
    valueOf: (row) => row.name,
  };
  if (field === 'path') return [{ ...name, dir }];
  if (field === 'name')
    return [
      { ...folded, dir },
      { ...name, dir },
    ];
  const column = leadingColumns[field];
  return [
    { expression: sql`${sql.ref(`o.${column}`)}`, dir, valueOf: (row) => row[column] },
    folded,
    name,
  ];
}

/** The column of each field sorted by ahead of the name (which then breaks its ties). */
const leadingColumns = {
  datecreated: 'created_at',
  datemodified: 'modified_at',
  size: 'size',
} as const satisfies Record<Exclude<SortField, 'name' | 'path'>, keyof DataObject>;

/** `query` ordered by `keys` (childKeys). */
function orderChildren<O>(query: ObjectQuery<O>, keys: OrderKey[]): ObjectQuery<O> {
  return keys.reduce(
    (ordered, key) =>
      ordered.orderBy(sql`${key.expression} ${sql.raw(key.dir === 'DESC' ? 'desc' : 'asc')}`),
    query,
  );
}

/**
 * The children at or after `values` in the order of `keys`: k1 ≥ v1 and (k1 > v1 or the same of
 * the later keys), each comparison turned for a descending key. The first comparison alone bounds
 * the walk of the order's index; the rest only sorts out ties on it.
 */
function atOrAfter(keys: OrderKey[], values: unknown[]): RawBuilder<SqlBool> {
  const [key, ...later] = keys;
  const [value, ...laterValues] = values;
  const past = key!.dir === 'DESC' ? sql.raw('<') : sql.raw('>');
  const reached = key!.dir === 'DESC' ? sql.raw('<=') : sql.raw('>=');
  if (later.length === 0) return sql<SqlBool>`${key!.expression} ${reached} ${value}`;
  return sql<SqlBool>`(${key!.expression} ${reached} ${value} and (${key!.expression} ${past} ${value} or ${atOrAfter(later, laterValues)}))`;
}

/** Pages this deep or deeper start from a mark when one is known; shallower ones walk (a few hundred index entries). */
const MARKED_FROM = 1000;

/** The object types an entity-type filter keeps. */
function typesOf(entityType: EntityType): DataObject['type'][] {
  return entityType === 'file' ? ['file'] : entityType === 'folder' ? ['dir'] : ['dir', 'file'];
}

/** The path of a folder's child called `name`. */
function childPath(folder: string, name: string): string {
  return folder === '/' ? `/${name}` : `${folder}/${name}`;
}

export class Lister {
  /** Where served pages began and ended, per folder, type and order (page-marks.ts). */
  private readonly marks = new PageMarks();

  private readonly data: DataStore;

  constructor(data: DataStore) {
    this.data = data;
  }

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
    const inherited = folderAccess && folderAccess !== 'pass-through' ? folderAccess : undefined;
    // In a folder the caller owns nothing is stronger: the grants on the children need no query
    // (on a page of 100, a statement of 100 parameters and a tenth of the page's time on SQLite).
    if (inherited === 'own') return new Map(objects.map((object) => [object.id, 'own']));
    const direct = await visibilityOf(this.data).directGrants(
      caller,
      objects.map((object) => object.id),
    );
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
            .select(['type', 'count', 'version'])
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
    const countOf = (type: DataObject['type']) =>
      Number(counts.find((row) => row.type === type)?.count ?? 0);
    const folderCount = countOf('dir');
    const fileCount = countOf('file');
    const folderLimit = Math.max(0, Math.min(options.limit, folderCount - options.offset));
    const fileLimit = options.limit - folderLimit;
    const pageOf = (type: DataObject['type'], limit: number, offset: number) => {
      if (limit === 0) return Promise.resolve([] as DataObject[]);
      // Marks (page-marks.ts) hold for every child of the type, known by its counter's version:
      // not for a pass-through folder's visible few, nor under the info-type filter (both counted).
      // A folder with no deep page has none to keep.
      const counted = counts.find((row) => row.type === type);
      const version =
        counted && 'version' in counted && Number(counted.count) > MARKED_FROM
          ? String(counted.version)
          : undefined;
      return this.page(folder, type, matching, options, limit, offset, version);
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

  /**
   * One page of `folder`'s children of one `type`: its ids picked first (a deferred join: the walk
   * up to the offset then reads only the index's entries, which hold every key of the order and
   * the id; reading whole rows while walking costs a row per skipped child), then its rows by id.
   * Given the `version` of the folder's children of that type (read with the counts; only for a
   * folder with deep pages), a deep page starts from the nearest mark known at that version and
   * the page's first and last child become marks; the version is read again in the page's own
   * statement, so that a mark is never kept for, nor used on, rows of another.
   */
  private async page(
    folder: DataObject,
    type: DataObject['type'],
    matching: ObjectQuery,
    options: ListingOptions,
    limit: number,
    offset: number,
    version: string | undefined,
  ): Promise<DataObject[]> {
    const keys = childKeys(this.db, options.sortField, options.sortDir);
    const listing = [folder.path, type, options.sortField, options.sortDir].join('\n');
    const read = async (mark: PageMark | undefined) => {
      let ids = matching.where('o.type', '=', type);
      if (mark) ids = ids.where(atOrAfter(keys, mark.keys));
      const picked = orderChildren(ids, keys)
        .select('o.id')
        .limit(limit)
        .offset(offset - (mark?.position ?? 0));
      return (await orderChildren(
        this.db.selectFrom('data_objects as o').where('o.id', 'in', picked),
        keys,
      )
        .selectAll('o')
        .$if(version !== undefined, (query) =>
          query.select((eb) => [
            sql<string>`lower(o.name)`.as('sort_folded'),
            eb
              .selectFrom('data_folder_counts')
              .select('version')
              .where('parent_path', '=', folder.path)
              .where('type', '=', type)
              .as('folder_version'),
          ]),
        )
        .execute()) as MarkedObject[];
    };
    const mark =
      version !== undefined && offset >= MARKED_FROM
        ? this.marks.nearest(listing, version, offset)
        : undefined;
    let rows = await read(mark);
    // The folder changed between the counts and the page: the mark may be off; walk instead.
    if (mark && String(rows[0]?.folder_version) !== version) rows = await read(undefined);
    const first = rows[0];
    if (version !== undefined && first && first.folder_version != null) {
      const markOf = (row: MarkedObject, position: number): PageMark => ({
        position,
        keys: keys.map((key) => key.valueOf(row)),
      });
      this.marks.learn(listing, String(first.folder_version), [
        markOf(first, offset),
        markOf(rows[rows.length - 1]!, offset + rows.length - 1),
      ]);
    }
    return rows;
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

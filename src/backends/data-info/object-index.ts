// The index of the data store's objects (the data_objects table) and their permissions: each
// object by path and id, the grants on it, and the permission levels a caller reaches. File bytes
// are blobs.ts; the DataStore (store.ts) puts the two together.
import { randomUUID } from 'node:crypto';
import { PostgresAdapter, sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { ancestorsOf, baseName, parentOf } from '../../common/data-path.ts';
import { basePaths, type BasePaths } from '../../common/base-paths.ts';
import { gatewayError } from '../../common/errors.ts';
import type { Permission } from '../../common/data-stat.ts';

export type DataObject = Selectable<Database['data_objects']>;

/** The blob (BlobStore id) holding a file's current bytes: its own id unless new content replaced them. */
export function blobOf(object: Pick<DataObject, 'id' | 'blob_id'>): string {
  return object.blob_id ?? object.id;
}
type Db = Kysely<Database> | Transaction<Database>;

const levels: Record<Permission, number> = { read: 1, write: 2, own: 3 };

/** A grant to `public` is a grant to every user (community data). */
export const everyone = 'public';
/** Owner of the zone's scaffolding folders, which carry no grants and so pass on no access. */
export const systemOwner = 'data-store';

export function atLeast(permission: Permission | undefined, needed: Permission): boolean {
  return permission !== undefined && levels[permission] >= levels[needed];
}

/** The strongest of some levels (absent ones ignored). */
export function strongest(permissions: (Permission | undefined)[]): Permission | undefined {
  return permissions.reduce<Permission | undefined>(
    (best, next) =>
      next !== undefined && (best === undefined || levels[next] > levels[best]) ? next : best,
    undefined,
  );
}

/** Paths bound in one `in (...)` list, well below both engines' limits on bound parameters. */
const MAX_BOUND_PATHS = 10_000;

export interface NewObject {
  path: string;
  type: 'file' | 'dir';
  owner: string;
  id?: string;
  size?: number;
  md5?: string | null;
  contentType?: string | null;
  infoType?: string;
}

/**
 * The index of data objects: objects by path and id, and who may do what. A grant on a folder
 * covers everything below it, so sharing a folder shares its contents and a home's owner owns
 * all of it. Scaffolding folders (`/<zone>`, `/<zone>/home`, the trash roots) carry no grants.
 */
export class ObjectIndex {
  private readonly prepared = new Set<string>();

  private readonly db: Kysely<Database>;
  readonly zone: string;
  private readonly now: () => number;
  constructor(db: Kysely<Database>, zone: string, now: () => number = Date.now) {
    this.db = db;
    this.zone = zone;
    this.now = now;
  }

  basePaths(user: string): BasePaths {
    return basePaths(this.zone, user);
  }

  get communityPath(): string {
    return `/${this.zone}/home/shared`;
  }

  /** Makes the zone scaffolding, the community folder, and the user's home and trash, once per process. */
  async prepareUser(user: string): Promise<void> {
    if (this.prepared.has(user)) return;
    const { user_home_path: home, user_trash_path: trash } = this.basePaths(user);
    const zone = `/${this.zone}`;
    for (const path of [zone, `${zone}/home`, `${zone}/trash`, `${zone}/trash/home`]) {
      await this.insertIfMissing({ path, type: 'dir', owner: systemOwner }, []);
    }
    await this.insertIfMissing({ path: this.communityPath, type: 'dir', owner: systemOwner }, [
      [everyone, 'read'],
    ]);
    await this.insertIfMissing({ path: home, type: 'dir', owner: user }, [[user, 'own']]);
    await this.insertIfMissing({ path: trash, type: 'dir', owner: user }, [[user, 'own']]);
    this.prepared.add(user);
  }

  private async insertIfMissing(object: NewObject, grants: [string, Permission][]): Promise<void> {
    if (await this.byPath(object.path)) return;
    await this.db.transaction().execute(async (trx) => {
      const inserted = await this.insertRow(trx, object, true);
      if (inserted)
        for (const [username, permission] of grants)
          await this.grant(trx, inserted, username, permission);
    });
  }

  private async insertRow(
    db: Db,
    object: NewObject,
    ignoreExisting = false,
  ): Promise<string | undefined> {
    const parent = parentOf(object.path);
    const name = baseName(object.path);
    const now = this.now();
    const id = object.id ?? randomUUID();
    const query = db.insertInto('data_objects').values({
      id,
      path: object.path,
      parent_path: parent,
      name,
      type: object.type,
      owner: object.owner,
      created_at: now,
      modified_at: now,
      size: object.size ?? 0,
      md5: object.md5 ?? null,
      content_type: object.contentType ?? null,
      info_type: object.infoType ?? '',
    });
    const result = await (
      ignoreExisting ? query.onConflict((conflict) => conflict.column('path').doNothing()) : query
    ).executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 1) > 0 ? id : undefined;
  }

  async grant(db: Db, objectId: string, username: string, permission: Permission): Promise<void> {
    await db
      .insertInto('data_permissions')
      .values({ object_id: objectId, username, permission })
      .onConflict((conflict) =>
        conflict.columns(['object_id', 'username']).doUpdateSet({ permission }),
      )
      .execute();
  }

  /**
   * Adds an object owned by `object.owner` (who gets `own`) to a folder that must still be there
   * (holdFolder); a path already taken throws the engine's unique error. Pass the transaction the
   * caller's checks ran in: the folder is then held until it ends.
   */
  async create(object: NewObject, db: Db = this.db): Promise<DataObject> {
    await this.holdFolder(parentOf(object.path), db);
    const id = (await this.insertRow(db, object))!;
    await this.grant(db, id, object.owner, 'own');
    return (await db
      .selectFrom('data_objects')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow()) as DataObject;
  }

  /**
   * Checks, as one step with what the transaction `db` adds to it, that `folder` is still a folder.
   * Whatever was checked before (a request's checks, the seconds an upload takes) a concurrent move
   * or deletion may have taken the folder away: a row added then would sit below a path that no
   * longer exists, unseen and never deleted. On PostgreSQL the folder and every folder above it are
   * held (FOR KEY SHARE) until the transaction ends, taken top-down as moves and deletions take an
   * item before its contents, so such a move or deletion waits and then carries the new row along;
   * one that came first makes the folder missing here (ERR_DOES_NOT_EXIST). SQLite has a single
   * writer: the check inside the transaction is enough.
   */
  async holdFolder(folder: string, db: Db = this.db): Promise<void> {
    const chain = [...ancestorsOf(folder), folder];
    const query = db
      .selectFrom('data_objects')
      .select(['path', 'type'])
      .where('path', 'in', chain)
      .orderBy(sql`length(path)`);
    const rows =
      db.getExecutor().adapter instanceof PostgresAdapter
        ? await query.forKeyShare().execute()
        : await query.execute();
    const held = rows.find((row) => row.path === folder);
    if (!held)
      throw gatewayError(
        'ERR_DOES_NOT_EXIST',
        `the folder ${folder} does not exist (it was moved or deleted meanwhile)`,
        { path: folder },
      );
    if (held.type !== 'dir')
      throw gatewayError('ERR_NOT_A_FOLDER', `${folder} is not a folder`, { path: folder });
  }

  async byPath(path: string, db: Db = this.db): Promise<DataObject | undefined> {
    return db
      .selectFrom('data_objects')
      .selectAll()
      .where('path', '=', path)
      .executeTakeFirst() as Promise<DataObject | undefined>;
  }

  /** The objects at any of `paths`, by path (absent ones left out). */
  async byPaths(paths: string[], db: Db = this.db): Promise<Map<string, DataObject>> {
    const found = new Map<string, DataObject>();
    const unique = [...new Set(paths)];
    for (let start = 0; start < unique.length; start += MAX_BOUND_PATHS) {
      const rows = (await db
        .selectFrom('data_objects')
        .selectAll()
        .where('path', 'in', unique.slice(start, start + MAX_BOUND_PATHS))
        .execute()) as DataObject[];
      for (const row of rows) found.set(row.path, row);
    }
    return found;
  }

  /**
   * The file rows whose current bytes are the blobs `ids` (lower-case, as BlobStore lists them), by
   * blob: rows naming one in blob_id, or by their id when they name none (blobOf).
   */
  async filesByBlob(ids: string[], db: Db = this.db): Promise<Map<string, DataObject>> {
    if (ids.length === 0) return new Map();
    const own = await db
      .selectFrom('data_objects')
      .selectAll()
      .where('id', 'in', ids)
      .where('blob_id', 'is', null)
      .where('type', '=', 'file')
      .execute();
    const replaced = await db
      .selectFrom('data_objects')
      .selectAll()
      .where('blob_id', 'in', ids)
      .where('type', '=', 'file')
      .execute();
    return new Map(
      ([...own, ...replaced] as DataObject[]).map((row) => [blobOf(row).toLowerCase(), row]),
    );
  }

  /** Which of the blobs `ids` hold a file's current bytes (filesByBlob). */
  async blobsNamed(ids: string[], db: Db = this.db): Promise<Set<string>> {
    return new Set((await this.filesByBlob(ids, db)).keys());
  }

  async byId(id: string, db: Db = this.db): Promise<DataObject | undefined> {
    return db
      .selectFrom('data_objects')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst() as Promise<DataObject | undefined>;
  }

  async children(path: string, db: Db = this.db): Promise<DataObject[]> {
    return db
      .selectFrom('data_objects')
      .selectAll()
      .where('parent_path', '=', path)
      .execute() as Promise<DataObject[]>;
  }

  /** The caller's level on a path: the strongest grant to them or to everyone on it or any folder above. */
  async permission(user: string, path: string, db: Db = this.db): Promise<Permission | undefined> {
    return (await this.permissions(user, [path], db)).get(path);
  }

  /**
   * permission() for many paths at once: the grants on all of them and their folders in one query
   * per batch. With several paths the folders above them are read first, and only the paths not
   * already owned through one of those are read after: for a page of a folder the caller owns, or
   * of favourites in their home, a statement of a few parameters instead of one per path.
   */
  async permissions(
    user: string,
    paths: string[],
    db: Db = this.db,
  ): Promise<Map<string, Permission | undefined>> {
    const onPath = new Map<string, Permission>();
    const read = async (wanted: string[]) => {
      for (let start = 0; start < wanted.length; start += MAX_BOUND_PATHS) {
        const rows = await db
          .selectFrom('data_permissions')
          .innerJoin('data_objects', 'data_objects.id', 'data_permissions.object_id')
          .select(['data_objects.path', 'data_permissions.permission'])
          .where('data_objects.path', 'in', wanted.slice(start, start + MAX_BOUND_PATHS))
          .where('data_permissions.username', 'in', [user, everyone])
          .execute();
        for (const row of rows)
          onPath.set(row.path, strongest([onPath.get(row.path), row.permission])!);
      }
    };
    const levelOn = (chain: string[]) => strongest(chain.map((each) => onPath.get(each)));
    const folders = new Map(paths.map((path) => [path, ancestorsOf(path)]));
    if (folders.size === 1) await read([...folders.values()][0]!.concat(paths[0]!));
    else {
      const above = new Set([...folders.values()].flat());
      await read([...above]);
      await read(
        [...folders].flatMap(([path, chain]) =>
          above.has(path) || levelOn(chain) === 'own' ? [] : [path],
        ),
      );
    }
    return new Map(paths.map((path) => [path, levelOn([...folders.get(path)!, path])]));
  }

  /** Users other than `owner` holding a grant on the object itself (its `share-count`). */
  async shareCount(object: DataObject, db: Db = this.db): Promise<number> {
    return (await this.shareCounts([object.id], db)).get(object.id) ?? 0;
  }

  /** shareCount() for many objects by id, in one query; objects shared with no one are left out. */
  async shareCounts(ids: string[], db: Db = this.db): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows = await db
      .selectFrom('data_permissions as p')
      .innerJoin('data_objects as o', 'o.id', 'p.object_id')
      .select(['p.object_id', (eb) => eb.fn.countAll<number>().as('count')])
      .where('p.object_id', 'in', ids)
      .whereRef('p.username', '!=', 'o.owner')
      .groupBy('p.object_id')
      .execute();
    return new Map(rows.map((row) => [row.object_id, Number(row.count)]));
  }
}

import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../store/schema.ts';
import type { S3BlobStoreSettings } from '../../config/index.ts';
import type { BlobStore, OpenBlob } from './blob-store.ts';
import { openBlobStore } from './open-blob-store.ts';
import { takeStoreLease, type StoreLease } from './store-lease.ts';
import {
  atLeast,
  blobOf,
  ObjectIndex,
  everyone,
  systemOwner,
  type DataObject,
} from './object-index.ts';
import type { Permission, Stat } from '../../common/data-stat.ts';
import {
  baseName,
  isWithin,
  MAX_SEGMENT_BYTES,
  normalizeDataPath,
} from '../../common/data-path.ts';
import { requireUserParam } from '../../common/query-params.ts';
import { gatewayError } from '../../common/errors.ts';

export interface DataStoreOptions {
  zone: string;
  /** Where file bytes live (DATA_STORE_DIR), unless `blobStore` is set. */
  dir: string;
  /** File bytes in this S3-compatible bucket instead (BLOB_STORE_URL). */
  blobStore?: S3BlobStoreSettings;
  maxUploadBytes: number;
  maxEditBytes: number;
  trashRetentionDays: number;
  /**
   * Bytes and temporary files untouched this long may be removed as orphans (orphans.ts); 0 when
   * this process alone uses `dir`. Absent: 0.
   */
  orphanGraceMs?: number;
  /** Public base URL of ticket downloads (TICKET_BASE_URL), no trailing slash. */
  ticketBaseUrl: string;
  /** The clock; tests pass their own to drive the trash sweep. */
  now?: () => number;
}

/** Who is asking: a user with a home, or the anonymous caller, who can only read public data. */
export interface Caller {
  name: string;
  anonymous: boolean;
  /**
   * An administrator (the gateway's `data-store-admin` parameter, from the caller's token roles):
   * they curate the community folder, holding `own` on it and everything in it.
   */
  administrator?: boolean;
}

/** The query parameter by which the gateway says the caller is an administrator. */
const administratorParam = 'data-store-admin';

export const anonymousUser = 'anonymous';

/**
 * Names that can never be a data-store user: `public` is the grant that means everyone,
 * `shared` is the community folder's name under /<zone>/home, `data-store` owns the scaffolding.
 */
const reservedUsernames = new Set([everyone, 'shared', systemOwner]);
const CONTROL_OR_SLASH = /[\u0000-\u001f\u007f-\u009f/\\]/;

type Db = Kysely<Database> | Transaction<Database>;

function isAdministrator(query: unknown): boolean {
  return (query as Record<string, unknown> | undefined)?.[administratorParam] === 'true';
}

/**
 * The embedded data store: the catalog (paths, grants) plus the bytes (BlobStore), and the rules
 * every data-info route shares: who the caller is, which path they mean, what they may do, and
 * how an object is described.
 */
export class DataStore {
  readonly catalog: ObjectIndex;
  readonly blobs: BlobStore;
  readonly zone: string;
  readonly now: () => number;

  readonly db: Kysely<Database>;
  readonly options: DataStoreOptions;

  constructor(db: Kysely<Database>, options: DataStoreOptions) {
    this.db = db;
    this.options = options;
    this.zone = options.zone;
    this.now = options.now ?? Date.now;
    this.catalog = new ObjectIndex(db, options.zone, this.now);
    this.blobs = openBlobStore(options.dir, options.blobStore);
  }

  /**
   * When this process found itself alone on a local bytes folder at start-up (store-lease.ts), the
   * time (epoch ms) before which nothing there can be a write in progress: the first orphan sweep
   * clears what was written before it, grace period or not. Undefined otherwise.
   */
  aloneSince?: number;
  private lease?: StoreLease;

  /**
   * Creates the bytes folders and removes unfinished writes older than the orphan grace period;
   * alone on a local folder, every unfinished write a crashed process left, at once. A local folder
   * is leased whatever the grace, so that `npm run fsck --repair` sees this process use it.
   */
  async init(): Promise<void> {
    const graceMs = this.options.orphanGraceMs ?? 0;
    if (!this.options.blobStore) {
      const since = Date.now();
      this.lease = await takeStoreLease(this.options.dir);
      if (graceMs > 0 && !(await this.lease.othersAlive())) this.aloneSince = since;
    }
    await this.blobs.init(graceMs);
    if (this.aloneSince !== undefined) await this.blobs.removeStaleTemps(this.aloneSince);
  }

  /** Gives up this process's lease on the bytes folder (closing). */
  async release(): Promise<void> {
    await this.lease?.release();
  }

  /**
   * The caller named by the `user` parameter. Backends trust it (only the gateway reaches them),
   * but it must still be a name that can own a home: `ERR_NOT_A_USER` otherwise. A real user's
   * home and trash are made on first sight.
   */
  async caller(user: string, administrator = false): Promise<Caller> {
    if (user === anonymousUser) return { name: user, anonymous: true };
    if (
      user === '' ||
      user === '.' ||
      user === '..' ||
      reservedUsernames.has(user) ||
      CONTROL_OR_SLASH.test(user) ||
      user !== user.normalize('NFC') ||
      Buffer.byteLength(user) > MAX_SEGMENT_BYTES
    ) {
      throw gatewayError('ERR_NOT_A_USER', `${JSON.stringify(user)} is not a data-store user`, {
        user,
      });
    }
    await this.catalog.prepareUser(user);
    return { name: user, anonymous: false, administrator };
  }

  /** A caller who may change things: the anonymous caller is refused as not a user. */
  async writer(user: string, administrator = false): Promise<Caller> {
    const caller = await this.caller(user, administrator);
    if (caller.anonymous)
      throw gatewayError('ERR_NOT_A_USER', 'The anonymous user cannot change the data store', {
        user,
      });
    return caller;
  }

  /** The caller of a request: its `user` parameter, an administrator when the gateway says so. */
  callerOf(query: unknown): Promise<Caller> {
    return this.caller(requireUserParam(query), isAdministrator(query));
  }

  /** writer() for the caller of a request (see callerOf). */
  writerOf(query: unknown): Promise<Caller> {
    return this.writer(requireUserParam(query), isAdministrator(query));
  }

  /** The canonical form of a client path (400 ERR_BAD_OR_MISSING_FIELD naming `field` otherwise). */
  path(input: unknown, field = 'path'): string {
    return normalizeDataPath(input, this.zone, field);
  }

  /** The object at a canonical path, or ERR_DOES_NOT_EXIST naming it. */
  async existing(path: string): Promise<DataObject> {
    const object = await this.catalog.byPath(path);
    if (!object) throw gatewayError('ERR_DOES_NOT_EXIST', `${path} does not exist`, { path });
    return object;
  }

  /**
   * A file's bytes opened for reading (BlobStore.openRead), or ERR_DOES_NOT_EXIST when they are
   * missing. `object` may be a row read before an overwrite replaced its blob (writes.ts
   * replaceContent removes the old one): then the row is read again and its new blob opened.
   */
  async content(object: DataObject): Promise<OpenBlob> {
    let blob = blobOf(object);
    for (;;) {
      try {
        return await this.blobs.openRead(blob);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      const now = await this.catalog.byId(object.id);
      if (!now || blobOf(now) === blob)
        throw gatewayError('ERR_DOES_NOT_EXIST', `the content of ${object.path} is missing`, {
          path: object.path,
        });
      blob = blobOf(now);
    }
  }

  /**
   * The caller's level on a path, if any: their grants and everyone's on it and above it, and for
   * an administrator `own` in the community folder (docs/api/data-store.md, "Community data").
   * Nothing in another user's trash: the grants an item carried there stay with it for its
   * restore, but until then no one but the trash's owner reads, restores, moves or deletes it.
   */
  async permission(caller: Caller, path: string, db?: Db): Promise<Permission | undefined> {
    return (await this.permissions(caller, [path], db)).get(path);
  }

  /** permission() for many paths at once (ObjectIndex.permissions). */
  async permissions(
    caller: Caller,
    paths: string[],
    db?: Db,
  ): Promise<Map<string, Permission | undefined>> {
    const trashes = `/${this.zone}/trash/home/`;
    const ownTrash = this.catalog.basePaths(caller.name).user_trash_path;
    const othersTrash = (path: string) => path.startsWith(trashes) && !isWithin(path, ownTrash);
    const levels = await this.catalog.permissions(
      caller.name,
      paths.filter((path) => !othersTrash(path)),
      db,
    );
    for (const path of paths) if (othersTrash(path)) levels.set(path, undefined);
    if (!caller.administrator) return levels;
    const community = this.catalog.communityPath;
    return new Map(
      [...levels].map(([path, level]) => [path, isWithin(path, community) ? 'own' : level]),
    );
  }

  /**
   * Checks that the caller has at least `needed` on `object` and answers their actual level.
   * An object the caller cannot read is reported as not readable (not as missing): the data store
   * has always named existing paths, and clients rely on the distinction.
   */
  async require(caller: Caller, object: DataObject, needed: Permission): Promise<Permission> {
    const permission = await this.permission(caller, object.path);
    if (atLeast(permission, needed)) return permission!;
    const code =
      needed === 'read'
        ? 'ERR_NOT_READABLE'
        : needed === 'write'
          ? 'ERR_NOT_WRITEABLE'
          : 'ERR_NOT_OWNER';
    throw gatewayError(
      code,
      `${caller.name} cannot ${needed === 'own' ? 'own' : needed} ${object.path}`,
      { path: object.path, user: caller.name },
    );
  }

  /** backends.md §2.2: label rules for the special folders. */
  label(caller: Caller, object: DataObject): string {
    if (object.path === this.catalog.basePaths(caller.name).user_trash_path) return 'Trash';
    if (object.path === `/${this.zone}/home`) return 'Shared With Me';
    if (object.path === this.catalog.communityPath) return 'Community Data';
    return baseName(object.path);
  }

  /** The stat object of backends.md §2.2 for an object the caller holds `permission` on. */
  async stat(caller: Caller, object: DataObject, permission: Permission): Promise<Stat> {
    return (await this.stats(caller, [{ object, permission }]))[0]!;
  }

  /** stat() for many objects, with one query for all share counts and one for all folder contents. */
  async stats(
    caller: Caller,
    items: { object: DataObject; permission: Permission }[],
  ): Promise<Stat[]> {
    const owned = items.filter((item) => item.permission === 'own').map((item) => item.object.id);
    const folders = items
      .filter((item) => item.object.type === 'dir')
      .map((item) => item.object.path);
    const [shareCount, contents] = await Promise.all([
      this.catalog.shareCounts(owned),
      folders.length === 0
        ? []
        : this.db
            .selectFrom('data_objects')
            .select(['parent_path', 'type', (eb) => eb.fn.countAll<number>().as('count')])
            .where('parent_path', 'in', folders)
            .groupBy(['parent_path', 'type'])
            .execute(),
    ]);
    const count = new Map(
      contents.map((row) => [`${row.type}:${row.parent_path}`, Number(row.count)]),
    );
    return items.map(({ object, permission }) => {
      const stat: Stat = {
        id: object.id,
        path: object.path,
        type: object.type,
        label: this.label(caller, object),
        'date-created': Number(object.created_at),
        'date-modified': Number(object.modified_at),
        permission,
      };
      if (permission === 'own') stat['share-count'] = shareCount.get(object.id) ?? 0;
      if (object.type === 'file') {
        stat['file-size'] = Number(object.size);
        stat.md5 = object.md5 ?? '';
        stat['content-type'] = object.content_type ?? 'application/octet-stream';
        stat.infoType = object.info_type;
      } else {
        stat['file-count'] = count.get(`file:${object.path}`) ?? 0;
        stat['dir-count'] = count.get(`dir:${object.path}`) ?? 0;
      }
      return stat;
    });
  }
}

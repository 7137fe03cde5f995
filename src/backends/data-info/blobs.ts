/**
 * File bytes for the embedded data store in a local folder (backends.md §2.7), the default
 * BlobStore (blob-store.ts; BLOB_STORE_URL selects an S3 bucket instead, s3-blobs.ts). The catalog (SQL) knows paths and
 * names; this store only knows object UUIDs, so a user path can never influence where bytes land:
 *
 *   <root>/objects/<first 2 hex chars of id>/<id>   the current content of one object
 *   <root>/tmp/<id>.<random>.tmp                     a write in progress
 *   <root>/lost+found/<id>                           bytes `npm run fsck --quarantine` set aside
 *
 * Every write goes to its own temporary file in `<root>/tmp` (same filesystem as `objects`, so
 * rename is atomic), is fsynced, then renamed over the final path. Readers therefore see either the
 * old content or the new one, never a mix, and of two concurrent writes to one id the last rename
 * wins whole. Several processes may share `root` (gateways on one database and one DATA_STORE_DIR):
 * what a crash left behind is only ever removed once it has gone untouched for a grace period
 * (`staleTemps`, `staleObjects`), so another process's write in progress is never taken for it.
 */
import { randomUUID } from 'node:crypto';
import { constants, createReadStream, type Dirent, type Stats } from 'node:fs';
import {
  copyFile,
  mkdir,
  open,
  readdir,
  rename,
  rm,
  stat,
  type FileHandle,
} from 'node:fs/promises';
import path from 'node:path';
import { addAbortSignal, Readable } from 'node:stream';
import {
  BlobTooLarge,
  blobKey,
  uuidPattern,
  type BlobStore,
  type ByteRange,
  type OpenBlob,
  type StoredBlob,
  type UnfinishedWrite,
  type WriteOptions,
  type WrittenBlob,
} from './blob-store.ts';
import { BlobMd5 } from './md5.ts';

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

/** A folder's entries; none when it does not exist (a store never initialised, a shard removed). */
async function entriesOf(folder: string): Promise<Dirent[]> {
  try {
    return await readdir(folder, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

/** A file's stat, or undefined once it is gone. */
async function statOf(file: string): Promise<Stats | undefined> {
  try {
    return await stat(file);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** True when `file` exists and was last modified at or before `before` (epoch ms). */
async function writtenAtOrBefore(file: string, before: number): Promise<boolean> {
  try {
    return (await stat(file)).mtimeMs <= before;
  } catch (error) {
    if (isMissing(error)) return false; // removed meanwhile (installed, or by another process)
    throw error;
  }
}

/** Makes a directory's entries (a rename, a new subfolder) durable. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Bytes gathered into one write while the previous one is in flight, at most: more waits for it. */
const GATHER_BYTES = 4 * 1024 * 1024;

/** What a read stream of an object reads at a time (fs's default is 64 KiB). */
const READ_CHUNK_BYTES = 1024 * 1024;

/** Writes `buffers` at the file's position, all of them: a write that stops short is continued. */
async function writeAll(handle: FileHandle, buffers: Buffer[]): Promise<void> {
  let rest = buffers;
  while (rest.length > 0) {
    const { bytesWritten } = await handle.writev(rest);
    if (bytesWritten === 0) throw new Error('the blob file took no bytes');
    let skip = bytesWritten;
    let index = 0;
    while (index < rest.length && skip >= rest[index]!.length) skip -= rest[index++]!.length;
    rest = rest.slice(index);
    if (skip > 0) rest[0] = rest[0]!.subarray(skip);
  }
}

/**
 * A file written in the order chunks are pushed, one write at a time, each taking every chunk that
 * arrived while the one before was in flight: a 64 KiB chunk per write would make the upload wait
 * on the thread pool 16,384 times a GiB. `push` waits only when GATHER_BYTES are already waiting.
 */
class GatheredWrites {
  private waiting: Buffer[] = [];
  private waitingBytes = 0;
  private flight: Promise<void> | undefined;
  private failure: unknown;

  private readonly handle: FileHandle;

  constructor(handle: FileHandle) {
    this.handle = handle;
  }

  async push(chunk: Buffer): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    if (chunk.length === 0) return;
    this.waiting.push(chunk);
    this.waitingBytes += chunk.length;
    if (!this.flight) {
      this.flight = this.drain();
      this.flight.catch(() => {}); // seen by push or settle, never unhandled
    } else if (this.waitingBytes >= GATHER_BYTES) await this.flight;
  }

  /** Resolves once everything pushed is written; rejects with the first write's failure. */
  async settle(): Promise<void> {
    while (this.flight) await this.flight;
    if (this.failure !== undefined) throw this.failure;
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const buffers = this.waiting;
        this.waiting = [];
        this.waitingBytes = 0;
        await writeAll(this.handle, buffers);
      }
    } catch (error) {
      this.failure = error;
      throw error;
    } finally {
      this.flight = undefined;
    }
  }
}

export class LocalBlobStore implements BlobStore {
  private readonly objectsDir: string;
  private readonly tmpDir: string;

  readonly location: string;

  readonly root: string;

  constructor(root: string) {
    this.root = root;
    this.location = root;
    this.objectsDir = path.join(root, 'objects');
    this.tmpDir = path.join(root, 'tmp');
  }

  /**
   * Creates the folders and deletes temporary files a crashed process left behind: those last
   * written `tempGraceMs` or more ago (0, the default, means all of them: this process alone uses
   * `root`). Answers how many were deleted.
   */
  async init(tempGraceMs = 0): Promise<number> {
    await mkdir(this.objectsDir, { recursive: true, mode: 0o700 });
    await mkdir(this.tmpDir, { recursive: true, mode: 0o700 });
    // All of them without a grace: not "written before now", since a file's time has sub-millisecond
    // precision and Date.now() does not (one written in the same millisecond would be kept).
    return this.removeStaleTemps(tempGraceMs === 0 ? Infinity : Date.now() - tempGraceMs);
  }

  /** Deletes the temporary files (unfinished writes) last written at or before `before` (epoch ms); answers how many. */
  async removeStaleTemps(before: number): Promise<number> {
    let removed = 0;
    for (const name of await readdir(this.tmpDir)) {
      const file = path.join(this.tmpDir, name);
      if (!(await writtenAtOrBefore(file, before))) continue;
      await rm(file, { force: true, recursive: true });
      removed += 1;
    }
    return removed;
  }

  /** The ids of the objects whose bytes were last written at or before `before` (epoch ms), in batches. */
  async *staleObjects(before: number, batchSize: number): AsyncGenerator<string[]> {
    for await (const batch of this.objects(batchSize)) {
      const stale = batch.filter((object) => object.modified <= before).map((object) => object.id);
      if (stale.length > 0) yield stale;
    }
  }

  /**
   * Every object file, shard by shard, in key order. Files that are not named by a lower-case UUID
   * in their own shard are not objects and are left out.
   */
  async *objects(batchSize: number): AsyncGenerator<StoredBlob[]> {
    const shards = (await entriesOf(this.objectsDir))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    let batch: StoredBlob[] = [];
    for (const shard of shards) {
      const names = (await entriesOf(path.join(this.objectsDir, shard)))
        .map((entry) => entry.name)
        .sort();
      for (const name of names) {
        if (!uuidPattern.test(name) || name !== name.toLowerCase() || name.slice(0, 2) !== shard)
          continue;
        const info = await statOf(this.pathOf(name));
        if (!info?.isFile()) continue; // removed meanwhile (installed over, or by another process)
        batch.push({ id: name, size: info.size, modified: info.mtimeMs });
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
  }

  /** The temporary files of writes in progress or cut off, by name below `tmp/`. */
  async temps(): Promise<UnfinishedWrite[]> {
    const found: UnfinishedWrite[] = [];
    for (const entry of await entriesOf(this.tmpDir)) {
      const info = await statOf(path.join(this.tmpDir, entry.name));
      if (info) found.push({ name: entry.name, started: info.mtimeMs, size: info.size });
    }
    return found.sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** Renames the object's file to `<root>/lost+found/<id>`, durably; answers that path. */
  async quarantine(id: string): Promise<string> {
    const from = this.pathOf(id);
    const folder = path.join(this.root, 'lost+found');
    const to = path.join(folder, blobKey(id));
    await mkdir(folder, { recursive: true, mode: 0o700 });
    await rename(from, to);
    await syncDirectory(folder);
    await syncDirectory(path.dirname(from));
    return to;
  }

  private pathOf(id: string): string {
    const key = blobKey(id);
    return path.join(this.objectsDir, key.slice(0, 2), key);
  }

  private tempPath(id: string): string {
    // Unique per call: concurrent writes to one id never share a temporary file.
    return path.join(this.tmpDir, `${blobKey(id)}.${randomUUID()}.tmp`);
  }

  /** Renames a complete, fsynced temporary file over the object's path, durably. */
  private async install(tmp: string, id: string): Promise<void> {
    const final = this.pathOf(id);
    const shard = path.dirname(final);
    const created = await mkdir(shard, { recursive: true, mode: 0o700 });
    await rename(tmp, final);
    await syncDirectory(shard);
    if (created !== undefined) await syncDirectory(this.objectsDir); // the new shard's own entry
  }

  /**
   * Streams `source` into the object `id`, replacing any previous content atomically. On any
   * failure (too large, source error or premature close, abort) the previous content is untouched,
   * no temporary file remains, and a stream source has been destroyed.
   */
  async write(
    id: string,
    source: Readable | Buffer | string,
    options: WriteOptions = {},
  ): Promise<WrittenBlob> {
    const { maxBytes, signal } = options;
    const tmp = this.tempPath(id); // validates id before anything touches the disk
    signal?.throwIfAborted();
    const input = source instanceof Readable ? source : Readable.from([Buffer.from(source)]);
    // While we await open() nobody iterates the input yet: an error it emits then must not crash
    // the process as an unhandled 'error' event; the loop still sees it (the stream is errored).
    const ignore = () => {};
    input.on('error', ignore);

    const hash = new BlobMd5();
    let size = 0;
    let handle: FileHandle | undefined;
    let writes: GatheredWrites | undefined;
    try {
      handle = await open(tmp, 'wx', 0o600);
      writes = new GatheredWrites(handle);
      // Abort destroys the input, which makes the loop below throw even if the source is stalled.
      if (signal) addAbortSignal(signal, input);
      // Leaving the loop by throwing destroys the input (the async iterator's return()).
      for await (const chunk of input) {
        const bytes: Buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
        size += bytes.length;
        if (maxBytes !== undefined && size > maxBytes) throw new BlobTooLarge(maxBytes);
        await hash.update(bytes);
        await writes.push(bytes);
      }
      signal?.throwIfAborted(); // an abort racing the last chunk still cancels the write
      await writes.settle();
      // Durable before it is visible: the bytes reach the disk here, then the rename (install) does.
      await handle.sync();
      await handle.close();
      handle = undefined;
      const md5 = await hash.digest();
      await this.install(tmp, id);
      return { size, md5 };
    } catch (error) {
      input.destroy(); // e.g. open() failed before the loop: the source is not left half-read
      hash.discard();
      // No write may still be in flight when the file is closed and removed.
      await writes?.settle().catch(() => {});
      await handle?.close().catch(() => {});
      await rm(tmp, { force: true });
      throw error;
    } finally {
      input.off('error', ignore);
    }
  }

  /** The object's bytes, or the inclusive `range` of them. A missing object errors the stream (ENOENT). */
  read(id: string, range?: ByteRange): Readable {
    const file = this.pathOf(id);
    return createReadStream(file, {
      highWaterMark: READ_CHUNK_BYTES,
      ...(range ? { start: range.start, end: range.end } : {}),
    });
  }

  /**
   * Opens the object's current content: the size and the bytes come from one open file, so an
   * overwrite renamed over the path meanwhile cannot make them disagree. Call `stream` once (it
   * closes the file when done) or `close`. Rejects with ENOENT if the object has no content.
   */
  async openRead(id: string): Promise<OpenBlob> {
    const handle = await open(this.pathOf(id), 'r');
    try {
      const { size } = await handle.stat();
      return {
        size,
        stream: (range) =>
          handle.createReadStream({
            autoClose: true,
            highWaterMark: READ_CHUNK_BYTES,
            ...(range ? { start: range.start, end: range.end } : {}),
          }),
        close: () => handle.close(),
      };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** Size in bytes; rejects with ENOENT if the object has no content. */
  async size(id: string): Promise<number> {
    return (await stat(this.pathOf(id))).size;
  }

  async exists(id: string): Promise<boolean> {
    try {
      await stat(this.pathOf(id));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  /** Deletes the object's bytes; a missing object is not an error. */
  async remove(id: string): Promise<void> {
    await rm(this.pathOf(id), { force: true });
  }

  /** Copies `fromId`'s bytes to `toId`, atomically like write(). Rejects with ENOENT if `fromId` is missing. */
  async copy(fromId: string, toId: string): Promise<void> {
    const from = this.pathOf(fromId);
    const tmp = this.tempPath(toId);
    try {
      // FICLONE: a reflink where the filesystem supports it, an ordinary copy otherwise.
      await copyFile(from, tmp, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
      const handle = await open(tmp, 'r+');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await this.install(tmp, toId);
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
  }
}

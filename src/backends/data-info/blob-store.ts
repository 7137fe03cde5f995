/**
 * What the data store asks of a place that keeps file bytes (backends.md §2.7): bytes by object
 * UUID, written whole or not at all, streamed both ways. Two kinds implement it: a local folder
 * (blobs.ts, the default) and an S3-compatible bucket (s3-blobs.ts, BLOB_STORE_URL) that several
 * gateways on several hosts can share. open-blob-store.ts picks one from the configuration.
 */
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';

/** Thrown by write() when the source has more than `maxBytes`; nothing is kept. */
export class BlobTooLarge extends Error {
  override readonly name = 'BlobTooLarge';
  readonly limit: number;

  constructor(limit: number) {
    super(`content is larger than ${limit} bytes`);
    this.limit = limit;
  }
}

export interface WriteOptions {
  maxBytes?: number;
  signal?: AbortSignal;
}

export interface WrittenBlob {
  size: number;
  /** Lower-case hex MD5 of the bytes written. */
  md5: string;
}

/** An object's content opened for reading (BlobStore.openRead). */
export interface OpenBlob {
  size: number;
  stream(range?: ByteRange): Readable;
  close(): Promise<void>;
}

/** An inclusive byte range, as fs.createReadStream and Content-Range use it. */
export interface ByteRange {
  start: number;
  end: number;
}

/** An object as a store lists it (BlobStore.objects). */
export interface StoredBlob {
  id: string;
  size: number;
  /** When its bytes were last written (epoch ms). */
  modified: number;
}

/** An unfinished write as a store lists it (BlobStore.temps): a temporary file, a multipart upload. */
export interface UnfinishedWrite {
  /** The temporary file's name below `tmp/`, or the upload's key and upload id. */
  name: string;
  /** When it was started or last written (epoch ms). */
  started: number;
  /** Bytes written so far, where the store tells. */
  size?: number;
}

/**
 * File bytes by object id. A missing object is reported as an error with `code: 'ENOENT'` (as
 * node:fs does), whichever kind of store it is; a store that cannot be reached fails with a
 * GatewayError (ERR_BLOB_STORE_UNAVAILABLE, ERR_BLOB_STORE).
 */
export interface BlobStore {
  /** Where the bytes are, for logs and messages: a folder, or `s3://bucket/prefix`. */
  readonly location: string;
  /**
   * Prepares the store and removes unfinished writes older than `tempGraceMs` (0: all of them,
   * this process alone uses the store). Answers how many were removed.
   */
  init(tempGraceMs?: number): Promise<number>;
  /** Removes unfinished writes started at or before `before` (epoch ms); answers how many. */
  removeStaleTemps(before: number): Promise<number>;
  /** The ids of objects last written at or before `before` (epoch ms), in batches of at most `batchSize`. */
  staleObjects(before: number, batchSize: number): AsyncGenerator<string[]>;
  /**
   * Every object (named by a lower-case UUID; anything else in the store is not one), in batches of
   * at most `batchSize`, in key order. An empty store, or one never initialised, has none.
   */
  objects(batchSize: number): AsyncGenerator<StoredBlob[]>;
  /** The unfinished writes (a crash's leftovers, or writes in progress). */
  temps(): Promise<UnfinishedWrite[]>;
  /**
   * Moves the object's bytes out of the store, to `lost+found/<id>` beside `objects/`, where no
   * listing sees them and an operator can look at them; answers where they went. ENOENT if missing.
   */
  quarantine(id: string): Promise<string>;
  /**
   * Streams `source` into the object `id`, replacing any previous content atomically. On any
   * failure (too large, source error or premature close, abort) the previous content is untouched,
   * nothing of the write remains, and a stream source has been destroyed.
   */
  write(
    id: string,
    source: Readable | Buffer | string,
    options?: WriteOptions,
  ): Promise<WrittenBlob>;
  /** The object's bytes, or the inclusive `range` of them. A missing object errors the stream (ENOENT). */
  read(id: string, range?: ByteRange): Readable;
  /**
   * Opens the object's current content: its size and the bytes streamed are of one version, even
   * when an overwrite lands meanwhile. Call `stream` once or `close`. Rejects with ENOENT if the
   * object has no content.
   */
  openRead(id: string): Promise<OpenBlob>;
  /** Size in bytes; rejects with ENOENT if the object has no content. */
  size(id: string): Promise<number>;
  exists(id: string): Promise<boolean>;
  /** Deletes the object's bytes; a missing object is not an error. */
  remove(id: string): Promise<void>;
  /** Copies `fromId`'s bytes to `toId`, atomically like write(). Rejects with ENOENT if `fromId` is missing. */
  copy(fromId: string, toId: string): Promise<void>;
}

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The one gate between a caller's id and a file path or object key: only a UUID gets through. */
export function blobKey(id: string): string {
  if (typeof id !== 'string' || !uuidPattern.test(id))
    throw new Error(`invalid blob id: ${JSON.stringify(id)}`);
  // One spelling per object, so `ABC…` and `abc…` cannot become two files.
  return id.toLowerCase();
}

/** The error a store answers for an object with no content, shaped like node:fs's. */
export function missingBlob(id: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`blob ${id} does not exist`), { code: 'ENOENT' });
}

/**
 * A pass-through that counts and hashes what goes by and fails with BlobTooLarge past `maxBytes`.
 * `result()` is the size and MD5 once the stream has ended.
 */
export function measuring(maxBytes: number | undefined): Transform & { result(): WrittenBlob } {
  const hash = createHash('md5');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer | string, _encoding, callback) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      size += bytes.length;
      if (maxBytes !== undefined && size > maxBytes) return callback(new BlobTooLarge(maxBytes));
      hash.update(bytes);
      callback(null, bytes);
    },
  });
  return Object.assign(stream, { result: () => ({ size, md5: hash.digest('hex') }) });
}

/**
 * A single HTTP byte range (RFC 9110 §14.1.2, §14.2) for a representation of `size` bytes:
 * `bytes=a-b`, `bytes=a-`, `bytes=-n`. Returns the inclusive range to serve (an end past the last
 * byte is clamped), `undefined` when the header should be ignored and the whole content served
 * (absent, another unit, malformed, `b < a`, or several ranges, which we do not serve as
 * multipart), or `'unsatisfiable'` for a 416 (start at or past the end, `-0`, any range of an
 * empty file).
 */
export function parseRange(
  header: string | undefined,
  size: number,
): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const unit = /^\s*bytes\s*=(.*)$/i.exec(header); // range units are case-insensitive
  if (!unit) return undefined;
  const set = unit[1] ?? '';
  if (set.includes(',')) return undefined;
  const spec = /^\s*(\d*)-(\d*)\s*$/.exec(set);
  if (!spec) return undefined;
  const [, first = '', last = ''] = spec;
  if (first === '' && last === '') return undefined;

  if (first === '') {
    // Suffix range: the last n bytes (all of them if n >= size).
    const length = Number(last);
    if (length === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return undefined; // invalid range-spec: ignore
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return { start, end };
}

/**
 * File bytes in an S3-compatible bucket (BLOB_STORE_URL), so that gateways on several hosts share
 * them: one object per data object, `<prefix>objects/<id>` (the local store's layout, blobs.ts;
 * `<prefix>lost+found/<id>` for bytes `npm run fsck --quarantine` set aside).
 *
 * The guarantees are the local store's. A write is one PutObject or one multipart upload
 * (@aws-sdk/lib-storage, parts of partSizeBytes, queueSize of them in flight: the most a write
 * buffers), and S3 shows an object only once it is complete, so readers see the old bytes or the
 * new, never a mix, and a failed or aborted write leaves no object: its multipart upload is
 * aborted (removeStaleTemps aborts any a crash left behind, where the server lists them). Reads
 * stream the response body; openRead pins the version it measured with If-Match on its ETag.
 * Every S3 failure becomes a GatewayError (ERR_BLOB_STORE_UNAVAILABLE when the store cannot be
 * reached or answers 5xx, ERR_BLOB_STORE when it refuses), a missing object the ENOENT every
 * store answers. The AWS SDK is loaded on first use: a gateway without BLOB_STORE_URL never loads it.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { PassThrough, pipeline, Readable } from 'node:stream';
import type { S3BlobStoreSettings } from '../../config/index.ts';
import { gatewayError, GatewayError } from '../../common/errors.ts';
import {
  blobKey,
  measuring,
  missingBlob,
  uuidPattern,
  type BlobStore,
  type ByteRange,
  type OpenBlob,
  type StoredBlob,
  type UnfinishedWrite,
  type WriteOptions,
  type WrittenBlob,
} from './blob-store.ts';

/** The largest object one CopyObject copies; larger ones are streamed through this process. */
const MAX_COPY_BYTES = 5 * 1024 ** 3;

interface S3Failure {
  name?: string;
  code?: string;
  /** Set on an error S3 answered (S3ServiceException), not on a transport failure. */
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
}

type Sdk = typeof import('@aws-sdk/client-s3') & typeof import('@aws-sdk/lib-storage');
let loading: Promise<Sdk> | undefined;
const loadSdk = (): Promise<Sdk> =>
  (loading ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]).then(
    ([s3, storage]) => ({ ...s3, ...storage }),
  ));

interface Connection {
  sdk: Sdk;
  client: S3Client;
}

export class S3BlobStore implements BlobStore {
  readonly location: string;
  private readonly bucket: string;
  private readonly objectsPrefix: string;
  private connection?: Promise<Connection>;
  private destroyed = false;

  private readonly settings: S3BlobStoreSettings;

  constructor(settings: S3BlobStoreSettings) {
    this.settings = settings;
    this.bucket = settings.bucket;
    this.objectsPrefix = `${settings.prefix}objects/`;
    this.location = `s3://${settings.bucket}/${settings.prefix}`;
  }

  /** The SDK and a client, made on first use. */
  private connect(): Promise<Connection> {
    if (this.destroyed)
      return Promise.reject(new Error(`the blob store ${this.location} is closed`));
    return (this.connection ??= loadSdk().then((sdk) => ({ sdk, client: this.makeClient(sdk) })));
  }

  private makeClient(sdk: Sdk): S3Client {
    const settings = this.settings;
    return new sdk.S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      ...(settings.credentials ? { credentials: settings.credentials } : {}),
      // Checksums only where S3 requires them: many S3-compatible servers refuse the newer
      // checksum headers; the MD5 of every write is computed here anyway.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      // To connect, and with no byte moving either way (a long transfer that moves is never cut).
      requestHandler: {
        connectionTimeout: settings.timeoutMs,
        socketTimeout: settings.timeoutMs,
      },
    });
  }

  /** Resolves when the bucket answers (HeadBucket): the readiness check of BLOB_STORE_URL. */
  async ping(): Promise<void> {
    await this.send('reach its bucket', undefined, ({ client, sdk }) =>
      client.send(new sdk.HeadBucketCommand({ Bucket: this.bucket })),
    );
  }

  /** Ends the client's connections. */
  destroy(): void {
    this.destroyed = true;
    void this.connection?.then(({ client }) => client.destroy());
  }

  private keyOf(id: string): string {
    return this.objectsPrefix + blobKey(id);
  }

  /** An S3 failure as the error every store answers; `doing` says what failed ("read 1234…"). */
  private failure(error: unknown, id: string | undefined, doing: string): Error {
    if (error instanceof GatewayError) return error;
    const failed = error as S3Failure;
    const status = failed.$metadata?.httpStatusCode;
    if (
      id !== undefined &&
      (failed.name === 'NoSuchKey' || (failed.name === 'NotFound' && status === 404))
    )
      return missingBlob(id);
    // The S3 error's name, or the system error's code (ECONNREFUSED); never the message, which
    // may name internal hosts: clients read this.
    const name =
      failed.name !== undefined && failed.name !== 'Error' ? failed.name : (failed.code ?? 'Error');
    if (failed.$fault !== undefined && status !== undefined && status < 500) {
      return gatewayError(
        'ERR_BLOB_STORE',
        `the file byte store refused to ${doing}: ${name} (${status})`,
        { s3_error: name, s3_status: status },
      );
    }
    return gatewayError(
      'ERR_BLOB_STORE_UNAVAILABLE',
      `the file byte store could not ${doing}: ${name}`,
      { s3_error: name, ...(status === undefined ? {} : { s3_status: status }) },
    );
  }

  /** Runs `run` with the connection; any failure becomes failure()'s error. */
  private async send<T>(
    doing: string,
    id: string | undefined,
    run: (connection: Connection) => Promise<T>,
  ): Promise<T> {
    try {
      return await run(await this.connect());
    } catch (error) {
      throw this.failure(error, id, doing);
    }
  }

  async init(tempGraceMs = 0): Promise<number> {
    // A bucket that cannot be reached now must not keep the platform from starting: readiness
    // reports it (503 with its check), requests for bytes fail with ERR_BLOB_STORE_UNAVAILABLE,
    // and the orphan sweep aborts these unfinished uploads once it answers.
    try {
      return await this.removeStaleTemps(Date.now() - tempGraceMs);
    } catch (error) {
      if (error instanceof GatewayError && error.errorCode === 'ERR_BLOB_STORE_UNAVAILABLE')
        return 0;
      throw error;
    }
  }

  /**
   * Aborts the multipart uploads of objects under the prefix started at or before `before`: the
   * writes a crashed process left unfinished.
   */
  async removeStaleTemps(before: number): Promise<number> {
    let removed = 0;
    for await (const upload of this.unfinishedUploads()) {
      if ((upload.initiated ?? 0) > before) continue; // one that does not say when is old
      await this.send('abort an unfinished upload', undefined, ({ client, sdk }) =>
        client.send(
          new sdk.AbortMultipartUploadCommand({
            Bucket: this.bucket,
            Key: upload.key,
            UploadId: upload.uploadId,
          }),
        ),
      );
      removed += 1;
    }
    return removed;
  }

  /**
   * The multipart uploads under the prefix neither completed nor aborted, page after page. A server
   * that cannot list them (NotImplemented) has none to show.
   */
  private async *unfinishedUploads(): AsyncGenerator<{
    key: string;
    uploadId: string;
    /** Undefined when the server did not say. */
    initiated: number | undefined;
  }> {
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    const { client, sdk } = await this.connect();
    for (;;) {
      let page;
      try {
        page = await client.send(
          new sdk.ListMultipartUploadsCommand({
            Bucket: this.bucket,
            Prefix: this.objectsPrefix,
            KeyMarker: keyMarker,
            UploadIdMarker: uploadIdMarker,
          }),
        );
      } catch (error) {
        if ((error as S3Failure).name === 'NotImplemented') return;
        throw this.failure(error, undefined, 'list unfinished uploads');
      }
      for (const upload of page.Uploads ?? [])
        if (upload.Key && upload.UploadId)
          yield {
            key: upload.Key,
            uploadId: upload.UploadId,
            initiated: upload.Initiated?.getTime(),
          };
      if (!page.IsTruncated) return;
      keyMarker = page.NextKeyMarker;
      uploadIdMarker = page.NextUploadIdMarker;
    }
  }

  async *staleObjects(before: number, batchSize: number): AsyncGenerator<string[]> {
    for await (const batch of this.objects(batchSize)) {
      const stale = batch.filter((object) => object.modified <= before).map((object) => object.id);
      if (stale.length > 0) yield stale;
    }
  }

  /** Every object under `<prefix>objects/`, in key order (ListObjectsV2's). */
  async *objects(batchSize: number): AsyncGenerator<StoredBlob[]> {
    let batch: StoredBlob[] = [];
    let token: string | undefined;
    do {
      const page = await this.send('list objects', undefined, ({ client, sdk }) =>
        client.send(
          new sdk.ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: this.objectsPrefix,
            ContinuationToken: token,
          }),
        ),
      );
      for (const object of page.Contents ?? []) {
        const name = object.Key?.slice(this.objectsPrefix.length) ?? '';
        if (!uuidPattern.test(name) || name !== name.toLowerCase()) continue;
        batch.push({
          id: name,
          size: object.Size ?? 0,
          modified: object.LastModified?.getTime() ?? Date.now(),
        });
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    if (batch.length > 0) yield batch;
  }

  /** The multipart uploads under the prefix that were neither completed nor aborted. */
  async temps(): Promise<UnfinishedWrite[]> {
    const found: UnfinishedWrite[] = [];
    for await (const upload of this.unfinishedUploads())
      found.push({
        name: `${upload.key} (upload ${upload.uploadId})`,
        started: upload.initiated ?? Date.now(),
      });
    return found;
  }

  /** Copies the object to `<prefix>lost+found/<id>`, then deletes it; answers the new place. */
  async quarantine(id: string): Promise<string> {
    const from = this.keyOf(id);
    const to = `${this.settings.prefix}lost+found/${blobKey(id)}`;
    const { size } = await this.head(id);
    if (size > MAX_COPY_BYTES) {
      const { client, sdk } = await this.connect();
      await new sdk.Upload({
        client,
        params: { Bucket: this.bucket, Key: to, Body: this.read(id) },
        partSize: this.settings.partSizeBytes,
        queueSize: this.settings.queueSize,
        leavePartsOnError: false,
      })
        .done()
        .catch((error: unknown) => {
          throw this.failure(error, id, `set ${id} aside`);
        });
    } else {
      await this.send(`set ${id} aside`, id, ({ client, sdk }) =>
        client.send(
          new sdk.CopyObjectCommand({
            Bucket: this.bucket,
            Key: to,
            CopySource: this.copySource(from),
          }),
        ),
      );
    }
    await this.remove(id);
    return `s3://${this.bucket}/${to}`;
  }

  /** CopyObject's source: the bucket and the key, each segment URL-encoded. */
  private copySource(key: string): string {
    return `${this.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
  }

  async write(
    id: string,
    source: Readable | Buffer | string,
    options: WriteOptions = {},
  ): Promise<WrittenBlob> {
    const { maxBytes, signal } = options;
    const key = this.keyOf(id); // validates id before anything is sent
    signal?.throwIfAborted();
    const input = source instanceof Readable ? source : Readable.from([Buffer.from(source)]);
    const meter = measuring(maxBytes);
    // The first thing that went wrong on our side (the source, the size limit, the abort) is what
    // the caller hears, not the upload's own "stream errored" echo of it.
    let cause: unknown;
    pipeline(input, meter, (error) => {
      if (error) cause ??= error;
    });
    // Failing the body makes lib-storage abort the multipart upload before done() rejects, so
    // nothing of the write is left when the caller hears of the failure.
    const onAbort = () => {
      cause ??= signal!.reason;
      meter.destroy(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const { client, sdk } = await this.connect();
      await new sdk.Upload({
        client,
        params: { Bucket: this.bucket, Key: key, Body: meter },
        partSize: this.settings.partSizeBytes,
        queueSize: this.settings.queueSize,
        leavePartsOnError: false,
      }).done();
      return meter.result();
    } catch (error) {
      input.destroy();
      meter.destroy();
      throw cause ?? this.failure(error, undefined, `write ${id}`);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** The response body of a GetObject, `range` and `etag` as given. */
  private async get(id: string, range?: ByteRange, etag?: string): Promise<Readable> {
    const response = await this.send(`read ${id}`, id, ({ client, sdk }) =>
      client.send(
        new sdk.GetObjectCommand({
          Bucket: this.bucket,
          Key: this.keyOf(id),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
          ...(etag ? { IfMatch: etag } : {}),
        }),
      ),
    );
    return response.Body as Readable;
  }

  /** A stream handed out now whose bytes come from `open` once it answers; its failure errors the stream. */
  private later(open: () => Promise<Readable>): Readable {
    const out = new PassThrough();
    open().then(
      (body) => pipeline(body, out, () => {}),
      (error: Error) => out.destroy(error),
    );
    return out;
  }

  read(id: string, range?: ByteRange): Readable {
    this.keyOf(id);
    return this.later(() => this.get(id, range));
  }

  async openRead(id: string): Promise<OpenBlob> {
    const head = await this.head(id);
    let streamed = false;
    return {
      size: head.size,
      stream: (range) => {
        if (streamed) throw new Error(`blob ${id} was already streamed`);
        streamed = true;
        return this.later(() => this.get(id, range, head.etag));
      },
      close: async () => {},
    };
  }

  private async head(id: string): Promise<{ size: number; etag?: string }> {
    const response = await this.send(`look up ${id}`, id, ({ client, sdk }) =>
      client.send(new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: this.keyOf(id) })),
    );
    return { size: response.ContentLength ?? 0, etag: response.ETag };
  }

  async size(id: string): Promise<number> {
    return (await this.head(id)).size;
  }

  async exists(id: string): Promise<boolean> {
    try {
      await this.head(id);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  async remove(id: string): Promise<void> {
    const key = this.keyOf(id);
    await this.send(`delete ${id}`, undefined, ({ client, sdk }) =>
      client.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: key })),
    );
  }

  async copy(fromId: string, toId: string): Promise<void> {
    const from = this.keyOf(fromId);
    const to = this.keyOf(toId);
    const { size } = await this.head(fromId);
    if (size > MAX_COPY_BYTES) {
      await this.write(toId, this.read(fromId));
      return;
    }
    await this.send(`copy ${fromId} to ${toId}`, fromId, ({ client, sdk }) =>
      client.send(
        new sdk.CopyObjectCommand({
          Bucket: this.bucket,
          Key: to,
          CopySource: this.copySource(from),
        }),
      ),
    );
  }
}

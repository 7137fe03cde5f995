// Which BlobStore (blob-store.ts) holds file bytes: the local folder, or the S3-compatible bucket
// of BLOB_STORE_URL when one is configured; with tracing on, its transfers make spans (traced-blobs.ts).
import path from 'node:path';
import type { S3BlobStoreSettings } from '../../config/index.ts';
import type { BlobStore } from './blob-store.ts';
import { LocalBlobStore } from './blobs.ts';
import { S3BlobStore } from './s3-blobs.ts';
import { tracedBlobs } from './traced-blobs.ts';

/**
 * The store for `dir` (a folder below DATA_STORE_DIR), or for the same place in the bucket: the
 * folder's path below `root` becomes part of the key prefix (`<prefix><sub>/objects/<id>`), so the
 * genome service's `<DATA_STORE_DIR>/genomes` is `<prefix>genomes/` in S3.
 */
export function openBlobStore(dir: string, s3?: S3BlobStoreSettings, sub?: string): BlobStore {
  return tracedBlobs(
    s3
      ? new S3BlobStore(sub === undefined ? s3 : { ...s3, prefix: `${s3.prefix}${sub}/` })
      : new LocalBlobStore(sub === undefined ? dir : path.join(dir, sub)),
  );
}

/**
 * The readiness probe of the bucket of BLOB_STORE_URL (`/readyz`'s `blob-store` check), with a
 * client of its own; undefined when file bytes are in a local folder.
 */
export function blobStoreProbe(
  s3: S3BlobStoreSettings | undefined,
): { ping(): Promise<void>; close(): void } | undefined {
  if (!s3) return undefined;
  const store = new S3BlobStore(s3);
  return { ping: () => store.ping(), close: () => store.destroy() };
}

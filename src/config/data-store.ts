// The data store's settings: its zone and folders, where file bytes live (a local folder, or an
// S3-compatible bucket at BLOB_STORE_URL), upload and edit sizes, the trash, URL imports and the
// public base URL of ticket downloads.
import path from 'node:path';
import { boolean, ConfigError, integer, pathSegment, text, url, type Env } from './variables.ts';

/**
 * An S3-compatible bucket for the data store's file bytes (BLOB_STORE_URL, docs/configuration.md,
 * "Shared file bytes"): `s3://[KEY_ID:SECRET@]bucket[/prefix]?endpoint=…&region=…&forcePathStyle=true`.
 */
export interface S3BlobStoreSettings {
  bucket: string;
  /** Every key starts with this: empty, or ending in `/`. */
  prefix: string;
  /** A non-AWS service's URL (`endpoint`); AWS's own when absent. */
  endpoint?: string;
  /** `region`, else AWS_REGION, AWS_DEFAULT_REGION, else `us-east-1`. */
  region: string;
  /** Bucket in the path, not the host name (`forcePathStyle`, for most S3-compatible servers). */
  forcePathStyle: boolean;
  /** From the URL's user and password; absent: the AWS SDK's usual chain (AWS_ACCESS_KEY_ID, …, profiles, roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Bytes per part of a multipart upload (`partSizeMiB`, default 8, at least 5). */
  partSizeBytes: number;
  /** Parts of one upload sent at once (`queueSize`, default 2): at most partSize × queueSize buffered. */
  queueSize: number;
  /** Longest wait to connect, and for any answer byte (`timeoutMs`, default 30000). */
  timeoutMs: number;
}

export interface DataStoreSettings {
  /** The data store's zone: homes live under `/<zone>/home/<user>` (DATA_ZONE). */
  zone: string;
  /** Name of the system default output folder inside a user's home (DEFAULT_OUTPUT_FOLDER). */
  defaultOutputFolder: string;
  /** Where file bytes live (DATA_STORE_DIR, default `<GATEWAY_DATA_DIR>/data-store`). */
  dir: string;
  /** File bytes in an S3-compatible bucket instead of `dir` (BLOB_STORE_URL); `dir` then keeps nothing. */
  blobStore?: S3BlobStoreSettings;
  /** Largest upload (MAX_UPLOAD_BYTES); larger ones get 413. */
  maxUploadBytes: number;
  /** Largest content `save`/`saveas` accept (FILEIO_MAX_EDIT_BYTES). */
  maxEditBytes: number;
  /** Days an item stays in the trash before the sweep deletes it (TRASH_RETENTION_DAYS). */
  trashRetentionDays: number;
  /** Bytes and unfinished writes untouched this long may be swept as orphans (DATA_STORE_ORPHAN_GRACE_SECONDS). */
  orphanGraceMs: number;
  /** Let URL imports reach loopback, private and link-local addresses (URL_IMPORT_ALLOW_PRIVATE_NETWORKS). */
  urlImportAllowPrivateNetworks: boolean;
  /**
   * Public base URL of ticket downloads (TICKET_BASE_URL, default `http://localhost:<PORT>/tickets`):
   * a ticket's `download-url` is `<base>/d/<ticket-id>/<name>`, its page `<base>/<ticket-id>`.
   */
  ticketBaseUrl: string;
}

export function dataStoreSettings(env: Env, dataDir: string, port: number): DataStoreSettings {
  return {
    zone: pathSegment(env, 'DATA_ZONE', 'platform'),
    defaultOutputFolder: pathSegment(env, 'DEFAULT_OUTPUT_FOLDER', 'analyses'),
    dir: path.resolve(text(env, 'DATA_STORE_DIR') ?? path.join(dataDir, 'data-store')),
    ...withBlobStore(s3BlobStore(env, 'BLOB_STORE_URL')),
    maxUploadBytes: integer(env, 'MAX_UPLOAD_BYTES', 10 * 1024 ** 3, 1, 2 ** 50),
    maxEditBytes: integer(env, 'FILEIO_MAX_EDIT_BYTES', 8 * 1024 ** 2, 1, 2 ** 40),
    trashRetentionDays: integer(env, 'TRASH_RETENTION_DAYS', 30, 1, 36_500),
    orphanGraceMs: integer(env, 'DATA_STORE_ORPHAN_GRACE_SECONDS', 3600, 0, 30 * 86_400) * 1000,
    urlImportAllowPrivateNetworks: boolean(env, 'URL_IMPORT_ALLOW_PRIVATE_NETWORKS', false),
    ticketBaseUrl: (
      url(env, 'TICKET_BASE_URL', ['http:', 'https:'])?.toString() ??
      `http://localhost:${port}/tickets`
    ).replace(/\/+$/, ''),
  };
}

/** `{ blobStore }` when BLOB_STORE_URL is set, nothing otherwise (the local folder). */
function withBlobStore(settings: S3BlobStoreSettings | undefined) {
  return settings ? { blobStore: settings } : {};
}

/** BLOB_STORE_URL (S3BlobStoreSettings); the URL is never repeated in an error, it may hold a secret. */
function s3BlobStore(env: Env, name: string): S3BlobStoreSettings | undefined {
  try {
    return s3BlobStoreOf(env, name);
  } catch (error) {
    // A query parameter's own check names the parameter: say which variable it is in.
    if (error instanceof ConfigError && error.variable !== name)
      throw new ConfigError(
        name,
        `parameter ${error.message.replace(/^Invalid configuration: /, '')}`,
      );
    throw error;
  }
}

function s3BlobStoreOf(env: Env, name: string): S3BlobStoreSettings | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a URL like s3://bucket/prefix?endpoint=…&region=…');
  }
  if (parsed.protocol !== 's3:') throw new ConfigError(name, 'must use s3:');
  const bucket = decodeURIComponent(parsed.hostname);
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw new ConfigError(name, `names the bucket "${bucket}", which is not a valid bucket name`);
  const segments = parsed.pathname.split('/').filter((segment) => segment !== '');
  const prefix = segments.map((segment) => `${decodeURIComponent(segment)}/`).join('');
  const query = Object.fromEntries(parsed.searchParams);
  const known = ['endpoint', 'region', 'forcePathStyle', 'partSizeMiB', 'queueSize', 'timeoutMs'];
  const unknown = Object.keys(query).find((key) => !known.includes(key));
  if (unknown !== undefined)
    throw new ConfigError(
      name,
      `has the unknown parameter "${unknown}" (known: ${known.join(', ')})`,
    );
  const option = (key: string) => text(query, key);
  const number = (key: string, fallback: number, min: number, max: number) =>
    integer(query, key, fallback, min, max);
  let endpoint: string | undefined;
  if (option('endpoint') !== undefined) {
    const given = url(query, 'endpoint', ['http:', 'https:']);
    endpoint = given!.toString().replace(/\/+$/, '');
  }
  if ((parsed.username === '') !== (parsed.password === ''))
    throw new ConfigError(name, 'must give both an access key id and a secret, or neither');
  const forcePathStyle = option('forcePathStyle');
  return {
    bucket,
    prefix,
    endpoint,
    region:
      option('region') ?? text(env, 'AWS_REGION') ?? text(env, 'AWS_DEFAULT_REGION') ?? 'us-east-1',
    forcePathStyle: forcePathStyle === undefined ? false : boolean(query, 'forcePathStyle', false),
    credentials:
      parsed.username === ''
        ? undefined
        : {
            accessKeyId: decodeURIComponent(parsed.username),
            secretAccessKey: decodeURIComponent(parsed.password),
          },
    partSizeBytes: number('partSizeMiB', 8, 5, 5 * 1024) * 1024 ** 2,
    queueSize: number('queueSize', 2, 1, 64),
    timeoutMs: number('timeoutMs', 30_000, 100, 3_600_000),
  };
}

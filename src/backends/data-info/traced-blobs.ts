// A span per blob-store transfer when tracing is on (docs/operations.md, "Tracing"): an object's
// bytes written, or read until the stream ends. The AWS SDK's instrumentation adds the S3 calls
// beneath; the local folder has no instrumentation of its own, hence these spans around both.
import type { Readable } from 'node:stream';
import { activeTracing, inSpan, spanOverStream } from '../../common/tracing.ts';
import type { BlobStore, ByteRange, OpenBlob, WriteOptions } from './blob-store.ts';

class TracedBlobStore implements BlobStore {
  readonly location: string;
  private readonly system: string;

  private readonly store: BlobStore;

  constructor(store: BlobStore) {
    this.store = store;
    this.location = store.location;
    this.system = store.location.startsWith('s3://') ? 's3' : 'file';
  }

  private attributes(id: string, range?: ByteRange) {
    return {
      'blob.store': this.system,
      'blob.location': this.location,
      'blob.id': id,
      ...(range ? { 'blob.range': `${range.start}-${range.end}` } : {}),
    };
  }

  write(id: string, source: Readable | Buffer | string, options?: WriteOptions) {
    return inSpan('blob write', this.attributes(id), async (span) => {
      const written = await this.store.write(id, source, options);
      span.setAttributes({ 'blob.size': written.size });
      return written;
    });
  }

  read(id: string, range?: ByteRange): Readable {
    return spanOverStream('blob read', this.attributes(id, range), this.store.read(id, range));
  }

  async openRead(id: string): Promise<OpenBlob> {
    const opened = await this.store.openRead(id);
    return {
      size: opened.size,
      stream: (range) =>
        spanOverStream(
          'blob read',
          { ...this.attributes(id, range), 'blob.size': opened.size },
          opened.stream(range),
        ),
      close: () => opened.close(),
    };
  }

  copy(fromId: string, toId: string): Promise<void> {
    return inSpan('blob copy', { ...this.attributes(toId), 'blob.source_id': fromId }, () =>
      this.store.copy(fromId, toId),
    );
  }

  init(tempGraceMs?: number) {
    return this.store.init(tempGraceMs);
  }

  removeStaleTemps(before: number) {
    return this.store.removeStaleTemps(before);
  }

  staleObjects(before: number, batchSize: number) {
    return this.store.staleObjects(before, batchSize);
  }

  objects(batchSize: number) {
    return this.store.objects(batchSize);
  }

  temps() {
    return this.store.temps();
  }

  quarantine(id: string) {
    return this.store.quarantine(id);
  }

  size(id: string) {
    return this.store.size(id);
  }

  exists(id: string) {
    return this.store.exists(id);
  }

  remove(id: string) {
    return this.store.remove(id);
  }
}

/** The store itself when tracing is off; otherwise one whose transfers make spans. */
export function tracedBlobs(store: BlobStore): BlobStore {
  return activeTracing() ? new TracedBlobStore(store) : store;
}

/**
 * The MD5 of a blob's bytes as they are written (the catalog keeps it for stat). Hashing is the
 * largest cost of a large upload on the event loop (about 1.6 s of CPU a GiB, a third of its busy
 * time), so past the first block the bytes are hashed on a worker thread instead, in 1 MiB blocks
 * handed over without copying. A small write never starts the thread: its one block is hashed here.
 */
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/** Bytes copied into one block before it goes to the thread (and all a small write hashes here). */
const BLOCK_BYTES = 1024 * 1024;
/** Blocks handed over but not yet hashed, at most: `update` waits beyond that. */
const BLOCKS_IN_FLIGHT = 4;

/** The thread's code: one MD5 per job id, a reply per block (its acknowledgement) and at the end. */
const threadSource = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = new Map();
parentPort.on('message', ({ id, block, length, end, discard }) => {
  let hash = hashes.get(id);
  if (hash === undefined) hashes.set(id, (hash = createHash('md5')));
  if (block !== undefined) {
    hash.update(new Uint8Array(block, 0, length));
    // The block goes back, to be filled again.
    if (!end) parentPort.postMessage({ id, acked: block }, [block]);
  }
  if (end) {
    hashes.delete(id);
    if (!discard) parentPort.postMessage({ id, md5: hash.digest('hex') });
  }
});
`;

interface Reply {
  id: number;
  /** A block hashed, handed back. */
  acked?: ArrayBuffer;
  md5?: string;
}

/** The one hashing thread of the process, started on first need; it does not keep the process alive. */
class HashThread {
  private readonly worker: Worker;
  private readonly jobs = new Map<number, BlobMd5>();
  private nextId = 1;

  private readonly gone: (thread: HashThread) => void;
  constructor(gone: (thread: HashThread) => void) {
    this.gone = gone;
    this.worker = new Worker(threadSource, { eval: true, execArgv: [] });
    this.worker.on('message', (reply: Reply) => this.jobs.get(reply.id)?.answer(reply));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the hashing thread exited (${code})`)));
    this.worker.unref(); // idle: it keeps nothing alive (after the listeners, which ref it)
  }

  /** A job begins: while any is open the thread keeps the process alive, as its answers are awaited. */
  open(job: BlobMd5): number {
    const id = this.nextId++;
    this.jobs.set(id, job);
    if (this.jobs.size === 1) this.worker.ref();
    return id;
  }

  close(id: number): void {
    if (this.jobs.delete(id) && this.jobs.size === 0) this.worker.unref();
  }

  send(message: object, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(message, transfer);
  }

  private fail(error: Error): void {
    this.gone(this);
    const jobs = [...this.jobs.values()];
    this.jobs.clear();
    for (const job of jobs) job.fail(error);
  }
}

let current: HashThread | undefined;

function hashThread(): HashThread {
  current ??= new HashThread((thread) => {
    if (current === thread) current = undefined;
  });
  return current;
}

/**
 * The MD5 of the bytes given to `update`, in order. Call `digest` once, or `discard`. Up to a block
 * of bytes is only referenced, and hashed here by `digest`; beyond that every byte is copied into
 * blocks that the thread hashes while the write goes on.
 */
export class BlobMd5 {
  /** Chunks kept while the total is at most a block (no thread yet). */
  private kept: Uint8Array[] = [];
  private keptBytes = 0;
  private thread: HashThread | undefined;
  private id = 0;
  private block: Uint8Array | undefined;
  private used = 0;
  private readonly spare: ArrayBuffer[] = [];
  private inFlight = 0;
  private acked: (() => void) | undefined;
  private finished: ((md5: string) => void) | undefined;
  private failure: Error | undefined;
  private failed: ((error: Error) => void) | undefined;
  private closed = false;

  /** Takes `chunk`, which must not change afterwards; resolves at once unless BLOCKS_IN_FLIGHT blocks await the thread. */
  async update(chunk: Uint8Array): Promise<void> {
    if (!this.thread) {
      if (this.keptBytes + chunk.length <= BLOCK_BYTES) {
        this.kept.push(chunk);
        this.keptBytes += chunk.length;
        return;
      }
      this.thread = hashThread();
      this.id = this.thread.open(this);
      const kept = this.kept;
      this.kept = [];
      for (const piece of kept) await this.copy(piece);
    }
    await this.copy(chunk);
  }

  /** The hex MD5 of everything given. */
  async digest(): Promise<string> {
    this.closed = true;
    if (!this.thread) {
      const hash = createHash('md5');
      for (const piece of this.kept) hash.update(piece);
      return hash.digest('hex');
    }
    this.throwIfFailed();
    const answer = new Promise<string>((resolve, reject) => {
      this.finished = resolve;
      this.failed = reject;
    });
    const block = this.block ?? new Uint8Array(0);
    const buffer = block.buffer as ArrayBuffer;
    this.thread.send({ id: this.id, block: buffer, length: this.used, end: true }, [buffer]);
    try {
      return await answer;
    } finally {
      this.thread.close(this.id);
    }
  }

  /** Drops the hash (a write that failed); the thread forgets it. */
  discard(): void {
    this.kept = [];
    if (!this.thread || this.failure || this.closed) return;
    this.closed = true;
    this.thread.send({ id: this.id, end: true, discard: true });
    this.thread.close(this.id);
  }

  /** From the thread: a block hashed (handed back), or the digest. */
  answer(reply: Reply): void {
    if (reply.acked) {
      this.spare.push(reply.acked);
      this.inFlight -= 1;
      const acked = this.acked;
      this.acked = undefined;
      acked?.();
    }
    if (reply.md5 !== undefined) this.finished?.(reply.md5);
  }

  /** The thread is gone: whatever waits on it fails. */
  fail(error: Error): void {
    this.failure = error;
    this.failed?.(error);
    const acked = this.acked;
    this.acked = undefined;
    acked?.();
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  /** Copies `chunk` into blocks, handing each full one to the thread. */
  private async copy(chunk: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.block && this.used === BLOCK_BYTES) await this.handOver(this.block);
      if (!this.block) {
        const spare = this.spare.pop();
        this.block = spare ? new Uint8Array(spare) : new Uint8Array(BLOCK_BYTES);
      }
      const length = Math.min(chunk.length - offset, BLOCK_BYTES - this.used);
      this.block.set(chunk.subarray(offset, offset + length), this.used);
      this.used += length;
      offset += length;
    }
  }

  /** Sends a full block to the thread, once fewer than BLOCKS_IN_FLIGHT are there. */
  private async handOver(block: Uint8Array): Promise<void> {
    this.throwIfFailed();
    while (this.inFlight >= BLOCKS_IN_FLIGHT) {
      await new Promise<void>((resolve) => (this.acked = resolve));
      this.throwIfFailed();
    }
    const buffer = block.buffer as ArrayBuffer;
    this.thread!.send({ id: this.id, block: buffer, length: this.used }, [buffer]);
    this.inFlight += 1;
    this.block = undefined;
    this.used = 0;
  }
}

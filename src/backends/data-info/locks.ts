import type { DataStore } from './store.ts';

/**
 * In-process mutual exclusion per key: tasks for one key run one after the other, in arrival
 * order; tasks for different keys run freely. Used to keep an object's bytes and its catalog row
 * (size, md5) changing together when several overwrites of one object race.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    // The chain only ever resolves: a failed task releases its successor like a successful one.
    const tail = previous.then(() => done);
    this.tails.set(key, tail);
    await previous;
    try {
      return await task();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

const locks = new WeakMap<DataStore, KeyedLock>();

/** The per-object lock of a data store (keys are object ids). */
export function objectLock(data: DataStore): KeyedLock {
  let lock = locks.get(data);
  if (!lock) {
    lock = new KeyedLock();
    locks.set(data, lock);
  }
  return lock;
}

// The bytes a step has written: the sizes of every file under its working directory, symbolic
// links not followed, a file with several links counted once.
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Sums the directory's file sizes; gives up early once the sum passes `stopAbove` (the answer is
 * then only known to be over it). Entries that vanish while it walks count nothing.
 */
export async function directorySize(root: string, stopAbove = Infinity): Promise<number> {
  const seen = new Set<string>();
  let total = 0;
  const pending = [root];
  while (pending.length > 0 && total <= stopAbove) {
    const dir = pending.pop()!;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(dir, name);
      const info = await lstat(path).catch(() => undefined);
      if (!info) continue;
      if (info.isDirectory()) {
        pending.push(path);
      } else if (info.isFile()) {
        const inode = `${info.dev}:${info.ino}`;
        if (info.nlink > 1 && seen.has(inode)) continue;
        if (info.nlink > 1) seen.add(inode);
        total += info.size;
      }
    }
  }
  return total;
}

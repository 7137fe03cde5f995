// A step's stdout or stderr kept in a file up to a size; past it the stream is still read (so the
// program never blocks on a full pipe) and thrown away.
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Readable } from 'node:stream';

export interface CappedLog {
  /** The first bytes read (up to 4 KiB), for telling bubblewrap's own complaints. */
  head(): string;
  /** Resolves once the stream has ended and the file is written. */
  readonly finished: Promise<void>;
}

const headBytes = 4096;

export function captureStream(stream: Readable, path: string, capBytes: number): CappedLog {
  const file: WriteStream = createWriteStream(path);
  let written = 0;
  const head: Buffer[] = [];
  let headLength = 0;
  const fileClosed = new Promise<void>((resolve) => {
    file.on('close', resolve);
    // A log that cannot be written (a full disk) must not end the step: it is lost, not fatal.
    file.on('error', () => resolve());
  });
  stream.on('data', (chunk: Buffer) => {
    if (headLength < headBytes) {
      head.push(chunk.subarray(0, headBytes - headLength));
      headLength += Math.min(chunk.length, headBytes - headLength);
    }
    if (written < capBytes) {
      const kept = chunk.subarray(0, capBytes - written);
      written += kept.length;
      file.write(kept);
    }
  });
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    file.end();
  };
  for (const event of ['end', 'error', 'close']) stream.once(event, end);
  return { head: () => Buffer.concat(head).toString('utf8'), finished: fileClosed };
}

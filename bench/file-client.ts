// One large upload or download for `npm run bench:files`, in its own process (the client never shares
// the measured server's event loop). Options as JSON in argv[2]; the result, as JSON, on stdout.
// The bytes are generated, never read from disk: a 1 MiB pseudo-random pattern repeated, so a
// download can be checked byte for byte against what the upload sent without hashing anything.
import { request as httpRequest, type IncomingMessage } from 'node:http';

export interface TransferOptions {
  mode: 'upload' | 'download';
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** Bytes of the file: sent (upload) or expected (download). */
  bytes: number;
  /** Upload as multipart/form-data with one part of this field and file name (else the raw body). */
  multipart?: { field: string; filename: string };
}

export interface TransferResult {
  status: number;
  /** From the first byte sent to the last byte of the answer read. */
  ms: number;
  /** File bytes sent, or body bytes received. */
  bytes: number;
  /** Download: whether every byte received matched the pattern the upload sent. */
  intact?: boolean;
  /** The answer's text (uploads), for the harness to check. */
  answer?: string;
}

const PATTERN_BYTES = 1024 * 1024;

/** The repeated 1 MiB pattern (xorshift32 from a fixed seed: the same in every process). */
function pattern(): Buffer {
  const buffer = Buffer.allocUnsafe(PATTERN_BYTES);
  let x = 0x9e3779b9;
  for (let i = 0; i < PATTERN_BYTES; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    buffer.writeUInt32LE(x >>> 0, i);
  }
  return buffer;
}

function send(options: TransferOptions, headers: Record<string, string | number>) {
  return httpRequest(options.url, {
    method: options.method ?? (options.mode === 'upload' ? 'POST' : 'GET'),
    headers: { ...options.headers, ...headers },
  });
}

function readAll(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (text += chunk));
    response.once('end', () => resolve(text));
    response.once('error', reject);
  });
}

async function upload(options: TransferOptions): Promise<TransferResult> {
  const bytes = pattern();
  const boundary = '----bench-files-boundary-7d0c3f';
  const head = options.multipart
    ? Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${options.multipart.field}"; ` +
          `filename="${options.multipart.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      )
    : Buffer.alloc(0);
  const tail = options.multipart ? Buffer.from(`\r\n--${boundary}--\r\n`) : Buffer.alloc(0);
  const started = performance.now();
  const request = send(options, {
    'content-type': options.multipart
      ? `multipart/form-data; boundary=${boundary}`
      : 'application/octet-stream',
    'content-length': head.length + options.bytes + tail.length,
  });
  const answered = new Promise<IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
  let sent = 0;
  let gone = false;
  answered.then(
    () => (gone = true),
    () => (gone = true),
  );
  const write = (chunk: Buffer) =>
    request.write(chunk) ? undefined : new Promise((resolve) => request.once('drain', resolve));
  await write(head);
  while (sent < options.bytes && !gone) {
    const piece = Math.min(PATTERN_BYTES, options.bytes - sent);
    await write(piece === PATTERN_BYTES ? bytes : bytes.subarray(0, piece));
    sent += piece;
  }
  request.end(tail);
  const response = await answered;
  const answer = await readAll(response);
  return { status: response.statusCode ?? 0, ms: performance.now() - started, bytes: sent, answer };
}

async function download(options: TransferOptions): Promise<TransferResult> {
  const bytes = pattern();
  const started = performance.now();
  const request = send(options, {});
  request.end();
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
  if (response.statusCode !== 200) {
    const answer = await readAll(response);
    return { status: response.statusCode ?? 0, ms: performance.now() - started, bytes: 0, answer };
  }
  let received = 0;
  let intact = true;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    // Compare with the pattern at this offset, piece by piece where the chunk wraps around it.
    let at = 0;
    while (intact && at < chunk.length) {
      const offset = (received + at) % PATTERN_BYTES;
      const length = Math.min(chunk.length - at, PATTERN_BYTES - offset);
      intact = chunk.compare(bytes, offset, offset + length, at, at + length) === 0;
      at += length;
    }
    received += chunk.length;
  }
  return {
    status: 200,
    ms: performance.now() - started,
    bytes: received,
    intact: intact && received === options.bytes,
  };
}

const options = JSON.parse(process.argv[2] ?? '{}') as TransferOptions;
const result = await (options.mode === 'upload' ? upload(options) : download(options));
process.stdout.write(JSON.stringify(result));

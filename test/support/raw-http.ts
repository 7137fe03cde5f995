// HTTP/1.1 over a bare node:net socket, for tests of what HTTP clients hide: bodies sent slowly or
// never finished, bytes no client library would send, whether the server closes the connection, and
// whether an answer survives the server closing while the client is still sending.
import net from 'node:net';

export interface RawAnswer {
  status?: number;
  headers: Record<string, string>;
  body: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json?: any;
  /** The server closed the connection (EOF or reset) before the test stopped listening. */
  closed: boolean;
  /** A socket error the client saw (ECONNRESET, EPIPE), if any. */
  error?: string;
  /** Milliseconds from connecting to the answer's last byte (or to the close, without one). */
  elapsedMs: number;
}

export interface RawConnection {
  socket: net.Socket;
  /** Writes, waiting for the socket to drain; false once the socket is gone. */
  write(bytes: string | Buffer): Promise<boolean>;
  /** The first complete answer; `closed` is final only once the connection has ended. */
  answer(timeoutMs?: number): Promise<RawAnswer>;
  /** Resolves when the connection is closed, with the time since connecting. */
  closed: Promise<number>;
  close(): void;
}

function parseAnswer(
  bytes: Buffer,
): { status: number; headers: Record<string, string>; body: string } | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? NaN);
  const rest = bytes.subarray(end + 4);
  if (Number.isFinite(length) && rest.length < length) return undefined;
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: rest.subarray(0, Number.isFinite(length) ? length : rest.length).toString('utf8'),
  };
}

/** Connects to `url`'s host and port; nothing is sent until the test writes. */
export function rawConnect(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let ended = false;
    const listeners = new Set<() => void>();
    const notify = () => listeners.forEach((listener) => listener());
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      notify();
    });
    socket.on('error', (failure: NodeJS.ErrnoException) => {
      error ??= failure.code ?? failure.message;
    });
    const closed = new Promise<number>((done) =>
      socket.once('close', () => {
        ended = true;
        notify();
        done(Date.now() - started);
      }),
    );
    socket.once('connect', () =>
      resolve({
        socket,
        closed,
        close: () => socket.destroy(),
        write: (bytes) =>
          new Promise((done) => {
            if (socket.destroyed || !socket.writable) return done(false);
            if (socket.write(bytes)) return done(true);
            const settle = () => {
              socket.off('drain', settle);
              socket.off('close', settle);
              done(!socket.destroyed);
            };
            socket.on('drain', settle);
            socket.on('close', settle);
          }),
        answer: (timeoutMs = 10_000) =>
          new Promise((done) => {
            const check = () => {
              const parsed = parseAnswer(Buffer.concat(chunks));
              if (!parsed && !ended) return;
              listeners.delete(check);
              clearTimeout(timer);
              let json: unknown;
              try {
                json = parsed ? JSON.parse(parsed.body) : undefined;
              } catch {
                json = undefined;
              }
              done({
                status: parsed?.status,
                headers: parsed?.headers ?? {},
                body: parsed?.body ?? '',
                json,
                closed: ended,
                error,
                elapsedMs: Date.now() - started,
              });
            };
            const timer = setTimeout(() => {
              listeners.delete(check);
              done({
                headers: {},
                body: Buffer.concat(chunks).toString('latin1'),
                closed: ended,
                error: error ?? 'no answer in time',
                elapsedMs: Date.now() - started,
              });
            }, timeoutMs);
            listeners.add(check);
            check();
          }),
      }),
    );
    socket.once('error', reject);
  });
}

/**
 * Sends `head` and then `body` as fast as the server takes it, not reading anything until the
 * whole body is written (or writing fails): the client of a server that closes early, while the
 * answer waits unread. Then reads the answer.
 */
export async function sendWholeThenRead(
  url: string,
  head: string,
  body: Buffer,
  chunkBytes = 256 * 1024,
): Promise<RawAnswer & { wroteAll: boolean }> {
  const connection = await rawConnect(url);
  connection.socket.pause();
  let wroteAll = await connection.write(head);
  for (let offset = 0; wroteAll && offset < body.length; offset += chunkBytes) {
    wroteAll = await connection.write(body.subarray(offset, offset + chunkBytes));
  }
  connection.socket.resume();
  const answer = await connection.answer();
  if (!answer.closed)
    await Promise.race([connection.closed, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  const final = await connection.answer(0);
  connection.close();
  return { ...answer, closed: final.closed, wroteAll };
}

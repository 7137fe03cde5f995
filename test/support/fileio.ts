// A gateway with the embedded backends for the file I/O tests, clients for named users, multipart
// bodies built by hand (so tests control names, sizes and streaming), and what is left in the store.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import { noRateLimits, startGateway, type RunningGateway } from './gateway.ts';
import {
  bearer,
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
  type JwksServer,
} from './tokens.ts';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  bytes: Buffer;
  body: any;
}

export interface FileioGateway {
  running: RunningGateway;
  zone: string;
  home(user: string): string;
  token(user: string): Promise<string>;
  /** `user` null sends no credentials; `json` is sent as JSON, `raw` as given. */
  call(
    user: string | null,
    method: string,
    route: string,
    options?: { json?: unknown; raw?: string | Buffer; headers?: Record<string, string> },
  ): Promise<Answer>;
  /** Multipart upload of one `file` part through the gateway. */
  upload(
    user: string | null,
    dest: string,
    name: string,
    content: Buffer | string,
    route?: string,
  ): Promise<Answer>;
  /** Rows of data_objects at `path`. */
  rows(path: string): Promise<unknown[]>;
  /** Files under the store's objects/ and tmp/ folders. */
  blobFiles(): { objects: number; tmp: number };
  close(): Promise<void>;
}

export const boundary = '----fileio-test-boundary-7c1d';

export function multipartHead(name: string, field = 'file'): Buffer {
  return Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${name.replace(/"/g, '%22')}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    'utf8',
  );
}
export const multipartTail = Buffer.from(`\r\n--${boundary}--\r\n`);
export const multipartType = `multipart/form-data; boundary=${boundary}`;

export function multipart(name: string, content: Buffer | string, field = 'file'): Buffer {
  return Buffer.concat([multipartHead(name, field), Buffer.from(content), multipartTail]);
}

function parse(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

export async function startFileioGateway(
  env: Record<string, string> = {},
): Promise<FileioGateway & { jwks: JwksServer }> {
  const key = await createSigningKey('ES256', 'fileio-key');
  const jwks = await startJwksServer([key]);
  const zone = env.DATA_ZONE ?? 'platform';
  const running = await startGateway({ ...noRateLimits, AUTH_JWKS_URL: jwks.url, ...env });
  const tokens = new Map<string, string>();
  const token = async (user: string) => {
    if (!tokens.has(user)) tokens.set(user, await signToken(key, userClaims(user)));
    return tokens.get(user)!;
  };
  const call: FileioGateway['call'] = async (user, method, route, options = {}) => {
    const body =
      options.raw ?? (options.json === undefined ? undefined : JSON.stringify(options.json));
    const response = await fetch(running.url + route, {
      method,
      headers: {
        ...(user ? bearer(await token(user)) : {}),
        ...(options.json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      body,
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    const text = bytes.toString('utf8');
    return { status: response.status, headers: response.headers, text, bytes, body: parse(text) };
  };
  const storeDir = running.gateway.config.dataStore.dir;
  const count = (folder: string): number => {
    const dir = path.join(storeDir, folder);
    if (!existsSync(dir)) return 0;
    return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) =>
      entry.isFile(),
    ).length;
  };
  return {
    running,
    jwks,
    zone,
    home: (user) => `/${zone}/home/${user}`,
    token,
    call,
    upload: (user, dest, name, content, route = '/secured/fileio/upload') =>
      call(user, 'POST', `${route}?dest=${encodeURIComponent(dest)}`, {
        raw: multipart(name, content),
        headers: { 'content-type': multipartType },
      }),
    rows: (objectPath) =>
      running.gateway.store.db
        .selectFrom('data_objects')
        .selectAll()
        .where('path', '=', objectPath)
        .execute(),
    blobFiles: () => ({ objects: count('objects'), tmp: count('tmp') }),
    close: async () => {
      await running.close();
      await jwks.close();
    },
  };
}

export interface RawResult {
  status?: number;
  headers?: IncomingHttpHeaders;
  body: string;
  error?: Error;
}

/**
 * Sends a request with node:http so a test controls the body stream: `write` gets the request to
 * write into (chunked unless headers give a length) and decides when (or whether) to end it.
 */
export function rawRequest(
  url: string,
  options: { method: string; headers: Record<string, string> },
  write: (request: ReturnType<typeof httpRequest>) => void | Promise<void>,
): Promise<RawResult> {
  return new Promise((resolve) => {
    const request = httpRequest(url, { method: options.method, headers: options.headers });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      response.on('error', (error) => resolve({ status: response.statusCode, body: '', error }));
    });
    request.on('error', (error) => resolve({ body: '', error }));
    void Promise.resolve(write(request)).catch((error: Error) => resolve({ body: '', error }));
  });
}

export const randomContent = (bytes: number): Buffer => randomBytes(bytes);

/** Polls `check` until it returns something truthy (or fails after `timeoutMs`). */
export async function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

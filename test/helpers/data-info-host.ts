// The data-info service alone on a real backend host, for the data-info tests: real HTTP on a
// loopback port, a fresh store on each engine, and direct access to the catalog and the bytes.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Catalog, DataObject, Permission } from '../../src/backends/data-info/catalog.js';
import { DataStore } from '../../src/backends/data-info/store.js';
import { backendSecretHeader, buildBackendHost } from '../../src/backends/host.js';
import { loadConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/database.js';
import { requiredInCi } from './gateway.js';
import { pgSchemaUrl } from './postgres.js';

export const secret = 'data-info-test-secret';
export const zone = 'lab';
export const ticketBaseUrl = 'https://files.example.org/tickets';
export const home = (user: string) => `/${zone}/home/${user}`;
export const trash = (user: string) => `/${zone}/trash/home/${user}`;

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  bytes: Buffer;
  text: string;
  json: () => any;
}

/** An answer to `call`: `body` is the text. */
export interface Answer extends HttpAnswer {
  body: string;
}

export interface SendOptions {
  headers?: Record<string, string>;
  /** A body sent whole (Content-Length set). */
  body?: string | Buffer;
  /** A JSON body. */
  json?: unknown;
}

/**
 * The data-info service over a fresh store (SQLite in a temp folder or a private PostgreSQL
 * schema) and a fresh DATA_STORE_DIR. `data` is a second DataStore over the same database and
 * bytes, for arranging objects and inspecting the catalog directly.
 */
export interface DataInfoHost {
  engine: string;
  host: FastifyInstance;
  store: Store;
  data: DataStore;
  catalog: Catalog;
  /** DATA_STORE_DIR: `objects/` and `tmp/` live here. */
  blobDir: string;
  port: number;
  /** `url` is below `/data-info`; `user` is added as the `user` parameter when given. */
  send(method: string, url: string, user?: string, options?: SendOptions): Promise<HttpAnswer>;
  /** `send` for JSON calls: `body` is sent as JSON. */
  call(method: string, url: string, options?: { body?: unknown; user?: string; headers?: Record<string, string> }): Promise<Answer>;
  /** A file with `content` at `path` owned by `owner` (whose home is prepared), bytes included. */
  file(owner: string, path: string, content?: string): Promise<DataObject>;
  folder(owner: string, path: string): Promise<DataObject>;
  grant(path: string, user: string, permission: Permission): Promise<void>;
  object(path: string): Promise<DataObject | undefined>;
  /** A DataStore over the same database and bytes whose clock is `now`. */
  withClock(now: () => number): DataStore;
  /** Every blob file under objects/ and every file under tmp/. */
  blobFiles(): { objects: string[]; tmp: string[] };
  close(): Promise<void>;
}

export function withUser(url: string, user: string | undefined): string {
  if (user === undefined) return url;
  return `${url}${url.includes('?') ? '&' : '?'}user=${encodeURIComponent(user)}`;
}

export function parseAnswer(status: number, headers: IncomingHttpHeaders, bytes: Buffer): HttpAnswer {
  const text = bytes.toString('utf8');
  return { status, headers, bytes, text, json: () => JSON.parse(text) };
}

function listFiles(folder: string): string[] {
  try {
    return readdirSync(folder, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name));
  } catch {
    return [];
  }
}

async function start(engine: string, store: Store, dir: string, cleanup: () => Promise<void>, maxUploadBytes: number): Promise<DataInfoHost> {
  const blobDir = path.join(dir, 'blobs');
  const config = loadConfig({
    DATA_ZONE: zone,
    DATA_STORE_DIR: blobDir,
    GATEWAY_DATA_DIR: dir,
    TICKET_BASE_URL: ticketBaseUrl,
    MAX_UPLOAD_BYTES: String(maxUploadBytes),
  });
  const host = await buildBackendHost({
    names: ['data-info'],
    context: { store, config },
    secret,
    logger: pino({ level: 'silent' }),
    bodyLimitBytes: 1024 * 1024,
    logRequests: false,
  });
  await host.listen({ host: '127.0.0.1', port: 0 });
  const port = (host.server.address() as AddressInfo).port;
  const withClock = (now: () => number) => new DataStore(store.db, { ...config.dataStore, now });
  const data = withClock(Date.now);
  await data.init();

  const send: DataInfoHost['send'] = (method, url, user, options = {}) =>
    new Promise((resolve, reject) => {
      const body = options.json !== undefined ? JSON.stringify(options.json) : options.body;
      const headers: Record<string, string> = {
        [backendSecretHeader]: secret,
        ...(options.json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      };
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      const request = httpRequest({ host: '127.0.0.1', port, method, path: withUser(`/data-info${url}`, user), headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve(parseAnswer(response.statusCode ?? 0, response.headers, Buffer.concat(chunks))));
        response.on('error', reject);
      });
      request.on('error', reject);
      request.end(body);
    });

  return {
    engine,
    host,
    store,
    data,
    catalog: data.catalog,
    blobDir,
    port,
    send,
    withClock,
    call: async (method, url, options = {}) => {
      const answer = await send(method, url, options.user, { json: options.body, headers: options.headers });
      return { ...answer, body: answer.text };
    },
    file: async (owner, filePath, content = `content of ${filePath}`) => {
      await data.caller(owner);
      const id = randomUUID();
      const written = await data.blobs.write(id, content);
      return data.catalog.create({ id, path: filePath, type: 'file', owner, size: written.size, md5: written.md5, contentType: 'text/plain' });
    },
    folder: async (owner, folderPath) => {
      await data.caller(owner);
      return data.catalog.create({ path: folderPath, type: 'dir', owner });
    },
    grant: async (objectPath, user, permission) => {
      const object = await data.catalog.byPath(objectPath);
      if (!object) throw new Error(`no object at ${objectPath}`);
      await data.catalog.grant(store.db, object.id, user, permission);
    },
    object: (objectPath) => data.catalog.byPath(objectPath),
    blobFiles: () => ({ objects: listFiles(path.join(blobDir, 'objects')), tmp: listFiles(path.join(blobDir, 'tmp')) }),
    close: async () => {
      await host.close();
      await store.close();
      await cleanup();
    },
  };
}

/** The engines to run a suite on: SQLite always, PostgreSQL when DATABASE_URL is set (required in CI). */
export const engines: { name: string; open: (maxUploadBytes?: number) => Promise<DataInfoHost | undefined> }[] = [
  {
    name: 'SQLite',
    open: async (maxUploadBytes = 1024 * 1024) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'data-info-'));
      return start('SQLite', await openStore({ dataDir: dir }), dir, async () => rmSync(dir, { recursive: true, force: true }), maxUploadBytes);
    },
  },
  {
    name: 'PostgreSQL',
    open: async (maxUploadBytes = 1024 * 1024) => {
      const databaseUrl = requiredInCi('DATABASE_URL');
      if (!databaseUrl) return undefined;
      const { url, drop } = await pgSchemaUrl(databaseUrl);
      const dir = mkdtempSync(path.join(tmpdir(), 'data-info-pg-'));
      const store = await openStore({ databaseUrl: url, dataDir: dir });
      return start('PostgreSQL', store, dir, async () => {
        await drop();
        rmSync(dir, { recursive: true, force: true });
      }, maxUploadBytes);
    },
  },
];

/** Reads an object's bytes through the BlobStore. */
export async function blobText(data: DataStore, id: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of data.blobs.read(id)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

/** A multipart/form-data body with one file part (the filename's UTF-8 bytes sent raw, as browsers do). */
export function multipartBody(filename: string, content: string | Buffer, field = 'file'): { body: Buffer; contentType: string } {
  const boundary = `----test${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    'utf8',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, Buffer.from(content), tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

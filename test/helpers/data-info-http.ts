import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { Catalog, type DataObject, type Permission } from '../../src/backends/data-info/catalog.js';
import { backendSecretHeader, buildBackendHost } from '../../src/backends/host.js';
import { loadConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/database.js';
import { requiredInCi } from './gateway.js';
import { pgSchemaUrl } from './postgres.js';

export const secret = 'data-info-http-test-secret';
export const zone = 'lab';
export const home = (user: string) => `/${zone}/home/${user}`;

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  bytes: Buffer;
  text: string;
  json: () => any;
}

export interface SendOptions {
  headers?: Record<string, string>;
  /** A body sent whole (Content-Length set). */
  body?: string | Buffer;
  /** A JSON body. */
  json?: unknown;
}

/**
 * The data-info service on a real backend host listening on a loopback port, over a fresh store
 * (SQLite in a temp folder, or a private PostgreSQL schema) and a fresh DATA_STORE_DIR.
 */
export interface DataInfoHttp {
  engine: string;
  host: FastifyInstance;
  store: Store;
  catalog: Catalog;
  /** DATA_STORE_DIR: `objects/` and `tmp/` live here. */
  blobDir: string;
  port: number;
  /** `url` is below `/data-info`; `user` is added as the `user` parameter when given. */
  send(method: string, url: string, user?: string, options?: SendOptions): Promise<HttpAnswer>;
  grant(path: string, user: string, permission: Permission): Promise<void>;
  object(path: string): Promise<DataObject | undefined>;
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

async function start(engine: string, store: Store, dir: string, cleanup: () => Promise<void>, maxUploadBytes: number): Promise<DataInfoHttp> {
  const blobDir = path.join(dir, 'blobs');
  const config = loadConfig({ DATA_ZONE: zone, DATA_STORE_DIR: blobDir, GATEWAY_DATA_DIR: dir, MAX_UPLOAD_BYTES: String(maxUploadBytes) });
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
  const catalog = new Catalog(store.db, zone);

  const send: DataInfoHttp['send'] = (method, url, user, options = {}) =>
    new Promise((resolve, reject) => {
      const body = options.json !== undefined ? JSON.stringify(options.json) : options.body;
      const headers: Record<string, string> = { [backendSecretHeader]: secret, ...options.headers };
      if (options.json !== undefined) headers['content-type'] = 'application/json';
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

  const listFiles = (folder: string): string[] => {
    try {
      return readdirSync(folder, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => path.join(entry.parentPath, entry.name));
    } catch {
      return [];
    }
  };

  return {
    engine,
    host,
    store,
    catalog,
    blobDir,
    port,
    send,
    grant: async (objectPath, user, permission) => {
      const object = await catalog.byPath(objectPath);
      if (!object) throw new Error(`no object at ${objectPath}`);
      await catalog.grant(store.db, object.id, user, permission);
    },
    object: (objectPath) => catalog.byPath(objectPath),
    blobFiles: () => ({ objects: listFiles(path.join(blobDir, 'objects')), tmp: listFiles(path.join(blobDir, 'tmp')) }),
    close: async () => {
      await host.close();
      await store.close();
      await cleanup();
    },
  };
}

/** SQLite always; PostgreSQL when DATABASE_URL is set (CI requires it). */
export const httpEngines: { name: string; open: (maxUploadBytes?: number) => Promise<DataInfoHttp | undefined> }[] = [
  {
    name: 'SQLite',
    open: async (maxUploadBytes = 1024 * 1024) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'data-info-http-'));
      return start('SQLite', await openStore({ dataDir: dir }), dir, async () => rmSync(dir, { recursive: true, force: true }), maxUploadBytes);
    },
  },
  {
    name: 'PostgreSQL',
    open: async (maxUploadBytes = 1024 * 1024) => {
      const databaseUrl = requiredInCi('DATABASE_URL');
      if (!databaseUrl) return undefined;
      const { url, drop } = await pgSchemaUrl(databaseUrl);
      const dir = mkdtempSync(path.join(tmpdir(), 'data-info-http-pg-'));
      const store = await openStore({ databaseUrl: url, dataDir: dir });
      return start('PostgreSQL', store, dir, async () => {
        await drop();
        rmSync(dir, { recursive: true, force: true });
      }, maxUploadBytes);
    },
  },
];

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

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { DataObject } from '../../src/backends/data-info/catalog.js';
import { DataStore } from '../../src/backends/data-info/store.js';
import { backendSecretHeader, buildBackendHost } from '../../src/backends/host.js';
import { loadConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/database.js';
import { requiredInCi } from './gateway.js';
import { pgSchemaUrl } from './postgres.js';

const secret = 'data-info-test-secret';
export const zone = 'lab';
export const ticketBaseUrl = 'https://files.example.org/tickets';

export interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | number | undefined>;
  rawPayload: Buffer;
  json: () => any;
}

/**
 * A real backend host serving only the data-info service over a fresh store (SQLite in a temp
 * folder or a private PostgreSQL schema) and a temp DATA_STORE_DIR. `data` is a second DataStore
 * over the same database and bytes, for arranging objects and inspecting the catalog directly.
 */
export interface DataInfoHost {
  engine: string;
  host: FastifyInstance;
  store: Store;
  data: DataStore;
  dir: string;
  call(method: string, url: string, options?: { body?: unknown; user?: string; headers?: Record<string, string> }): Promise<Answer>;
  /** A file with `content` at `path` owned by `owner` (whose home is prepared), bytes included. */
  file(owner: string, path: string, content?: string): Promise<DataObject>;
  folder(owner: string, path: string): Promise<DataObject>;
  /** A DataStore over the same database and bytes whose clock is `now`. */
  withClock(now: () => number): DataStore;
  close(): Promise<void>;
}

export const home = (user: string) => `/${zone}/home/${user}`;
export const trash = (user: string) => `/${zone}/trash/home/${user}`;

async function start(engine: string, store: Store, cleanup: () => Promise<void>, dir: string): Promise<DataInfoHost> {
  const config = loadConfig({ DATA_ZONE: zone, DATA_STORE_DIR: dir, TICKET_BASE_URL: ticketBaseUrl, GATEWAY_DATA_DIR: dir });
  const host = await buildBackendHost({
    names: ['data-info'],
    context: { store, config },
    secret,
    logger: pino({ level: 'silent' }),
    bodyLimitBytes: 1024 * 1024,
    logRequests: false,
  });
  const withClock = (now: () => number) => new DataStore(store.db, { ...config.dataStore, now });
  const data = withClock(Date.now);
  await data.init();
  return {
    engine,
    host,
    store,
    data,
    dir,
    withClock,
    call: async (method, url, options = {}) => {
      const user = options.user === undefined ? '' : `${url.includes('?') ? '&' : '?'}user=${encodeURIComponent(options.user)}`;
      const hasBody = options.body !== undefined;
      const response = await host.inject({
        method: method as 'GET',
        url: `/data-info${url}${user}`,
        headers: { [backendSecretHeader]: secret, ...(hasBody ? { 'content-type': 'application/json' } : {}), ...options.headers },
        ...(hasBody ? { payload: JSON.stringify(options.body) } : {}),
      });
      return { status: response.statusCode, body: response.body, headers: response.headers, rawPayload: response.rawPayload, json: () => response.json() };
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
    close: async () => {
      await host.close();
      await store.close();
      await cleanup();
    },
  };
}

/** The engines to run a suite on: SQLite always, PostgreSQL when DATABASE_URL is set (required in CI). */
export const engines: { name: string; open: () => Promise<DataInfoHost | undefined> }[] = [
  {
    name: 'SQLite',
    open: async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'data-info-'));
      return start('SQLite', await openStore({ dataDir: dir }), async () => rmSync(dir, { recursive: true, force: true }), dir);
    },
  },
  {
    name: 'PostgreSQL',
    open: async () => {
      const databaseUrl = requiredInCi('DATABASE_URL');
      if (!databaseUrl) return undefined;
      const { url, drop } = await pgSchemaUrl(databaseUrl);
      const dir = mkdtempSync(path.join(tmpdir(), 'data-info-pg-'));
      const store = await openStore({ databaseUrl: url, dataDir: dir });
      return start('PostgreSQL', store, async () => {
        await drop();
        rmSync(dir, { recursive: true, force: true });
      }, dir);
    },
  },
];

/** Reads an object's bytes through the BlobStore. */
export async function blobText(data: DataStore, id: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of data.blobs.read(id)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

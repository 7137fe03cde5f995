// The data-info service alone on a real backend host (backend-host.ts), for the data-info tests,
// with direct access to the catalog and the bytes.
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { ObjectIndex, DataObject } from '../../src/backends/data-info/object-index.ts';
import type { EmbeddedBackendName } from '../../src/common/backend-names.ts';
import type { Permission } from '../../src/common/data-stat.ts';
import { DataStore } from '../../src/backends/data-info/store.ts';
import { hostEngines, withUser, type BackendHost, type HttpAnswer } from './backend-host.ts';

export const zone = 'lab';
export const ticketBaseUrl = 'https://files.example.org/tickets';
export const home = (user: string) => `/${zone}/home/${user}`;
export const trash = (user: string) => `/${zone}/trash/home/${user}`;

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
 * The data-info service over a fresh store and a fresh DATA_STORE_DIR. `data` is a second
 * DataStore over the same database and bytes, for arranging objects and inspecting the catalog
 * directly.
 */
export interface DataInfoHost extends BackendHost {
  data: DataStore;
  catalog: ObjectIndex;
  /** DATA_STORE_DIR: `objects/` and `tmp/` live here. */
  blobDir: string;
  /** `url` is below `/data-info`; `user` is added as the `user` parameter when given. */
  send(method: string, url: string, user?: string, options?: SendOptions): Promise<HttpAnswer>;
  /** `send` for JSON calls: `body` is sent as JSON. */
  call(
    method: string,
    url: string,
    options?: { body?: unknown; user?: string; headers?: Record<string, string> },
  ): Promise<Answer>;
  /** A file with `content` at `path` owned by `owner` (whose home is prepared), bytes included. */
  file(owner: string, path: string, content?: string): Promise<DataObject>;
  folder(owner: string, path: string): Promise<DataObject>;
  grant(path: string, user: string, permission: Permission): Promise<void>;
  object(path: string): Promise<DataObject | undefined>;
  /** A DataStore over the same database and bytes whose clock is `now`. */
  withClock(now: () => number): DataStore;
  /** Every blob file under objects/ and every file under tmp/. */
  blobFiles(): { objects: string[]; tmp: string[] };
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

async function dataInfoHost(base: BackendHost): Promise<DataInfoHost> {
  const { store, config } = base;
  const blobDir = config.dataStore.dir;
  const withClock = (now: () => number) => new DataStore(store.db, { ...config.dataStore, now });
  const data = withClock(Date.now);
  await data.init();

  const send: DataInfoHost['send'] = (method, url, user, options = {}) =>
    base.request(method, withUser(`/data-info${url}`, user), {
      headers: {
        ...(options.json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      body: options.json !== undefined ? JSON.stringify(options.json) : options.body,
    });

  return {
    ...base,
    data,
    catalog: data.catalog,
    blobDir,
    send,
    withClock,
    call: async (method, url, options = {}) => {
      const answer = await send(method, url, options.user, {
        json: options.body,
        headers: options.headers,
      });
      return { ...answer, body: answer.text };
    },
    file: async (owner, filePath, content = `content of ${filePath}`) => {
      await data.caller(owner);
      const id = randomUUID();
      const written = await data.blobs.write(id, content);
      return data.catalog.create({
        id,
        path: filePath,
        type: 'file',
        owner,
        size: written.size,
        md5: written.md5,
        contentType: 'text/plain',
      });
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
    blobFiles: () => ({
      objects: listFiles(path.join(blobDir, 'objects')),
      tmp: listFiles(path.join(blobDir, 'tmp')),
    }),
  };
}

/** The engines to run a suite on: SQLite always, PostgreSQL when DATABASE_URL is set (required in CI). */
export const engines: {
  name: string;
  /** `alongside`: more services on the same host and store (the search service, metadata). */
  open: (
    maxUploadBytes?: number,
    alongside?: EmbeddedBackendName[],
  ) => Promise<DataInfoHost | undefined>;
}[] = hostEngines.map((engine) => ({
  name: engine.name,
  open: async (maxUploadBytes = 1024 * 1024, alongside = []) => {
    const base = await engine.open({
      names: ['data-info', ...alongside],
      env: (dir) => ({
        DATA_ZONE: zone,
        DATA_STORE_DIR: path.join(dir, 'blobs'),
        TICKET_BASE_URL: ticketBaseUrl,
        MAX_UPLOAD_BYTES: String(maxUploadBytes),
      }),
    });
    return base && dataInfoHost(base);
  },
}));

/** Reads an object's bytes through the BlobStore. */
export async function blobText(data: DataStore, id: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of data.blobs.read(id)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

/** A multipart/form-data body with one file part (the filename's UTF-8 bytes sent raw, as browsers do). */
export function multipartBody(
  filename: string,
  content: string | Buffer,
  field = 'file',
): { body: Buffer; contentType: string } {
  const boundary = `----test${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    'utf8',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    body: Buffer.concat([head, Buffer.from(content), tail]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

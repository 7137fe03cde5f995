// The metadata service alone on a real backend host, for the metadata tests: real HTTP on a
// loopback port and a fresh store on each engine (SQLite in a temp folder, a private PostgreSQL schema).
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { backendSecretHeader, buildBackendHost } from '../../src/backends/host.js';
import { loadConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/database.js';
import { parseAnswer, withUser, type HttpAnswer } from './data-info-host.js';
import { requiredInCi } from './gateway.js';
import { pgSchemaUrl } from './postgres.js';

const secret = 'metadata-test-secret';

export interface MetadataHost {
  engine: string;
  host: FastifyInstance;
  store: Store;
  /** `url` is below `/metadata`; `user` is added as the `user` parameter when given; `body` is sent as JSON. */
  call(method: string, url: string, options?: { user?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<HttpAnswer>;
  close(): Promise<void>;
}

async function start(engine: string, store: Store, dir: string, cleanup: () => Promise<void>): Promise<MetadataHost> {
  const config = loadConfig({ GATEWAY_DATA_DIR: dir });
  const host = await buildBackendHost({
    names: ['metadata'],
    context: { store, config },
    secret,
    logger: pino({ level: 'silent' }),
    bodyLimitBytes: 1024 * 1024,
    logRequests: false,
  });
  await host.listen({ host: '127.0.0.1', port: 0 });
  const port = (host.server.address() as AddressInfo).port;

  const call: MetadataHost['call'] = (method, url, options = {}) =>
    new Promise((resolve, reject) => {
      const body = options.raw ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
      const headers: Record<string, string> = {
        [backendSecretHeader]: secret,
        ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}),
        ...options.headers,
      };
      const request = httpRequest({ host: '127.0.0.1', port, method, path: withUser(`/metadata${url}`, options.user), headers }, (response) => {
        const parts: Buffer[] = [];
        response.on('data', (chunk: Buffer) => parts.push(chunk));
        response.on('end', () => resolve(parseAnswer(response.statusCode ?? 0, response.headers, Buffer.concat(parts))));
        response.on('error', reject);
      });
      request.on('error', reject);
      request.end(body);
    });

  return {
    engine,
    host,
    store,
    call,
    close: async () => {
      await host.close();
      await store.close();
      await cleanup();
    },
  };
}

/** SQLite always; PostgreSQL when DATABASE_URL is set (required in CI). */
export const metadataEngines: { name: string; open: () => Promise<MetadataHost | undefined> }[] = [
  {
    name: 'SQLite',
    open: async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'metadata-'));
      return start('SQLite', await openStore({ dataDir: dir }), dir, async () => rmSync(dir, { recursive: true, force: true }));
    },
  },
  {
    name: 'PostgreSQL',
    open: async () => {
      const databaseUrl = requiredInCi('DATABASE_URL');
      if (!databaseUrl) return undefined;
      const { url, drop } = await pgSchemaUrl(databaseUrl);
      const dir = mkdtempSync(path.join(tmpdir(), 'metadata-pg-'));
      const store = await openStore({ databaseUrl: url, dataDir: dir });
      return start('PostgreSQL', store, dir, async () => {
        await drop();
        rmSync(dir, { recursive: true, force: true });
      });
    },
  },
];

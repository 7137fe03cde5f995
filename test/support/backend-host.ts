// Embedded backend services alone on a real backend host, for the backend tests (data-info,
// metadata): real HTTP on a loopback port and a fresh store on each engine (SQLite in a temp
// folder, a PostgreSQL database of its own), copied from the migrated templates. data-info-host.ts and metadata-host.ts add each service's
// own calls and fixtures on top.
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { EmbeddedBackendName } from '../../src/common/backend-names.ts';
import { backendSecretHeader, buildBackendHost } from '../../src/embedded/host.ts';
import { loadConfig, type GatewayConfig } from '../../src/config/index.ts';
import type { UserNotification } from '../../src/common/notifications.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { requiredInCi } from './gateway.ts';
import { pgDatabaseUrl } from './postgres.ts';
import { copySqliteTemplate } from './sqlite-template.ts';

/** The shared secret the host requires of every caller. */
export const secret = 'backend-test-secret';

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  bytes: Buffer;
  text: string;
  json: () => any;
}

export function parseAnswer(
  status: number,
  headers: IncomingHttpHeaders,
  bytes: Buffer,
): HttpAnswer {
  const text = bytes.toString('utf8');
  return { status, headers, bytes, text, json: () => JSON.parse(text) };
}

/** `url` with the `user` query parameter added, when there is a user. */
export function withUser(url: string, user: string | undefined): string {
  if (user === undefined) return url;
  return `${url}${url.includes('?') ? '&' : '?'}user=${encodeURIComponent(user)}`;
}

export interface BackendHost {
  engine: string;
  host: FastifyInstance;
  store: Store;
  config: GatewayConfig;
  /** The temp folder the store (on SQLite) and any service files live in. */
  dir: string;
  port: number;
  /** Every notification the services sent, in order. */
  notifications: UserNotification[];
  /**
   * Stops the services (their onClose hooks run, as when a gateway stops) and starts them again on
   * the same store: a restarted gateway. Answers the new host, which `close` ends as this one would.
   */
  reopen(): Promise<BackendHost>;
  /**
   * Another gateway on the same database, running beside this one: the same services on a store
   * of their own (own connections, own process state). `close` ends it alone.
   */
  sibling(): Promise<BackendHost>;
  /** One request to `url` (the service's prefix included) with the secret header; Content-Length is set for a body. */
  request(
    method: string,
    url: string,
    options?: { headers?: Record<string, string>; body?: string | Buffer },
  ): Promise<HttpAnswer>;
  close(): Promise<void>;
}

export interface HostOptions {
  names: EmbeddedBackendName[];
  /** Configuration for the services, given the temp folder (GATEWAY_DATA_DIR is always that folder). */
  env?: (dir: string) => Record<string, string>;
  /** The services' clock (default Date.now). */
  now?: () => number;
  /** When given, the services' log lines at warn and above are pushed here (else they are silent). */
  logLines?: Record<string, unknown>[];
}

async function start(
  engine: string,
  store: Store,
  dir: string,
  cleanup: () => Promise<void>,
  options: HostOptions,
  openAgain: () => Promise<Store>,
): Promise<BackendHost> {
  const config = loadConfig({ GATEWAY_DATA_DIR: dir, ...options.env?.(dir) });
  const notifications: UserNotification[] = [];
  let request: BackendHost['request'] | undefined;
  // The services' notifications are kept for the test; a hosted agent records them as well.
  const notify = async (notification: UserNotification) => {
    notifications.push(notification);
    if (!options.names.includes('notification-agent') || !request) return true;
    const answer = await request('POST', '/notification-agent/notification', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(notification),
    });
    return answer.status === 200;
  };
  const host = await buildBackendHost({
    names: options.names,
    context: { store, config, notify, ...(options.now ? { now: options.now } : {}) },
    secret,
    logger: options.logLines
      ? pino(
          { level: 'warn' },
          { write: (line: string) => void options.logLines!.push(JSON.parse(line)) },
        )
      : pino({ level: 'silent' }),
    bodyLimitBytes: 1024 * 1024,
    logRequests: false,
  });
  await host.listen({ host: '127.0.0.1', port: 0 });
  const port = (host.server.address() as AddressInfo).port;

  const send: BackendHost['request'] = (method, url, { headers = {}, body } = {}) =>
    new Promise((resolve, reject) => {
      const sent: Record<string, string> = { [backendSecretHeader]: secret, ...headers };
      if (body !== undefined) sent['content-length'] = String(Buffer.byteLength(body));
      const outgoing = httpRequest(
        { host: '127.0.0.1', port, method, path: url, headers: sent },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve(parseAnswer(response.statusCode ?? 0, response.headers, Buffer.concat(chunks))),
          );
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  request = send;

  return {
    engine,
    host,
    store,
    config,
    dir,
    port,
    request: send,
    notifications,
    reopen: async () => {
      await host.close();
      return start(engine, store, dir, cleanup, options, openAgain);
    },
    sibling: async () => {
      const own = await openAgain();
      return start(engine, own, dir, async () => {}, options, openAgain);
    },
    close: async () => {
      await host.close();
      await store.close();
      await cleanup();
    },
  };
}

/** The engines to run a suite on: SQLite always, PostgreSQL when DATABASE_URL is set (required in CI). */
export const hostEngines: {
  name: string;
  open: (options: HostOptions) => Promise<BackendHost | undefined>;
}[] = [
  {
    name: 'SQLite',
    open: async (options) => {
      const dir = mkdtempSync(path.join(tmpdir(), `${options.names.join('-')}-`));
      await copySqliteTemplate(dir);
      return start(
        'SQLite',
        await openStore({ dataDir: dir }),
        dir,
        async () => rmSync(dir, { recursive: true, force: true }),
        options,
        () => openStore({ dataDir: dir }),
      );
    },
  },
  {
    name: 'PostgreSQL',
    open: async (options) => {
      const databaseUrl = requiredInCi('DATABASE_URL');
      if (!databaseUrl) return undefined;
      const { url, drop } = await pgDatabaseUrl(databaseUrl);
      const dir = mkdtempSync(path.join(tmpdir(), `${options.names.join('-')}-pg-`));
      const store = await openStore({ databaseUrl: url, dataDir: dir });
      return start(
        'PostgreSQL',
        store,
        dir,
        async () => {
          await drop();
          rmSync(dir, { recursive: true, force: true });
        },
        options,
        () => openStore({ databaseUrl: url, dataDir: dir }),
      );
    },
  },
];

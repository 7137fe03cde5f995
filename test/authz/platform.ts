// The platform the authorization matrix is walked on: one gateway with every embedded backend on an
// engine, called in-process (app.inject), and a token for each actor of the matrix: the owner of
// every resource, the grantees of its shares, a member of a team and of a collaborator list it
// is shared with, a member of a community, a stranger, an administrator and a service account.
// Beside it, a stand-in OAuth provider for the third-party API and a silent loopback server.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { noRateLimits, startGateway, type RunningGateway } from '../support/gateway.ts';
import { startOAuthServer, type OAuthServer } from '../support/oauth-server.ts';
import { engineDatabase, type engines } from '../support/postgres.ts';
import { copySqliteTemplate } from '../support/sqlite-template.ts';
import { signEmbeddedToken } from '../../src/http/keys.ts';
import { bearer } from '../support/tokens.ts';

/** Who calls: each is a user of that name, but `anonymous` (no credentials). */
export const actors = [
  'owner',
  'reader',
  'writer',
  'coowner',
  'teammate',
  'listmate',
  'commoner',
  'stranger',
  'admin',
  'service',
  'anonymous',
] as const;
export type Actor = (typeof actors)[number];
/** The actors who are users of the platform (all but the service account and anonymous). */
export const users = actors.filter(
  (actor): actor is Exclude<Actor, 'service' | 'anonymous'> =>
    actor !== 'service' && actor !== 'anonymous',
);

/**
 * A user who is no actor: the kinds share with them too, so that a row may unshare someone without
 * taking an actor's grant away.
 */
export const bystander = 'bystander';

let made = 0;
/** A name no other resource's answer contains. */
export const markerOf = (kind: string) => `authz-${kind}-${++made}`;

/** The two aliases of a `[/secured]` route. */
export const both = (method: string, path: string) => [
  `${method} ${path}`,
  `${method} /secured${path}`,
];

/** A multipart form of one file, as the web UI uploads it. */
export const uploadForm = (name: string, content: string) => {
  const form = new FormData();
  form.append('file', new Blob([content]), name);
  return form;
};

/** An actor's home folder (the platform runs in the default zone, `platform`). */
export const homeOf = (actor: string) => `/platform/home/${actor}`;

/** The realm roles of the service account: every service role of routes.md §25. */
const serviceRoles = ['ldap-reader', 'emailer', 'subscription-updater'];

/** A request of the matrix: what `app.inject` sends. */
export interface Call {
  method: string;
  url: string;
  json?: unknown;
  /** A multipart form (uploads), sent as a browser sends it. */
  form?: FormData;
  headers?: Record<string, string>;
  /** The client's address (default loopback, as for a test's own calls). */
  from?: string;
}

export interface Answer {
  status: number;
  text: string;
  body: any;
}

export interface Platform {
  engine: (typeof engines)[number];
  running: RunningGateway;
  zone: string;
  home(actor: Actor): string;
  call(actor: Actor, call: Call): Promise<Answer>;
  /** Calls made so far, fixture steps and read-backs included. */
  readonly calls: number;
  /**
   * A loopback address that accepts connections and never answers: a URL import of it runs until
   * it is stopped (a running analysis without a process of its own).
   */
  silentUrl: string;
  /** Lets the third-party API's OAuth provider (a stand-in) exchange `code` once. */
  grantOAuthCode(code: string): void;
  /** Like call, but throws unless the answer is 2xx (fixture steps), answering the body. */
  ok(actor: Actor, call: Call): Promise<any>;
  close(): Promise<void>;
}

async function bodyOf(call: Call): Promise<{ payload?: Buffer | string; type?: string }> {
  if (call.form) {
    const request = new Request('http://multipart.invalid/', { method: 'POST', body: call.form });
    return {
      payload: Buffer.from(await request.arrayBuffer()),
      type: request.headers.get('content-type')!,
    };
  }
  if (call.json !== undefined)
    return { payload: JSON.stringify(call.json), type: 'application/json' };
  return {};
}

/**
 * Starts the platform on `engine` (PostgreSQL: a pooled database of its own). Its data folder
 * (the SQLite database, the data store's bytes) is in memory where the machine has /dev/shm: the
 * matrix makes thousands of small writes, each synced to disk elsewhere, and what it checks is
 * who may do what, not what survives a crash.
 */
export async function startPlatform(
  engine: (typeof engines)[number],
  env: Record<string, string> = {},
): Promise<Platform> {
  const database = await engineDatabase(engine);
  const dataDir = mkdtempSync(
    path.join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'gateway-authz-'),
  );
  if (engine === 'sqlite') await copySqliteTemplate(dataDir);
  const oauth: OAuthServer = await startOAuthServer();
  const held = new Set<Socket>();
  const silent = createServer((socket) => {
    held.add(socket);
    socket.on('close', () => held.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const closeSilent = () =>
    new Promise<void>((resolve) => {
      for (const socket of held) socket.destroy();
      silent.close(() => resolve());
    });
  let running: RunningGateway;
  try {
    // The embedded identity provider is on (its routes are in /openapi.json): tokens are signed
    // with its key, as `npm run token` signs them.
    running = await startGateway({
      ...noRateLimits,
      GATEWAY_DATA_DIR: dataDir,
      EXTAPI_OAUTH_AUTHORIZE_URL: 'https://provider.invalid/authorize',
      EXTAPI_OAUTH_TOKEN_URL: oauth.tokenUrl,
      EXTAPI_OAUTH_CLIENT_ID: 'authz',
      EXTAPI_OAUTH_CLIENT_SECRET: 'authz-secret',
      ...database.env,
      ...env,
    });
  } catch (error) {
    await closeSilent();
    await oauth.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const { config } = running.gateway;
  const sign = (username: string, roles: string[] = []) =>
    signEmbeddedToken(
      config.dataDir,
      { username, email: `${username}@example.org`, familyName: 'Tester', roles, ttlSeconds: 3600 },
      config.keys.authSigningKey,
    );
  const tokens = new Map<Actor, string>();
  for (const actor of users)
    tokens.set(actor, await sign(actor, actor === 'admin' ? config.auth.adminRoles : []));
  tokens.set('service', await sign('service-account-authz', serviceRoles));
  tokens.set(bystander as Actor, await sign(bystander));
  const zone = running.gateway.config.dataStore.zone;

  const call = async (actor: Actor, request: Call): Promise<Answer> => {
    counted.calls++;
    const { payload, type } = await bodyOf(request);
    const token = tokens.get(actor);
    const response = await running.gateway.app.inject({
      method: request.method as 'GET',
      url: request.url,
      headers: {
        ...(token ? bearer(token) : {}),
        ...(type ? { 'content-type': type } : {}),
        ...request.headers,
      },
      ...(payload === undefined ? {} : { payload }),
      ...(request.from ? { remoteAddress: request.from } : {}),
    });
    let body: unknown;
    try {
      body = response.body ? JSON.parse(response.body) : undefined;
    } catch {
      body = undefined;
    }
    return { status: response.statusCode, text: response.body, body };
  };

  const counted = { calls: 0 };
  return {
    engine,
    running,
    get calls() {
      return counted.calls;
    },
    zone,
    home: homeOf,
    call,
    ok: async (actor, request) => {
      const answer = await call(actor, request);
      if (answer.status < 200 || answer.status > 299)
        throw new Error(
          `fixture step ${request.method} ${request.url} as ${actor}: ${answer.status} ${answer.text.slice(0, 300)}`,
        );
      return answer.body;
    },
    silentUrl: `http://127.0.0.1:${(silent.address() as { port: number }).port}`,
    grantOAuthCode: (code) => oauth.grantCode(code),
    close: async () => {
      // The imports it holds fail at once, so no job is left running when the gateway closes.
      await closeSilent();
      await running.close();
      await oauth.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * What `check` answers once it answers something, asked every 100 ms for at most 20 s (a session
 * starting, a job ending; a loaded machine is slow to): fixture steps wait for what they observe.
 */
export async function until<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

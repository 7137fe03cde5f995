// A gateway with the embedded backends (data-info and metadata included) and clients for named
// users, for the filesystem, sharing, traversal and metadata route tests: every call is real HTTP
// through the public listener. metadata-gateway.ts adds an administrator.
import { Readable } from 'node:stream';
import { noRateLimits, requiredInCi, startGateway, type RunningGateway } from './gateway.ts';
import { pgDatabaseUrl } from './postgres.ts';
import type { JWTPayload } from 'jose';
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
  body: any;
  text: string;
  headers: Headers;
}

export interface CallOptions {
  json?: unknown;
  /** Sent as is (with content-type application/json unless headers say otherwise). */
  raw?: string;
  headers?: Record<string, string>;
}

export interface DataStoreGateway {
  running: RunningGateway;
  url: string;
  zone: string;
  home(user: string): string;
  trash(user: string): string;
  community: string;
  /** One request; `user` null sends no credentials. */
  call(user: string | null, method: string, route: string, options?: CallOptions): Promise<Answer>;
  /** The credentials `call` sends as `user`, for clients of one's own (event streams). */
  authHeaders(user: string): Promise<Record<string, string>>;
  /** Like call, but fails the test unless the answer is 200, and answers the body. */
  ok(user: string | null, method: string, route: string, options?: CallOptions): Promise<any>;
  /** Puts a file with `content` at `<folder>/<name>` as `user`, straight into data-info (fixture setup). */
  upload(user: string, folder: string, name: string, content: string | Buffer): Promise<any>;
  /** Makes a folder as `user`, straight in data-info (fixture setup), answering its stat. */
  folder(user: string, path: string): Promise<any>;
  /** Uploads through the gateway (`/secured/fileio/upload`, multipart part `file`), as the web UI does. */
  uploadThroughGateway(
    user: string,
    folder: string,
    name: string,
    content: string,
  ): Promise<Answer>;
  /** `/secured/filesystem/stat` of one path (undefined when the caller gets an error). */
  stat(user: string, path: string): Promise<any>;
  /** How many calls the gateway has made to `backend` so far (its backend-duration histogram count). */
  backendCalls(backend: string): Promise<number>;
  close(): Promise<void>;
}

type DataInfoCall = Parameters<RunningGateway['gateway']['forwarder']['call']>[1];

const q = encodeURIComponent;
export { q };

/** The answer's text, and its JSON when it is JSON. */
async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text, headers: response.headers };
}

/**
 * Starts the gateway with all embedded backends. `engine: 'postgres'` runs it on a private
 * PostgreSQL database, migrated (skipped, i.e. undefined, when DATABASE_URL is unset outside CI).
 */
export interface GatewayOptions {
  engine?: 'sqlite' | 'postgres';
  env?: Record<string, string>;
  /** Extra token claims for a user (roles, say). */
  claims?: (user: string) => JWTPayload;
}

export async function startDataStoreGateway(
  options: GatewayOptions = {},
): Promise<DataStoreGateway | undefined> {
  let database: Awaited<ReturnType<typeof pgDatabaseUrl>> | undefined;
  if (options.engine === 'postgres') {
    const databaseUrl = requiredInCi('DATABASE_URL');
    if (!databaseUrl) return undefined;
    database = await pgDatabaseUrl(databaseUrl);
  }
  const key = await createSigningKey('ES256', 'data-store-key');
  const jwks: JwksServer = await startJwksServer([key]);
  const zone = options.env?.DATA_ZONE ?? 'platform';
  let running: RunningGateway;
  try {
    running = await startGateway({
      ...noRateLimits,
      AUTH_JWKS_URL: jwks.url,
      ...(database ? { DATABASE_URL: database.url } : {}),
      ...options.env,
    });
  } catch (error) {
    // A gateway that fails to start must not leave the JWKS server holding the test process open.
    await jwks.close();
    await database?.drop();
    throw error;
  }
  const tokens = new Map<string, string>();
  const tokenFor = async (user: string) => {
    if (!tokens.has(user))
      tokens.set(user, await signToken(key, userClaims(user, options.claims?.(user))));
    return tokens.get(user)!;
  };

  const call = async (
    user: string | null,
    method: string,
    route: string,
    callOptions: CallOptions = {},
  ): Promise<Answer> => {
    const body =
      callOptions.raw ??
      (callOptions.json === undefined ? undefined : JSON.stringify(callOptions.json));
    const response = await fetch(running.url + route, {
      method,
      headers: {
        ...(user ? bearer(await tokenFor(user)) : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...callOptions.headers,
      },
      body,
    });
    return answerOf(response);
  };

  const ok = async (
    user: string | null,
    method: string,
    route: string,
    callOptions?: CallOptions,
  ) => {
    const answer = await call(user, method, route, callOptions);
    if (answer.status !== 200)
      throw new Error(`${method} ${route} as ${user}: ${answer.status} ${answer.text}`);
    return answer.body;
  };

  /** One data-info call as `user` (fixture setup), answering the JSON body; anything but 200 fails the test. */
  const dataInfo = async (
    user: string,
    request: Omit<DataInfoCall, 'identity' | 'identityStyle'>,
  ) => {
    const response = await running.gateway.forwarder.call('data-info', {
      ...request,
      identity: { username: user, roles: [], groups: [] },
      identityStyle: 'user',
    });
    const text = await response.body.text();
    if (response.statusCode !== 200)
      throw new Error(
        `data-info ${request.method} ${request.path} as ${user}: ${response.statusCode} ${text}`,
      );
    return JSON.parse(text);
  };

  const upload = async (user: string, folder: string, name: string, content: string | Buffer) => {
    const raw = {
      content: typeof content === 'string' ? content : Readable.from([content]),
      contentType: 'application/octet-stream',
    };
    return (
      await dataInfo(user, {
        method: 'POST',
        path: '/data',
        query: { dest: folder, filename: name },
        raw,
      })
    ).file;
  };

  const folder = async (user: string, path: string) => {
    await dataInfo(user, { method: 'POST', path: '/data/directories', json: { paths: [path] } });
    return (
      await dataInfo(user, { method: 'POST', path: '/stat-gatherer', json: { paths: [path] } })
    ).paths[path];
  };

  const uploadThroughGateway = async (
    user: string,
    folder: string,
    name: string,
    content: string,
  ): Promise<Answer> => {
    const form = new FormData();
    form.append('file', new Blob([content]), name);
    const response = await fetch(`${running.url}/secured/fileio/upload?dest=${q(folder)}`, {
      method: 'POST',
      headers: bearer(await tokenFor(user)),
      body: form,
    });
    return answerOf(response);
  };

  const stat = async (user: string, path: string) => {
    const answer = await call(user, 'POST', '/secured/filesystem/stat', {
      json: { paths: [path] },
    });
    return answer.status === 200 ? answer.body.paths[path] : undefined;
  };

  return {
    running,
    url: running.url,
    zone,
    home: (user) => `/${zone}/home/${user}`,
    trash: (user) => `/${zone}/trash/home/${user}`,
    community: `/${zone}/home/shared`,
    call,
    ok,
    authHeaders: async (user) => bearer(await tokenFor(user)),
    upload,
    folder,
    uploadThroughGateway,
    stat,
    backendCalls: async (backend) => {
      const metric = await running.gateway.metrics.backendDuration.get();
      return metric.values
        .filter(
          (value) =>
            value.metricName === 'gateway_backend_request_duration_seconds_count' &&
            value.labels.backend === backend,
        )
        .reduce((sum, value) => sum + value.value, 0);
    },
    close: async () => {
      await running.close();
      await jwks.close();
      await database?.drop();
    },
  };
}

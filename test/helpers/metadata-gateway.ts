// A gateway with every embedded backend (metadata and data-info included), optionally a stand-in
// apps service, and clients for named users (`root` is an administrator), for the comment and
// favourite tests: every call is real HTTP through the public listener.
import { Readable } from 'node:stream';
import { noRateLimits, requiredInCi, startGateway, type RunningGateway } from './gateway.js';
import { pgSchemaUrl } from './postgres.js';
import { bearer, createSigningKey, signToken, startJwksServer, userClaims } from './tokens.js';

export interface Answer {
  status: number;
  body: any;
  text: string;
}

export interface CallOptions {
  json?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

export interface MetadataGateway {
  running: RunningGateway;
  zone: string;
  home(user: string): string;
  call(user: string | null, method: string, route: string, options?: CallOptions): Promise<Answer>;
  /** Puts a file into data-info as `user` (fixture setup), answering its stat. */
  upload(user: string, folder: string, name: string, content: string): Promise<any>;
  /** Makes a folder as `user` (fixture setup), answering its stat. */
  folder(user: string, path: string): Promise<any>;
  /** How many calls the gateway has made to `backend` so far (its backend-duration histogram count). */
  backendCalls(backend: string): Promise<number>;
  close(): Promise<void>;
}

export const admin = 'root';

/** Starts the gateway; `engine: 'postgres'` answers undefined when DATABASE_URL is unset outside CI. */
export async function startMetadataGateway(options: { engine?: 'sqlite' | 'postgres'; env?: Record<string, string> } = {}): Promise<MetadataGateway | undefined> {
  let schema: Awaited<ReturnType<typeof pgSchemaUrl>> | undefined;
  if (options.engine === 'postgres') {
    const databaseUrl = requiredInCi('DATABASE_URL');
    if (!databaseUrl) return undefined;
    schema = await pgSchemaUrl(databaseUrl);
  }
  const key = await createSigningKey('ES256', 'metadata-key');
  const jwks = await startJwksServer([key]);
  const running = await startGateway({ ...noRateLimits, AUTH_JWKS_URL: jwks.url, ...(schema ? { DATABASE_URL: schema.url } : {}), ...options.env });
  const zone = 'platform';
  const tokens = new Map<string, string>();
  const tokenFor = async (user: string) => {
    if (!tokens.has(user)) tokens.set(user, await signToken(key, userClaims(user, user === admin ? { realm_access: { roles: ['de-admin'] } } : {})));
    return tokens.get(user)!;
  };

  const call = async (user: string | null, method: string, route: string, callOptions: CallOptions = {}): Promise<Answer> => {
    const body = callOptions.raw ?? (callOptions.json === undefined ? undefined : JSON.stringify(callOptions.json));
    const response = await fetch(running.url + route, {
      method,
      headers: { ...(user ? bearer(await tokenFor(user)) : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...callOptions.headers },
      body,
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed, text };
  };

  const dataInfo = async (user: string, call: Parameters<RunningGateway['gateway']['forwarder']['call']>[1]) => {
    const response = await running.gateway.forwarder.call('data-info', call);
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`data-info ${call.method} ${call.path} as ${user}: ${response.statusCode} ${text}`);
    return JSON.parse(text);
  };
  const identity = (user: string) => ({ username: user, roles: [], groups: [] });

  return {
    running,
    zone,
    home: (user) => `/${zone}/home/${user}`,
    call,
    upload: async (user, folder, name, content) =>
      (
        await dataInfo(user, {
          method: 'POST',
          path: '/data',
          identity: identity(user),
          identityStyle: 'user',
          query: { dest: folder, filename: name },
          raw: { content: Readable.from([Buffer.from(content)]), contentType: 'application/octet-stream' },
        })
      ).file,
    folder: async (user, path) => {
      await dataInfo(user, { method: 'POST', path: '/data/directories', identity: identity(user), identityStyle: 'user', json: { paths: [path] } });
      return (await dataInfo(user, { method: 'POST', path: '/stat-gatherer', identity: identity(user), identityStyle: 'user', json: { paths: [path] } })).paths[path];
    },
    backendCalls: async (backend) => {
      const metric = await running.gateway.metrics.backendDuration.get();
      return metric.values
        .filter((value) => value.metricName === 'gateway_backend_request_duration_seconds_count' && value.labels.backend === backend)
        .reduce((sum, value) => sum + value.value, 0);
    },
    close: async () => {
      await running.close();
      await jwks.close();
      await schema?.drop();
    },
  };
}

// The backend services: where each is (a URL, or embedded), how long the gateway waits for it and
// the secret it sends; which are embedded, the secret a standalone backend process requires; and
// the settings of the services that have their own (permanent identifiers, genomes, the QMS).
import {
  backendEnvPrefix,
  backendNames,
  embeddedBackendNames,
  type BackendName,
} from '../common/backend-names.ts';
import { boolean, ConfigError, integer, list, secret, text, url, type Env } from './variables.ts';

export interface BackendSetting {
  /** Remote base URL; undefined means "use the embedded service". */
  url?: URL;
  timeoutMs: number;
  /** Sent as `X-Backend-Secret` to that URL: set it when the URL is one of our embedded backends run standalone. */
  secret?: string;
}

export interface BackendsSettings {
  backends: Record<BackendName, BackendSetting>;
  /**
   * Backends to run embedded (EMBEDDED_BACKENDS or `--backends`). A backend with a URL is never
   * embedded, and one without an embedded implementation yet is skipped with a warning.
   */
  embeddedBackends: BackendName[];
  /** The secret a standalone backend process (`--backends-only`) requires of gateways (BACKEND_SECRET). */
  backendSecret?: string;
}

/** The settings of the backend services that have their own. */
export interface ServiceSettings {
  /**
   * Minting permanent identifiers (routes.md §14 `/pidprovider`). With PIDPROVIDER_URL set
   * (`backends.pidprovider.url`), a DataCite-style REST provider mints them with these credentials;
   * without it, the gateway mints test identifiers under `prefix` itself.
   */
  pid: {
    /** PIDPROVIDER_USER: basic-auth user (e.g. a DataCite repository id). */
    user?: string;
    /** PIDPROVIDER_PASSWORD. */
    password?: string;
    /** PID_PREFIX: the DOI prefix identifiers are minted under (default the DataCite test prefix 10.5072). */
    prefix: string;
    /** PID_PUBLISHER: the DataCite `publisher` when the folder's metadata names none. */
    publisher: string;
    /** PID_TARGET_BASE_URL: an identifier resolves to `<base><folder path>`. */
    targetBaseUrl: string;
  };
  genomes: {
    /**
     * GENOME_BASE_URL (default `http://localhost:<PORT>/genomesvc/genomes`): the embedded genome
     * service answers a loaded genome's URL as `<base>?search=<genome id>`, the gateway's search for it.
     */
    baseUrl: string;
  };
  /** Subscriptions and usage, the QMS (docs/api/qms.md). */
  subscriptions: {
    /**
     * Refuse uploads and saves of a user whose data.size usage has reached their quota, and analysis
     * launches of one whose cpu.hours usage has, with ERR_QUOTA_EXCEEDED (SUBSCRIPTIONS_ENFORCE,
     * default false: usages are recorded either way).
     */
    enforce: boolean;
  };
}

export function backendsSettings(env: Env): BackendsSettings {
  const defaultTimeoutMs = integer(env, 'BACKEND_TIMEOUT_MS', 30_000, 100, 3_600_000);
  const backends = {} as Record<BackendName, BackendSetting>;
  for (const name of backendNames) {
    const prefix = backendEnvPrefix(name);
    backends[name] = {
      url: url(env, `${prefix}_URL`, ['http:', 'https:']),
      timeoutMs: integer(env, `${prefix}_TIMEOUT_MS`, defaultTimeoutMs, 100, 3_600_000),
      secret: secret(env, `${prefix}_SECRET`),
    };
  }
  return {
    backends,
    embeddedBackends: embeddedSelection(env, 'EMBEDDED_BACKENDS'),
    backendSecret: secret(env, 'BACKEND_SECRET'),
  };
}

export function serviceSettings(env: Env, port: number): ServiceSettings {
  return {
    pid: pidSettings(env, port),
    genomes: {
      baseUrl: (
        url(env, 'GENOME_BASE_URL', ['http:', 'https:'])?.toString() ??
        `http://localhost:${port}/genomesvc/genomes`
      ).replace(/\/+$/, ''),
    },
    subscriptions: { enforce: boolean(env, 'SUBSCRIPTIONS_ENFORCE', false) },
  };
}

/** `all` (every backend with an embedded implementation), `none`, or a comma list of backend names. */
function embeddedSelection(env: Env, name: string): BackendName[] {
  const raw = text(env, name)?.toLowerCase() ?? 'all';
  if (raw === 'all') return [...embeddedBackendNames];
  if (raw === 'none') return [];
  const chosen = list(env, name, []);
  for (const item of chosen) {
    if (!(backendNames as readonly string[]).includes(item)) {
      throw new ConfigError(
        name,
        `"${raw}" names ${item}, which is not a backend; use all, none or names from: ${backendNames.join(', ')}`,
      );
    }
  }
  return [...new Set(chosen)] as BackendName[];
}

/** PIDPROVIDER_USER / PIDPROVIDER_PASSWORD come as a pair; PID_PREFIX is a DOI prefix (`10.<digits>`). */
function pidSettings(env: Env, port: number): ServiceSettings['pid'] {
  const user = text(env, 'PIDPROVIDER_USER');
  const password = text(env, 'PIDPROVIDER_PASSWORD');
  if ((user === undefined) !== (password === undefined)) {
    throw new ConfigError(
      user === undefined ? 'PIDPROVIDER_USER' : 'PIDPROVIDER_PASSWORD',
      'must be set together with the other PID provider credential',
    );
  }
  const prefix = text(env, 'PID_PREFIX') ?? '10.5072';
  if (!/^10\.\d{4,9}(\.\d+)*$/.test(prefix))
    throw new ConfigError('PID_PREFIX', `must be a DOI prefix such as 10.5072, got "${prefix}"`);
  return {
    user,
    password,
    prefix,
    publisher: text(env, 'PID_PUBLISHER') ?? 'Platform Gateway',
    targetBaseUrl: (
      url(env, 'PID_TARGET_BASE_URL', ['http:', 'https:'])?.toString() ??
      `http://localhost:${port}/published`
    ).replace(/\/+$/, ''),
  };
}

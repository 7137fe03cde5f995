/**
 * The backend services the gateway knows. Each one is reached through a base URL
 * (`<NAME>_URL`, e.g. `DATA_INFO_URL`); when unset, the embedded implementation serves it,
 * and a backend with no embedded implementation answers 501 until a URL is configured.
 */
export const backendNames = [
  'apps',
  'analyses',
  'metadata',
  'data-info',
  'notification-agent',
  'user-info',
  'groups',
  'permissions',
  'requests',
  'qms',
  'subscriptions',
  'resource-usage',
  'data-usage',
  'dashboard',
  'interactive-apps',
  'email',
  'user-portal',
  'search',
  'genomesvc',
  'pidprovider',
  'async-tasks',
] as const;

export type BackendName = (typeof backendNames)[number];

/** Backends this project implements itself (`src/backends/<name>/`), run in-process unless given a URL. */
export const embeddedBackendNames = [
  'user-info',
  'groups',
  'data-info',
  'apps',
  'metadata',
  'notification-agent',
  'genomesvc',
  'analyses',
  'search',
  'email',
  'requests',
  'qms',
  'subscriptions',
  'resource-usage',
  'data-usage',
] as const satisfies readonly BackendName[];

export type EmbeddedBackendName = (typeof embeddedBackendNames)[number];

/**
 * Backends with no embedded service of their own, part of which an embedded service serves at the
 * same backend paths while their own URL is unset: the analyses service keeps the instant launches
 * of the interactive-apps service (VICE calls reach it too, and answer 501 there).
 */
export const embeddedStandIns: Partial<Record<BackendName, EmbeddedBackendName>> = {
  'interactive-apps': 'analyses',
};

export function isEmbeddedBackend(name: BackendName): name is EmbeddedBackendName {
  return (embeddedBackendNames as readonly string[]).includes(name);
}

/**
 * How the caller's identity travels to a backend (routes.md §1.4):
 * - `apps`: query `user`, `email`, `first-name`, `last-name`
 * - `user`: query `user` (short name)
 * - `data-user`: `user`'s query, plus `data-store-admin=true` when the caller holds an administrator
 *   role (ADMIN_ROLES or DATA_STORE_ADMIN_ROLES): data-info lets administrators curate the
 *   community folder
 * - `notification`: query `user`, `email`, `first_name`, `last_name`
 * - `qualified-user`: query `user` = `short@uid-domain`
 * - `path`: nothing in the query; the backend path carries `{user}` or `{qualified-user}`
 * - `none`: no identity at all
 */
export type IdentityStyle =
  'apps' | 'user' | 'data-user' | 'notification' | 'qualified-user' | 'path' | 'none';

export const defaultIdentityStyle: Record<BackendName, IdentityStyle> = {
  apps: 'apps',
  search: 'apps',
  analyses: 'qualified-user',
  metadata: 'user',
  'data-info': 'data-user',
  groups: 'user',
  requests: 'user',
  'interactive-apps': 'user',
  'notification-agent': 'notification',
  'user-info': 'path',
  dashboard: 'path',
  'resource-usage': 'path',
  'data-usage': 'path',
  qms: 'path',
  permissions: 'none',
  subscriptions: 'none',
  email: 'none',
  'user-portal': 'none',
  genomesvc: 'none',
  pidprovider: 'none',
  'async-tasks': 'none',
};

/** `data-info` → `DATA_INFO` (the prefix of its environment variables). */
export function backendEnvPrefix(name: BackendName): string {
  return name.toUpperCase().replace(/-/g, '_');
}

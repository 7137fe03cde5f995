// Shared plumbing of the filesystem and sharing routes: data-info calls whose errors reach the
// client as data-info sent them, path checks, the community rule for anonymous callers.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isWithin, normalizeDataPath } from '../backends/data-info/data-path.js';
import type { GatewayConfig } from '../config.js';
import { noCredentials, type AuthLevel } from '../http/auth.js';
import { GatewayError } from '../http/errors.js';
import { routeSecurity } from '../http/openapi.js';
import type { BackendCall, Forwarder } from '../http/proxy.js';

export interface FilesystemDeps {
  forwarder: Forwarder;
  config: GatewayConfig;
}

type Query = BackendCall['query'];

/**
 * A data-info answer as JSON. Unlike `Forwarder.callJson`, a refusal keeps every key of the
 * backend's error body (`path`, `paths`, `user`, `count`…): clients read them (clients.md §4).
 */
export async function dataInfo<T>(
  deps: FilesystemDeps,
  request: FastifyRequest,
  call: { method: string; path: string; query?: Query; json?: unknown },
): Promise<T> {
  const response = await deps.forwarder.call('data-info', { ...call, identity: request.identity, identityStyle: 'user' }, request.id);
  const text = await response.body.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (response.statusCode >= 200 && response.statusCode < 300) {
    if (body === undefined && text !== '') throw new GatewayError(502, 'ERR_BAD_GATEWAY', 'The data-info service answered with something other than JSON.', { backend: 'data-info' });
    return body as T;
  }
  throw relayedError(response.statusCode, body, text);
}

/** The backend's error body as a GatewayError that renders it back unchanged. */
export function relayedError(status: number, body: unknown, text = ''): GatewayError {
  const { error_code: code, reason, ...extra } = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const message = typeof reason === 'string' ? reason : typeof extra.message === 'string' ? extra.message : text.trim() || `The data-info service answered ${status}.`;
  return new GatewayError(status, typeof code === 'string' ? code : 'ERR_REQUEST_FAILED', message, extra);
}

/**
 * The canonical form of a client path, checked at the gateway too: these paths go into backend
 * URL paths, where a proxy in front of a remote data-info could resolve `..` before it checks.
 */
export function dataPath(config: GatewayConfig, input: unknown, field = 'path'): string {
  return normalizeDataPath(input, config.dataStore.zone, field);
}

/** `/data/path/<zone>/<rest>`-style backend paths: every segment encoded on its own. */
export function pathSuffix(canonical: string): string {
  return canonical
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}

export const communityRoot = (config: GatewayConfig) => `/${config.dataStore.zone}/home/shared`;

/**
 * Auth level "optional (community)" (routes.md §1.2): an anonymous caller may only name paths
 * under the community-data root, and may never look things up by id. Users pass unchecked.
 */
export function requireCommunityAccess(config: GatewayConfig, request: FastifyRequest, paths: readonly string[], ids: readonly unknown[] = []): void {
  if (request.identity) return;
  if (ids.length > 0) throw noCredentials();
  const root = communityRoot(config);
  if (paths.some((path) => !isWithin(path, root))) throw noCredentials();
}

/** The data-info id of a path (`GET /data/uuid`), the path checked first (`field` names it in a refusal). */
export async function uuidOf(deps: FilesystemDeps, request: FastifyRequest, input: unknown, field = 'path'): Promise<string> {
  const path = dataPath(deps.config, input, field);
  const { id } = await dataInfo<{ id: string }>(deps, request, { method: 'GET', path: '/data/uuid', query: { path } });
  return id;
}

/**
 * Query names arrive in any case (`sortField`, `SORT-COL`; routes.md §1.5): lower-cases them and
 * collapses identical repeats of single-valued parameters; different repeats are a 409
 * (clients.md §3.3). Meant for a `preValidation` hook, so the schema sees the result.
 */
export function normalizeQuery(raw: unknown, repeatable: readonly string[] = []): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries((raw ?? {}) as Record<string, string | string[]>)) {
    const key = name.toLowerCase();
    const values = [...(Array.isArray(result[key]) ? (result[key] as string[]) : result[key] !== undefined ? [result[key] as string] : []), ...(Array.isArray(value) ? value : [value])];
    result[key] = values.length === 1 ? values[0]! : values;
  }
  for (const [key, value] of Object.entries(result)) {
    if (!Array.isArray(value) || repeatable.includes(key)) continue;
    if (new Set(value).size > 1) {
      throw new GatewayError(409, 'ERR_CONFLICTING_QUERY_PARAMETER_VALUES', `query parameter "${key}" was given different values`, { field: key });
    }
    result[key] = value[0]!;
  }
  for (const key of repeatable) {
    const value = result[key];
    if (value !== undefined && !Array.isArray(value)) result[key] = [value];
  }
  return result;
}

/** A `preValidation` hook applying `normalizeQuery`. */
export function queryNormalizer(repeatable: readonly string[] = []) {
  return async (request: FastifyRequest) => {
    request.query = normalizeQuery(request.query, repeatable);
  };
}

type RouteOptions = Parameters<FastifyInstance['route']>[0];

/**
 * A `[/secured]/x` route of routes.md: served at `/x` with `auth` and at `/secured/x`, where a
 * user is always required.
 */
export function routeAtBoth(app: FastifyInstance, auth: AuthLevel, options: RouteOptions): void {
  const schema = (options.schema ?? {}) as Record<string, unknown>;
  app.route({ ...options, config: { ...options.config, auth }, schema: { ...schema, security: routeSecurity(auth) } });
  const securedAuth: AuthLevel = auth === 'none' || auth === 'optional' ? 'user' : auth;
  app.route({ ...options, url: `/secured${options.url}`, config: { ...options.config, auth: securedAuth }, schema: { ...schema, security: routeSecurity(securedAuth) } });
}

/** False for strings holding an unpaired surrogate: they cannot be percent-encoded for a backend call. */
export const wellFormed = (text: string): boolean => !/\p{Cs}/u.test(text);

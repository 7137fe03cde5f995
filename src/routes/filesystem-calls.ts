// Shared plumbing of the filesystem and sharing routes: data-info calls as the caller, path
// checks, the community rule for anonymous callers, query normalisation.
import type { FastifyRequest } from 'fastify';
import { isWithin, normalizeDataPath } from '../backends/data-info/data-path.js';
import type { GatewayConfig } from '../config.js';
import { noCredentials } from '../http/auth.js';
import { GatewayError } from '../http/errors.js';
import type { Forwarder } from '../http/proxy.js';
import { dataInfoCall, dataInfoJson, uuidOf, type DataInfoRequest } from './data-info-calls.js';

export interface FilesystemDeps {
  forwarder: Forwarder;
  config: GatewayConfig;
}

/** A data-info JSON answer for a filesystem route, called as its caller. */
export function dataInfo<T>(deps: FilesystemDeps, request: FastifyRequest, call: DataInfoRequest): Promise<T> {
  return dataInfoJson<T>(dataInfoCall(deps, request), call);
}

/**
 * The canonical form of a client path, checked at the gateway too: these paths go into backend
 * URL paths, where a proxy in front of a remote data-info could resolve `..` before it checks.
 */
export function dataPath(config: GatewayConfig, input: unknown, field = 'path'): string {
  return normalizeDataPath(input, config.dataStore.zone, field);
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

/** The data-info id of a client path, the path checked first (`field` names it in a refusal). */
export function idOfPath(deps: FilesystemDeps, request: FastifyRequest, input: unknown, field = 'path'): Promise<string> {
  return uuidOf(dataInfoCall(deps, request), dataPath(deps.config, input, field));
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

/** False for strings holding an unpaired surrogate: they cannot be percent-encoded for a backend call. */
export const wellFormed = (text: string): boolean => !/\p{Cs}/u.test(text);

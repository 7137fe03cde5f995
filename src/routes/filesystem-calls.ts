// Shared plumbing of the filesystem and sharing routes: data-info calls as the caller, path
// checks, the community rule for anonymous callers, query normalisation.
import type { FastifyRequest } from 'fastify';
import { isWithin, normalizeDataPath } from '../backends/data-info/data-path.js';
import type { GatewayConfig } from '../config.js';
import { noCredentials } from '../http/auth.js';
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


/** False for strings holding an unpaired surrogate: they cannot be percent-encoded for a backend call. */
export const wellFormed = (text: string): boolean => !/\p{Cs}/u.test(text);

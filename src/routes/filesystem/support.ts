// Shared plumbing of the filesystem and sharing routes: path checks, signed-out reads, ids of
// paths. The data-info calls themselves are in src/clients/data-info.ts.
import type { FastifyRequest } from 'fastify';
import { isWithin, normalizeDataPath } from '../../common/data-path.ts';
import type { GatewayConfig } from '../../config/index.ts';
import { noCredentials } from '../../http/auth.ts';
import { GatewayError } from '../../common/errors.ts';
import type { Forwarder } from '../../http/proxy.ts';
import { dataInfoCall, uuidOf } from '../../clients/data-info.ts';

export interface FilesystemDeps {
  forwarder: Forwarder;
  config: GatewayConfig;
}

/**
 * The canonical form of a client path, checked at the gateway too: these paths go into backend
 * URL paths, where a proxy in front of a remote data-info could resolve `..` before it checks.
 */
export function dataPath(config: GatewayConfig, input: unknown, field = 'path'): string {
  return normalizeDataPath(input, config.dataStore.zone, field);
}

export const communityRoot = (config: GatewayConfig) => `/${config.dataStore.zone}/home/shared`;

/** A signed-out caller may never look things up by id (routes.md §1.2). */
export function refuseAnonymousIds(request: FastifyRequest, ids: readonly unknown[] = []): void {
  if (!request.identity && ids.length > 0) throw noCredentials();
}

/**
 * Signed-out reads (routes.md §1.2, clients.md §2.3). Anonymous callers read what is public: the
 * community folder and files made public (a grant to everyone), whichever read route they use, as
 * data-info decides. What they cannot read is refused as on any route that needs a user (401):
 * signing in may help. Outside the community folder a path that does not exist is refused alike,
 * so a signed-out caller cannot tell others' private files from nothing. Signed-in callers, and
 * refusals of other kinds, pass unchanged.
 */
export async function readSignedOut<T>(
  config: GatewayConfig,
  request: FastifyRequest,
  paths: readonly string[],
  read: () => Promise<T>,
): Promise<T> {
  if (request.identity) return read();
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    const root = communityRoot(config);
    const unreadable =
      error.errorCode === 'ERR_NOT_READABLE' ||
      (error.errorCode === 'ERR_DOES_NOT_EXIST' && paths.some((path) => !isWithin(path, root)));
    throw unreadable ? noCredentials() : error;
  }
}

/** The data-info id of a client path, the path checked first (`field` names it in a refusal). */
export function idOfPath(
  deps: FilesystemDeps,
  request: FastifyRequest,
  input: unknown,
  field = 'path',
): Promise<string> {
  return uuidOf(dataInfoCall(deps, request), dataPath(deps.config, input, field));
}

/** False for strings holding an unpaired surrogate: they cannot be percent-encoded for a backend call. */
export const wellFormed = (text: string): boolean => !/\p{Cs}/u.test(text);

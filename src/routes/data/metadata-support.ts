// Shared plumbing of the data-metadata routes (routes.md §13): what their deps are, ids from URLs
// and bodies, which entries the caller can read. The backend calls are in src/clients/.
import type { FastifyRequest } from 'fastify';
import { isUuid } from '../../common/ids.ts';
import { dataInfoCall, readableStats } from '../../clients/data-info.ts';
import type { FilesystemDeps } from '../filesystem/support.ts';
import { gatewayError } from '../../common/errors.ts';

export type DataMetadataDeps = FilesystemDeps;

/** An id from a URL or a body: anything but a UUID names nothing, so it does not exist (404). */
export function entryId(value: unknown, field = 'data-id'): string {
  if (!isUuid(value))
    throw gatewayError(
      'ERR_DOES_NOT_EXIST',
      `no file or folder has the id ${JSON.stringify(value)}`,
      { id: value, field },
    );
  return value.toLowerCase();
}

/** The ids among `ids` that the caller can read (missing and unreadable ones left out). */
export async function readableIds(
  deps: DataMetadataDeps,
  request: FastifyRequest,
  ids: string[],
): Promise<Set<string>> {
  const readable = await readableStats(dataInfoCall(deps, request), ids, 'id');
  return new Set([...readable.keys()].map((id) => id.toLowerCase()));
}

// Shared plumbing of the data-metadata routes (routes.md §13): the caller's stat of an entry at a
// permission level, metadata-service calls as the caller, reading a stored file, writing one.
import type { FastifyRequest } from 'fastify';
import { isUuid } from '../../common/ids.js';
import { backendError, jsonAnswer } from '../../http/backend-answer.js';
import type { BackendCall } from '../../http/proxy.js';
import type { BackendResponse } from '../../http/backend-answer.js';
import {
  answeredListing,
  dataInfoCall,
  dataInfoJson,
  encodedPath,
  fileContent,
  readableStats,
} from '../../clients/data-info.js';
import type { FilesystemDeps } from '../filesystem/support.js';
import { gatewayError } from '../../common/errors.js';

export type DataMetadataDeps = FilesystemDeps;

/** The stat keys these routes read (backends.md §2.2). */
export interface EntryStat {
  id: string;
  path: string;
  type: 'file' | 'dir';
  permission: 'read' | 'write' | 'own';
  [key: string]: unknown;
}

export type Level = 'read' | 'write' | 'own';

/** The metadata service's name for an entry's kind: data-info says `dir`, metadata says `folder`. */
export const targetType = (stat: Pick<EntryStat, 'type'>) =>
  stat.type === 'dir' ? 'folder' : 'file';

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

/**
 * The caller's stats of entries by id, each needing `level`: one data-info call. Missing →
 * ERR_DOES_NOT_EXIST (404), lacking the level → ERR_NOT_READABLE / ERR_NOT_WRITEABLE (403).
 */
export async function statsById(
  deps: DataMetadataDeps,
  request: FastifyRequest,
  ids: string[],
  level: Level,
): Promise<EntryStat[]> {
  if (ids.length === 0) return [];
  const answer = await dataInfoJson<{ ids: Record<string, EntryStat> }>(
    dataInfoCall(deps, request),
    {
      method: 'POST',
      path: '/stat-gatherer',
      query: { 'validation-behavior': level },
      json: { ids },
    },
  );
  return ids.map((id) => answer.ids[id]!);
}

export async function statById(
  deps: DataMetadataDeps,
  request: FastifyRequest,
  id: string,
  level: Level,
): Promise<EntryStat> {
  return (await statsById(deps, request, [id], level))[0]!;
}

/** The caller's stats of paths, each needing `level` (one call). */
export async function statsByPath(
  deps: DataMetadataDeps,
  request: FastifyRequest,
  paths: string[],
  level: Level,
): Promise<Record<string, EntryStat>> {
  if (paths.length === 0) return {};
  const answer = await dataInfoJson<{ paths: Record<string, EntryStat> }>(
    dataInfoCall(deps, request),
    {
      method: 'POST',
      path: '/stat-gatherer',
      query: { 'validation-behavior': level },
      json: { paths },
    },
  );
  return answer.paths;
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

export type MetadataRequest = Omit<BackendCall, 'identity' | 'identityStyle'>;

/** A metadata-service call as the caller (`user` parameter): its answer, unread. */
export function metadataCall(
  deps: Pick<DataMetadataDeps, 'forwarder'>,
  request: FastifyRequest,
  call: MetadataRequest,
): Promise<BackendResponse> {
  return deps.forwarder.call(
    'metadata',
    { ...call, identity: request.identity, identityStyle: 'user' },
    request.id,
  );
}

/** A metadata-service JSON answer, called as the caller; a refusal keeps the service's status and body. */
export async function metadataJson<T>(
  deps: Pick<DataMetadataDeps, 'forwarder'>,
  request: FastifyRequest,
  call: MetadataRequest,
): Promise<T> {
  return jsonAnswer<T>('metadata', await metadataCall(deps, request, call));
}

/** Nested AVUs as the metadata service keeps them (backends.md §3.3). */
export interface Avu {
  id: string;
  attr: string;
  value: string;
  unit: string;
  avus?: Avu[];
  [key: string]: unknown;
}

/** The AVUs of one entry. */
export async function avusOf(
  deps: DataMetadataDeps,
  request: FastifyRequest,
  stat: EntryStat,
): Promise<Avu[]> {
  const { avus } = await metadataJson<{ avus: Avu[] }>(deps, request, {
    method: 'GET',
    path: `/avus/${targetType(stat)}/${stat.id}`,
  });
  return avus;
}

/** A stored file's bytes, at most `maxBytes` of them (ERR_FILE_SIZE_TOO_LARGE beyond). */
export async function readStoredFile(
  deps: DataMetadataDeps,
  request: FastifyRequest,
  path: string,
  maxBytes: number,
): Promise<Buffer> {
  const response = await deps.forwarder.call(
    'data-info',
    {
      method: 'GET',
      path: `/data/path${encodedPath(path)}`,
      query: { limit: '1' },
      identity: request.identity,
      identityStyle: 'user',
    },
    request.id,
  );
  if (response.statusCode < 200 || response.statusCode >= 300)
    throw await backendError('data-info', response);
  if (answeredListing(response)) {
    await response.body.dump();
    throw gatewayError('ERR_NOT_A_FILE', `${path} is a folder, not a file`, { path });
  }
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      response.body.destroy();
      throw gatewayError(
        'ERR_FILE_SIZE_TOO_LARGE',
        `${path} is larger than the ${maxBytes} bytes this operation reads`,
        { path, limit: maxBytes },
      );
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

/** Writes a new file `<folder>/<name>` (ERR_EXISTS when it is there already); answers its stat. */
export async function createStoredFile(
  deps: DataMetadataDeps,
  request: FastifyRequest,
  folder: string,
  name: string,
  content: string,
): Promise<EntryStat> {
  const { file } = await dataInfoJson<{ file: EntryStat }>(dataInfoCall(deps, request), {
    method: 'POST',
    path: '/data',
    query: { dest: folder, filename: name },
    raw: fileContent(content),
  });
  return file;
}

/** Overwrites the file with this id; answers its stat. */
export async function overwriteStoredFile(
  deps: DataMetadataDeps,
  request: FastifyRequest,
  id: string,
  content: string,
): Promise<EntryStat> {
  const { file } = await dataInfoJson<{ file: EntryStat }>(dataInfoCall(deps, request), {
    method: 'PUT',
    path: `/data/${id}`,
    raw: fileContent(content),
  });
  return file;
}

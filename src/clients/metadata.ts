// Calls to the metadata service as the caller (`user` parameter): AVUs, templates, favourites,
// tags, comments and permanent-ID requests are kept there. A refusal keeps the service's status
// and body (see backendError).
import type { FastifyRequest } from 'fastify';
import { jsonAnswer, type BackendResponse } from '../http/backend-answer.ts';
import type { BackendCall, Forwarder } from '../http/proxy.ts';
import type { EntryStat } from './data-info.ts';

/** The metadata service's name for an entry's kind: data-info says `dir`, metadata says `folder`. */
export const targetType = (stat: Pick<EntryStat, 'type'>) =>
  stat.type === 'dir' ? 'folder' : 'file';

export type MetadataRequest = Omit<BackendCall, 'identity' | 'identityStyle'>;

/** A metadata-service call as the caller (`user` parameter): its answer, unread. */
export function metadataCall(
  deps: { forwarder: Forwarder },
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
  deps: { forwarder: Forwarder },
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
  deps: { forwarder: Forwarder },
  request: FastifyRequest,
  stat: EntryStat,
): Promise<Avu[]> {
  const { avus } = await metadataJson<{ avus: Avu[] }>(deps, request, {
    method: 'GET',
    path: `/avus/${targetType(stat)}/${stat.id}`,
  });
  return avus;
}

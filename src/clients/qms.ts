// Calls to the QMS (backends.md §8) that the gateway makes of its own: recording a user's data-store
// usage (data.size, the bytes of their home and trash, SET) and a usage sent by a backend (the CPU
// hours of a finished analysis, ADD), and reading whether a user has reached a quota.
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { UsageRecord } from '../common/usages.ts';
import type { Forwarder } from '../http/proxy.ts';
import { dataInfo } from './data-info.ts';

type Deps = { forwarder: Forwarder };

/** Records one usage (`POST /v1/usages`); the service's refusal is thrown. */
export async function addUsage(deps: Deps, usage: UsageRecord, requestId?: string): Promise<void> {
  await deps.forwarder.callJson(
    'qms',
    {
      method: 'POST',
      path: '/v1/usages',
      identityStyle: 'none',
      json: {
        username: usage.username,
        resource_name: usage.resourceName,
        usage_value: usage.value,
        update_type: usage.updateType,
      },
    },
    requestId,
  );
}

/** Sends a backend's usage to the QMS; logged, never thrown (the work it reports has happened). */
export async function sendUsage(
  deps: Deps,
  usage: UsageRecord,
  log: Pick<FastifyBaseLogger, 'warn'>,
): Promise<boolean> {
  try {
    await addUsage(deps, usage);
    return true;
  } catch (error) {
    log.warn({ err: error, usage }, 'could not record a usage with the QMS');
    return false;
  }
}

interface UsageSummary {
  home: { bytes: number };
  trash: { bytes: number };
}

/** Measures the caller's data (home and trash, in bytes) and records it as their data.size usage. */
export async function recordDataUsage(deps: Deps, request: FastifyRequest): Promise<number> {
  const summary = await dataInfo<UsageSummary>(deps, request, {
    method: 'GET',
    path: '/usage-summary',
  });
  const bytes = summary.home.bytes + summary.trash.bytes;
  await addUsage(
    deps,
    {
      username: request.identity!.username,
      resourceName: 'data.size',
      value: bytes,
      updateType: 'SET',
    },
    request.id,
  );
  return bytes;
}

export interface Standing {
  resourceName: string;
  quota?: number;
  usage: number;
}

interface PlanAnswer {
  result: {
    quotas: { quota: number; resource_type: { name: string } }[];
    usages: { usage: number; resource_type: { name: string } }[];
  };
}

/** The caller's quota and usage of one resource type in their current subscription. */
export async function standing(
  deps: Deps,
  request: FastifyRequest,
  resourceName: string,
): Promise<Standing> {
  const { result } = await deps.forwarder.callJson<PlanAnswer>(
    'qms',
    {
      method: 'GET',
      path: `/v1/users/${encodeURIComponent(request.identity!.username)}/plan`,
      identityStyle: 'none',
    },
    request.id,
  );
  const named = <T extends { resource_type: { name: string } }>(list: T[]) =>
    list.find((each) => each.resource_type.name === resourceName);
  const quota = named(result.quotas)?.quota;
  return {
    resourceName,
    ...(quota !== undefined ? { quota } : {}),
    usage: named(result.usages)?.usage ?? 0,
  };
}

/** Whether the caller's data.size usage has reached its quota (data-usage `GET /{short}/data/overage`). */
export async function hasDataOverage(deps: Deps, request: FastifyRequest): Promise<boolean> {
  const answer = await deps.forwarder.callJson<{ has_data_overage: boolean }>(
    'data-usage',
    {
      method: 'GET',
      path: `/${encodeURIComponent(request.identity!.username)}/data/overage`,
      identityStyle: 'none',
    },
    request.id,
  );
  return answer.has_data_overage === true;
}

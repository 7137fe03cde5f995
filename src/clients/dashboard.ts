// The backend calls behind the gateway's `/dashboard` on the embedded platform (routes.md §23):
// one each, whatever the limit — the apps part (apps `GET /dashboard/apps`), the caller's recent
// and running analyses (apps `GET /analyses`), the feeds (user-info `GET /feeds`) and the
// dashboard's instant launches (interactive-apps `GET /instantlaunches/metadata/full`).
import type { Identity } from '../common/identity.ts';
import type { Forwarder } from '../http/proxy.ts';
import { analysesListing } from './apps.ts';

export interface DashboardCall {
  forwarder: Forwarder;
  /** Undefined for an anonymous caller. */
  identity: Identity | undefined;
  requestId: string;
  limit: number;
}

export interface DashboardApps {
  recentlyAdded: unknown[];
  public: unknown[];
  recentlyUsed: unknown[];
  popularFeatured: unknown[];
}

export function dashboardApps(call: DashboardCall): Promise<DashboardApps> {
  return call.forwarder.callJson<DashboardApps>(
    'apps',
    {
      method: 'GET',
      path: '/dashboard/apps',
      identity: call.identity,
      identityStyle: 'apps',
      query: { limit: String(call.limit) },
    },
    call.requestId,
  );
}

/** The caller's newest analyses, all or those with `status`. */
export async function recentAnalyses(call: DashboardCall, status?: string): Promise<unknown[]> {
  const listing = await analysesListing(call, {
    limit: String(call.limit),
    'sort-field': 'startdate',
    'sort-dir': 'DESC',
    ...(status ? { filter: JSON.stringify([{ field: 'status', value: status }]) } : {}),
  });
  return listing.analyses ?? [];
}

export interface DashboardFeeds {
  news: unknown[];
  events: unknown[];
  videos: unknown[];
}

export function dashboardFeeds(call: DashboardCall): Promise<DashboardFeeds> {
  return call.forwarder.callJson<DashboardFeeds>(
    'user-info',
    {
      method: 'GET',
      path: '/feeds',
      identityStyle: 'none',
      query: { limit: String(call.limit) },
    },
    call.requestId,
  );
}

/** Instant launches tagged for the dashboard (AVU `ui_location` = `dashboard`). */
export async function dashboardInstantLaunches(call: DashboardCall): Promise<unknown[]> {
  // `{instant_launches: [...]}`, as the reference answers (a bare array is taken too).
  const answer = await call.forwarder.callJson<unknown[] | { instant_launches?: unknown }>(
    'interactive-apps',
    {
      method: 'GET',
      path: '/instantlaunches/metadata/full',
      identity: call.identity,
      identityStyle: 'qualified-user',
      query: { attribute: 'ui_location', value: 'dashboard', unit: '' },
    },
    call.requestId,
  );
  const listed = Array.isArray(answer) ? answer : answer.instant_launches;
  return Array.isArray(listed) ? listed.slice(0, call.limit) : [];
}

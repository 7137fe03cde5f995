// Calls to the apps service as the caller (`user` parameter, apps style): the analyses listing the
// notification routes describe jobs from, and what a URL import needs (the import app's launch
// form, submitting an analysis).
import type { Identity } from '../common/identity.ts';
import type { Forwarder } from '../http/proxy.ts';

/** Who calls and for which request (a URL import goes on after its request has been answered). */
export interface AppsCall {
  forwarder: Forwarder;
  identity: Identity | undefined;
  requestId: string | undefined;
}

export interface AnalysisListing {
  analyses?: { id?: unknown; app_description?: unknown }[];
}

/** One page of the caller's analyses (`GET /analyses` with `query`: filter, paging, sorting). */
export function analysesListing(
  call: Pick<AppsCall, 'forwarder' | 'identity' | 'requestId'>,
  query: Record<string, string>,
): Promise<AnalysisListing> {
  return call.forwarder.callJson<AnalysisListing>(
    'apps',
    { method: 'GET', path: '/analyses', identity: call.identity, identityStyle: 'apps', query },
    call.requestId,
  );
}

/** The caller's analyses with these ids, hidden ones included (`GET /analyses`, one call). */
export function analysesByIds(call: AppsCall, ids: readonly string[]): Promise<AnalysisListing> {
  return analysesListing(call, {
    filter: JSON.stringify(ids.map((id) => ({ field: 'id', value: id }))),
    'include-hidden': 'true',
    limit: String(ids.length),
  });
}

/** An app's launch form (AppJobView): parameter ids are `<step id>_<parameter id>`. */
export interface AppLaunchView {
  id: string;
  groups: { parameters: { id: string; name?: string }[] }[];
}

/** The launch form of an app the caller may see (`GET /apps/{system-id}/{app-id}`). */
export function appLaunchView(
  call: AppsCall,
  systemId: string,
  appId: string,
): Promise<AppLaunchView> {
  return call.forwarder.callJson<AppLaunchView>(
    'apps',
    {
      method: 'GET',
      path: `/apps/${encodeURIComponent(systemId)}/${encodeURIComponent(appId)}`,
      identity: call.identity,
      identityStyle: 'apps',
    },
    call.requestId,
  );
}

/** A job submission (`POST /analyses`), `config` keyed by the launch form's parameter ids. */
export interface AnalysisSubmission {
  system_id: string;
  app_id: string;
  name: string;
  output_dir: string;
  create_output_subdir: boolean;
  notify: boolean;
  config: Record<string, unknown>;
}

/** Submits an analysis as the caller; its answer is not needed. */
export async function submitAnalysis(call: AppsCall, job: AnalysisSubmission): Promise<void> {
  await call.forwarder.callJson(
    'apps',
    {
      method: 'POST',
      path: '/analyses',
      identity: call.identity,
      identityStyle: 'apps',
      json: job,
    },
    call.requestId,
  );
}

// Tag fileio: URL import (POST [/secured]/fileio/urlupload). The request is checked and answered at
// once; the import itself is an analysis of the platform's URL import app, submitted to the apps
// service over HTTP (its launch form names the parameters), whose executor fetches the file into
// the data store and notifies the user either way.
import { appLaunchView, submitAnalysis, type AppLaunchView } from '../../clients/apps.ts';
import { importName, urlImportApp } from '../../common/url-import.ts';
import { joinDataPath, normalizeDataPath } from '../../common/data-path.ts';
import type { GatewayConfig } from '../../config/index.ts';
import { checkHost, OutboundError } from '../../common/outbound-fetch.ts';
import type { Forwarder } from '../../http/proxy.ts';
import { dataInfoJson, type DataInfoCall } from '../../clients/data-info.ts';
import type { FileStat } from './fileio-support.ts';
import { errorAs, GatewayError, gatewayError } from '../../common/errors.ts';

export interface UrlImportRequest {
  dest: string;
  address: string;
}

export interface UrlImportDeps {
  forwarder: Forwarder;
  config: GatewayConfig;
}

export interface ScheduledImport {
  url: URL;
  /** The file's name in the data store. */
  label: string;
  dest: string;
  target: string;
}

function invalidUrl(address: string, why: string): GatewayError {
  return gatewayError('ERR_INVALID_URL', `${why}`, { url: address });
}

/** The URL, if it is http(s) with a host and no credentials; ERR_INVALID_URL otherwise. */
export function parseImportUrl(address: string): URL {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw invalidUrl(address, 'The address is not a URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalidUrl(address, 'Only http and https URLs can be imported.');
  if (url.hostname === '') throw invalidUrl(address, 'The URL has no host.');
  if (url.username || url.password)
    throw invalidUrl(address, 'URLs with credentials cannot be imported.');
  return url;
}

/**
 * Checks what can be checked before answering: the URL, the destination folder (exists, is a
 * folder, the caller may write it), the name, and that nothing is at `dest/name` yet.
 */
export async function prepareImport(
  call: DataInfoCall,
  deps: UrlImportDeps,
  request: UrlImportRequest,
): Promise<ScheduledImport> {
  const url = parseImportUrl(request.address);
  const dest = normalizeDataPath(request.dest, deps.config.dataStore.zone, 'dest');
  const label = importName(url);
  const target = joinDataPath(dest, label, 'address');
  if (!deps.config.dataStore.urlImportAllowPrivateNetworks) {
    try {
      await checkHost(url.hostname);
    } catch (error) {
      if (error instanceof OutboundError)
        throw invalidUrl(
          request.address,
          `The URL may not point at this network: ${error.message}.`,
        );
      // A name that does not resolve now may resolve later: the import itself reports it.
    }
  }

  const started = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      // The caller's mistakes keep their codes; a data store that failed us is ERR_REQUEST_FAILED.
      if (
        error instanceof GatewayError &&
        error.statusCode < 500 &&
        error.errorCode !== 'ERR_CLIENT_CLOSED_REQUEST'
      )
        throw error;
      const reason =
        error instanceof GatewayError ? error.reason : 'The upload could not be started.';
      throw gatewayError('ERR_REQUEST_FAILED', reason, { msg: request });
    }
  };
  const stats = await started(() =>
    dataInfoJson<{ paths: Record<string, FileStat & { type?: string }> }>(call, {
      method: 'POST',
      path: '/stat-gatherer',
      query: { 'validation-behavior': 'write' },
      json: { paths: [dest] },
    }),
  );
  if (stats.paths[dest]?.type === 'file')
    throw errorAs('ERR_NOT_A_FOLDER', 'fileio', `${dest} is not a folder`, { path: dest });
  const existing = await started(() =>
    dataInfoJson<{ paths: Record<string, boolean> }>(call, {
      method: 'POST',
      path: '/existence-marker',
      json: { paths: [target] },
    }),
  );
  if (existing.paths[target])
    throw errorAs('ERR_EXISTS', 'fileio', `${target} already exists`, { path: target });
  return { url, label, dest, target };
}

/** The launch form's id of the parameter `name` (`<step id>_<parameter id>`). */
function parameterId(view: AppLaunchView, name: string): string {
  const parameter = view.groups
    .flatMap((group) => group.parameters)
    .find((candidate) => candidate.name === name);
  if (!parameter) throw new Error(`the URL import app has no parameter ${name}`);
  return parameter.id;
}

/** Submits the import as an analysis of the URL import app; a refusal is ERR_REQUEST_FAILED. */
export async function submitImport(
  call: DataInfoCall,
  deps: UrlImportDeps,
  request: UrlImportRequest,
  job: ScheduledImport,
): Promise<void> {
  const apps = { forwarder: deps.forwarder, identity: call.identity, requestId: call.requestId };
  try {
    const view = await appLaunchView(apps, urlImportApp.systemId, urlImportApp.id);
    await submitAnalysis(apps, {
      system_id: urlImportApp.systemId,
      app_id: urlImportApp.id,
      name: `URL import of ${job.label}`,
      output_dir: job.dest,
      create_output_subdir: false,
      notify: true,
      config: {
        [parameterId(view, 'address')]: request.address,
        [parameterId(view, 'file-name')]: job.label,
      },
    });
  } catch (error) {
    const reason =
      error instanceof GatewayError ? error.reason : 'The upload could not be started.';
    throw gatewayError('ERR_REQUEST_FAILED', reason, { msg: request });
  }
}

// Tag fileio: URL import (POST [/secured]/fileio/urlupload). The request is checked and answered at
// once; the file is then fetched in the background, streamed into the data store, and the user gets
// a `data` notification either way.
import { pipeline } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { joinDataPath, normalizeDataPath } from '../backends/data-info/data-path.js';
import type { GatewayConfig } from '../config.js';
import { GatewayError } from '../http/errors.js';
import { sendNotification } from '../http/notifications.js';
import { checkHost, OutboundError, outboundGet } from '../http/outbound-fetch.js';
import type { Forwarder } from '../http/proxy.js';
import { byteLimit } from '../http/request-body.js';
import { dataInfoJson, fileContent, type DataInfoCall } from './data-info-calls.js';
import type { FileStat } from './fileio-support.js';

/** The longest a whole import may take, connect to last byte. */
export const URL_IMPORT_TIMEOUT_MS = 60 * 60 * 1000;
/** The longest the source may take to send its headers, and to pause between two chunks. */
export const URL_IMPORT_IDLE_TIMEOUT_MS = 60 * 1000;

export interface UrlImportRequest {
  dest: string;
  address: string;
}

export interface UrlImportDeps {
  forwarder: Forwarder;
  config: GatewayConfig;
  log: FastifyBaseLogger;
  /** Imports still running; aborted when the gateway closes. */
  running: Set<AbortController>;
}

export interface ScheduledImport {
  url: URL;
  /** The file's name in the data store. */
  label: string;
  dest: string;
  target: string;
}

function invalidUrl(address: string, why: string): GatewayError {
  return new GatewayError(500, 'ERR_INVALID_URL', `${why}`, { url: address });
}

/** The URL, if it is http(s) with a host and no credentials; ERR_INVALID_URL otherwise. */
export function parseImportUrl(address: string): URL {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw invalidUrl(address, 'The address is not a URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidUrl(address, 'Only http and https URLs can be imported.');
  if (url.hostname === '') throw invalidUrl(address, 'The URL has no host.');
  if (url.username || url.password) throw invalidUrl(address, 'URLs with credentials cannot be imported.');
  return url;
}

/** The last path segment, URL-decoded, else the host (routes.md §6). */
export function importName(url: URL): string {
  const segment = url.pathname.split('/').filter(Boolean).pop();
  if (!segment) return url.hostname.replace(/^\[|\]$/g, '');
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Checks what can be checked before answering: the URL, the destination folder (exists, is a
 * folder, the caller may write it), the name, and that nothing is at `dest/name` yet.
 */
export async function prepareImport(call: DataInfoCall, deps: UrlImportDeps, request: UrlImportRequest): Promise<ScheduledImport> {
  const url = parseImportUrl(request.address);
  const dest = normalizeDataPath(request.dest, deps.config.dataStore.zone, 'dest');
  const label = importName(url);
  const target = joinDataPath(dest, label, 'address');
  if (!deps.config.dataStore.urlImportAllowPrivateNetworks) {
    try {
      await checkHost(url.hostname);
    } catch (error) {
      if (error instanceof OutboundError) throw invalidUrl(request.address, `The URL may not point at this network: ${error.message}.`);
      // A name that does not resolve now may resolve later: the import itself reports it.
    }
  }

  const started = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      // The caller's mistakes keep their codes; a data store that failed us is ERR_REQUEST_FAILED.
      if (error instanceof GatewayError && error.statusCode < 500 && error.errorCode !== 'ERR_CLIENT_CLOSED_REQUEST') throw error;
      const reason = error instanceof GatewayError ? error.reason : 'The upload could not be started.';
      throw new GatewayError(500, 'ERR_REQUEST_FAILED', reason, { msg: request });
    }
  };
  const stats = await started(() =>
    dataInfoJson<{ paths: Record<string, FileStat & { type?: string }> }>(call, { method: 'POST', path: '/stat-gatherer', query: { 'validation-behavior': 'write' }, json: { paths: [dest] } }),
  );
  if (stats.paths[dest]?.type === 'file') throw new GatewayError(500, 'ERR_NOT_A_FOLDER', `${dest} is not a folder`, { path: dest });
  const existing = await started(() => dataInfoJson<{ paths: Record<string, boolean> }>(call, { method: 'POST', path: '/existence-marker', json: { paths: [target] } }));
  if (existing.paths[target]) throw new GatewayError(500, 'ERR_EXISTS', `${target} already exists`, { path: target });
  return { url, label, dest, target };
}

/** Drops a body nobody will read (an error listener first: undici reports the abort as one). */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => {});
  body.destroy();
}

/** Fetches the source and streams it into `dest/name`; throws a reason fit for the user on failure. */
async function fetchInto(call: DataInfoCall, deps: UrlImportDeps, job: ScheduledImport, signal: AbortSignal): Promise<FileStat> {
  const maxBytes = deps.config.dataStore.maxUploadBytes;
  const response = await outboundGet(job.url, {
    allowPrivateNetworks: deps.config.dataStore.urlImportAllowPrivateNetworks,
    headersTimeoutMs: URL_IMPORT_IDLE_TIMEOUT_MS,
    bodyTimeoutMs: URL_IMPORT_IDLE_TIMEOUT_MS,
    signal,
  });
  try {
    if (response.statusCode < 200 || response.statusCode >= 300) {
      discard(response.body);
      throw new Error(`the source answered HTTP ${response.statusCode}`);
    }
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      discard(response.body);
      throw new Error(`the file (${declared} bytes) is larger than the upload limit of ${maxBytes} bytes`);
    }
    // Streamed straight into the store: a failure midway aborts the store's request, which then
    // keeps nothing (the store writes to a temporary file and catalogs it only when complete).
    const limit = byteLimit(maxBytes, () => new Error(`the file is larger than the upload limit of ${maxBytes} bytes`));
    let sourceError: Error | undefined;
    pipeline(response.body, limit, (error) => {
      if (error) sourceError = error;
    });
    try {
      const answer = await dataInfoJson<{ file: FileStat }>(call, {
        method: 'POST',
        path: '/data',
        query: { dest: job.dest, filename: job.label },
        raw: fileContent(limit),
        signal,
      });
      return answer.file;
    } catch (error) {
      throw sourceError ?? limit.errored ?? error;
    }
  } finally {
    await response.close();
  }
}

function failureReason(error: unknown): string {
  if (error instanceof GatewayError) return error.reason;
  if (error instanceof OutboundError) return error.message;
  const code = (error as { code?: string }).code;
  if ((error as Error).name === 'AbortError' || code === 'UND_ERR_ABORTED') return 'the import took too long or the gateway stopped';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'the source stopped answering';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve';
  if (code === 'ECONNREFUSED') return 'the source refused the connection';
  return (error as Error).message || String(error);
}

/** Runs an import in the background; never throws. */
export function runImport(call: DataInfoCall, deps: UrlImportDeps, job: ScheduledImport): Promise<void> {
  const abort = new AbortController();
  deps.running.add(abort);
  const timer = setTimeout(() => abort.abort(), URL_IMPORT_TIMEOUT_MS);
  timer.unref();
  const user = call.identity?.username ?? 'anonymous';
  const url = job.url.href;
  const notify = (subject: string, message: string, payload: Record<string, unknown>) =>
    sendNotification(deps.forwarder, { type: 'data', user, subject, message, payload: { action: 'url_import', url, dest: job.dest, ...payload } }, deps.log, call.requestId);

  return fetchInto(call, deps, job, abort.signal)
    .then(
      async (stat) => {
        deps.log.info({ url, path: stat.path, user }, 'URL import finished');
        await notify(`${job.label} imported`, `${job.label} was imported from ${url} into ${job.dest}.`, { path: stat.path });
      },
      async (error: unknown) => {
        const reason = failureReason(error);
        deps.log.warn({ url, dest: job.dest, user, reason }, 'URL import failed');
        await notify(`URL import of ${job.label} failed`, `Importing ${url} into ${job.dest} failed: ${reason}.`, { error: reason });
      },
    )
    .finally(() => {
      clearTimeout(timer);
      deps.running.delete(abort);
    });
}

// The URL import tool (the built-in "URL import" app, and what fileio/urlupload submits): fetches an
// http(s) URL, SSRF-guarded, size- and time-limited, streaming it into a new file of the result
// folder as the user, and tells the user either way with a `data` notification (`url_import`).
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GatewayError } from '../../../common/errors.ts';
import { OutboundError, outboundGet } from '../../../common/outbound-fetch.ts';
import { byteLimit } from '../../../common/request-body.ts';
import { baseName, joinDataPath } from '../../../common/data-path.ts';
import { createFile } from '../../data-info/index.ts';
import { StepError, type StepRun } from './job-step.ts';
import { importName } from '../../../common/url-import.ts';

/** The longest a whole import may take, connect to last byte. */
export const URL_IMPORT_TIMEOUT_MS = 60 * 60 * 1000;
/** The longest the source may take to send its headers, and to pause between two chunks. */
export const URL_IMPORT_IDLE_TIMEOUT_MS = 60 * 1000;

/** A reason fit for the user. */
function failureReason(error: unknown): string {
  if (error instanceof GatewayError) return error.reason;
  if (error instanceof OutboundError || error instanceof StepError) return error.message;
  const code = (error as { code?: string }).code;
  if (
    (error as Error).name === 'AbortError' ||
    (error as Error).name === 'TimeoutError' ||
    code === 'UND_ERR_ABORTED'
  )
    return 'the import took too long or was stopped';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return 'the source stopped answering';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve';
  if (code === 'ECONNREFUSED') return 'the source refused the connection';
  return (error as Error).message || String(error);
}

/** Streams the source into `path`; throws on any failure, leaving nothing behind. */
async function fetchInto(
  run: StepRun,
  url: URL,
  path: string,
  signal: AbortSignal,
): Promise<string> {
  const { maxBytes, allowPrivateNetworks } = run.urlImport;
  const response = await outboundGet(url, {
    allowPrivateNetworks,
    headersTimeoutMs: URL_IMPORT_IDLE_TIMEOUT_MS,
    bodyTimeoutMs: URL_IMPORT_IDLE_TIMEOUT_MS,
    signal,
  });
  try {
    if (response.statusCode < 200 || response.statusCode >= 300) {
      response.body.on('error', () => {}).destroy();
      throw new StepError(`the source answered HTTP ${response.statusCode}`);
    }
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      response.body.on('error', () => {}).destroy();
      throw new StepError(
        `the file (${declared} bytes) is larger than the upload limit of ${maxBytes} bytes`,
      );
    }
    const limit = byteLimit(
      maxBytes,
      () => new StepError(`the file is larger than the upload limit of ${maxBytes} bytes`),
    );
    const bytes = new Transform({
      transform: (chunk, _encoding, callback) => callback(null, chunk),
    });
    const piping = pipeline(response.body, limit, bytes);
    const [created] = await Promise.all([createFile(run.data, run.caller, path, bytes), piping]);
    return created.path;
  } finally {
    await response.close();
  }
}

export async function importUrl(run: StepRun): Promise<string[]> {
  const address = typeof run.values.address === 'string' ? run.values.address.trim() : '';
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new StepError(`"${address}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new StepError('only http and https URLs can be imported');
  const given = typeof run.values['file-name'] === 'string' ? run.values['file-name'].trim() : '';
  const path = joinDataPath(run.resultFolder, given || importName(url), 'name');
  const label = baseName(path);
  const notify = (subject: string, message: string, payload: Record<string, unknown>) =>
    run.notify({
      type: 'data',
      user: run.caller.name,
      subject,
      message,
      payload: { action: 'url_import', url: address, dest: run.resultFolder, ...payload },
    });
  try {
    const written = await fetchInto(
      run,
      url,
      path,
      AbortSignal.any([run.signal, AbortSignal.timeout(URL_IMPORT_TIMEOUT_MS)]),
    );
    await notify(
      `${label} imported`,
      `${label} was imported from ${address} into ${run.resultFolder}.`,
      { path: written },
    );
    return [written];
  } catch (error) {
    // Stopped by its owner: the analysis's own notification says Canceled; this one must not
    // say the import failed.
    if (run.signal.aborted) {
      await notify(
        `URL import of ${label} canceled`,
        `Importing ${address} into ${run.resultFolder} was canceled.`,
        { canceled: true },
      );
      throw error;
    }
    const reason = failureReason(error);
    await notify(
      `URL import of ${label} failed`,
      `Importing ${address} into ${run.resultFolder} failed: ${reason}.`,
      { error: reason },
    );
    throw new StepError(reason);
  }
}

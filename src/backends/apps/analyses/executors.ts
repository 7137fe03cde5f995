// The embedded executor's tools (issue 7): each runs one step of a built-in app in-process, reading
// its inputs from the data store and writing its outputs into the result folder, always as the
// user who launched the job (their permissions decide what it may read and write).
import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyBaseLogger } from 'fastify';
import { byteLimit } from '../../../http/request-body.js';
import { outboundGet } from '../../../http/outbound-fetch.js';
import { baseName, joinDataPath } from '../../data-info/data-path.js';
import type { DataObject } from '../../data-info/catalog.js';
import type { Caller, DataStore } from '../../data-info/store.js';
import { createFile, readableFile } from '../../data-info/writes.js';

/** What a step gets: its parameter values by name, the caller, where outputs go. */
export interface StepRun {
  data: DataStore;
  caller: Caller;
  resultFolder: string;
  values: Record<string, unknown>;
  signal: AbortSignal;
  log: FastifyBaseLogger;
  urlImport: { allowPrivateNetworks: boolean; maxBytes: number };
}

/** Runs one step; answers the paths it wrote. A thrown error fails the job with its message. */
export type Executor = (run: StepRun) => Promise<string[]>;

export class StepError extends Error {}

/** A path value as clients send it: a string, or `{path}`. */
function pathOf(value: unknown, what: string): string {
  const path = typeof value === 'string' ? value : typeof value === 'object' && value !== null ? (value as { path?: unknown }).path : undefined;
  if (typeof path !== 'string' || path === '') throw new StepError(`${what} needs a path`);
  return path;
}

function pathsOf(value: unknown, what: string): string[] {
  const list = Array.isArray(value) ? value : value === undefined || value === null || value === '' ? [] : [value];
  if (list.length === 0) throw new StepError(`${what} needs at least one file`);
  return list.map((item) => pathOf(item, what));
}

async function readAll(run: StepRun, object: DataObject, consume: (chunk: Buffer) => void): Promise<void> {
  const blob = await run.data.content(object);
  try {
    for await (const chunk of blob.stream()) {
      if (run.signal.aborted) throw new StepError('stopped');
      consume(chunk as Buffer);
    }
  } finally {
    await blob.close();
  }
}

const output = (run: StepRun, name: string) => joinDataPath(run.resultFolder, name, 'name');

/** `wc`: lines, words and bytes of a text file. */
const wordCount: Executor = async (run) => {
  const input = await readableFile(run.data, run.caller, pathOf(run.values.input, 'Text file'));
  let lines = 0;
  let words = 0;
  let bytes = 0;
  let inWord = false;
  await readAll(run, input, (chunk) => {
    bytes += chunk.length;
    for (const byte of chunk) {
      if (byte === 0x0a) lines += 1;
      const space = byte === 0x20 || (byte >= 0x09 && byte <= 0x0d);
      if (!space && !inWord) words += 1;
      inWord = !space;
    }
  });
  const name = baseName(input.path);
  const path = output(run, `${name}.wc.txt`);
  await createFile(run.data, run.caller, path, `${lines} ${words} ${bytes} ${name}\n`);
  return [path];
};

/** `cat`: the files in the order given, into one output file. */
const concatenate: Executor = async (run) => {
  const inputs: DataObject[] = [];
  for (const path of pathsOf(run.values.inputs, 'Files to join')) inputs.push(await readableFile(run.data, run.caller, path));
  const name = typeof run.values.output === 'string' && run.values.output.trim() !== '' ? run.values.output.trim() : 'concatenated.txt';
  const path = output(run, name);
  const data = run.data;
  async function* joined() {
    for (const input of inputs) {
      const blob = await data.content(input);
      try {
        for await (const chunk of blob.stream()) yield chunk as Buffer;
      } finally {
        await blob.close();
      }
    }
  }
  await createFile(run.data, run.caller, path, Readable.from(joined()));
  return [path];
};

/** `md5sum` / `sha256sum`. */
const checksum: Executor = async (run) => {
  const algorithm = typeof run.values.algorithm === 'string' && run.values.algorithm !== '' ? run.values.algorithm.toLowerCase() : 'md5';
  if (algorithm !== 'md5' && algorithm !== 'sha256') throw new StepError(`unknown algorithm ${algorithm} (md5 or sha256)`);
  const input = await readableFile(run.data, run.caller, pathOf(run.values.input, 'File'));
  const hash = createHash(algorithm);
  await readAll(run, input, (chunk) => hash.update(chunk));
  const name = baseName(input.path);
  const path = output(run, `${name}.${algorithm}`);
  await createFile(run.data, run.caller, path, `${hash.digest('hex')}  ${name}\n`);
  return [path];
};

/** Fetches an http(s) URL (SSRF-guarded, size-limited) into the result folder. */
const urlImport: Executor = async (run) => {
  const address = typeof run.values.address === 'string' ? run.values.address.trim() : '';
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new StepError(`"${address}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new StepError('only http and https URLs can be imported');
  const given = typeof run.values['file-name'] === 'string' ? run.values['file-name'].trim() : '';
  const name = given || decodeURIComponent(url.pathname.split('/').filter(Boolean).pop() ?? '') || url.hostname;
  const path = output(run, name);
  const response = await outboundGet(url, { allowPrivateNetworks: run.urlImport.allowPrivateNetworks, headersTimeoutMs: 60_000, bodyTimeoutMs: 60_000, signal: run.signal });
  try {
    if (response.statusCode < 200 || response.statusCode >= 300) {
      response.body.resume();
      throw new StepError(`the source answered HTTP ${response.statusCode}`);
    }
    const limited = byteLimit(run.urlImport.maxBytes, () => new StepError(`the source is larger than ${run.urlImport.maxBytes} bytes`));
    const passing = new Transform({ transform: (chunk, _encoding, callback) => callback(null, chunk) });
    const piping = pipeline(response.body, limited, passing);
    const [created] = await Promise.all([createFile(run.data, run.caller, path, passing), piping]);
    return [created.path];
  } finally {
    await response.close();
  }
};

/** Executors by the key tools name in `tools.executor`. */
export const executors: Record<string, Executor> = {
  'word-count': wordCount,
  concatenate,
  checksum,
  'url-import': urlImport,
};

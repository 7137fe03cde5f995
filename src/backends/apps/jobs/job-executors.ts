// The embedded executor's tools: each runs one step of a built-in app in-process, reading
// its inputs from the data store and writing its outputs into the result folder, always as the
// user who launched the job (their permissions decide what it may read and write).
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { baseName, joinDataPath } from '../../../common/data-path.ts';
import { createFile, readableFile, type DataObject } from '../../data-info/index.ts';
import { StepError, type Executor, type StepRun } from './job-step.ts';
import { importUrl } from './url-import.ts';

/** A path value as clients send it: a string, or `{path}`. */
export function pathOf(value: unknown, what: string): string {
  const path =
    typeof value === 'string'
      ? value
      : typeof value === 'object' && value !== null
        ? (value as { path?: unknown }).path
        : undefined;
  if (typeof path !== 'string' || path === '') throw new StepError(`${what} needs a path`);
  return path;
}

function pathsOf(value: unknown, what: string): string[] {
  const list = Array.isArray(value)
    ? value
    : value === undefined || value === null || value === ''
      ? []
      : [value];
  if (list.length === 0) throw new StepError(`${what} needs at least one file`);
  return list.map((item) => pathOf(item, what));
}

async function readAll(
  run: StepRun,
  object: DataObject,
  consume: (chunk: Buffer) => void,
): Promise<void> {
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
  for (const path of pathsOf(run.values.inputs, 'Files to join'))
    inputs.push(await readableFile(run.data, run.caller, path));
  const name =
    typeof run.values.output === 'string' && run.values.output.trim() !== ''
      ? run.values.output.trim()
      : 'concatenated.txt';
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
  const algorithm =
    typeof run.values.algorithm === 'string' && run.values.algorithm !== ''
      ? run.values.algorithm.toLowerCase()
      : 'md5';
  if (algorithm !== 'md5' && algorithm !== 'sha256')
    throw new StepError(`unknown algorithm ${algorithm} (md5 or sha256)`);
  const input = await readableFile(run.data, run.caller, pathOf(run.values.input, 'File'));
  const hash = createHash(algorithm);
  await readAll(run, input, (chunk) => hash.update(chunk));
  const name = baseName(input.path);
  const path = output(run, `${name}.${algorithm}`);
  await createFile(run.data, run.caller, path, `${hash.digest('hex')}  ${name}\n`);
  return [path];
};

/** Executors by the key tools name in `tools.executor`. */
export const executorsByTool: Record<string, Executor> = {
  'word-count': wordCount,
  concatenate,
  checksum,
  'url-import': importUrl,
};

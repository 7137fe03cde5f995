// Uploading what a sandboxed step leaves: every regular file and folder of its working directory
// goes into the analysis's result folder under the same relative path, written as the user who
// launched the job; its logs go to `logs/step-<n>-stdout.txt`, `-stderr.txt` and
// `-exit-status.json`. Symbolic links and special files are skipped: a link made inside the
// sandbox would point at this host's files once read from outside it.
import { createReadStream } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { joinDataPath } from '../../../common/data-path.ts';
import { createFile, createFolders, replaceContent, requireAccess } from '../../data-info/index.ts';
import { GatewayError } from '../../../common/errors.ts';
import { StepError, type StepRun } from './job-step.ts';
import { logsFolder, stepLogNames } from './step-logs.ts';

/** The data path of `relative` (a path with `/`) below `folder`, each segment checked. */
export const dataPathBelow = (folder: string, relative: string): string =>
  relative
    .split('/')
    .filter((segment) => segment !== '')
    .reduce((parent, segment) => joinDataPath(parent, segment, 'name'), folder);

/**
 * Uploads one file. A name already in the result folder fails the step, unless `replace` (an
 * interactive session saving its work again): then the file there gets the new bytes, if the user
 * may write it.
 */
async function upload(
  run: StepRun,
  host: string,
  dataPath: string,
  replace = false,
): Promise<void> {
  const bytes = createReadStream(host);
  try {
    await createFile(run.data, run.caller, dataPath, bytes);
  } catch (error) {
    if (!(error instanceof GatewayError && error.errorCode === 'ERR_EXISTS')) throw error;
    if (!replace) throw new StepError(`the result folder already holds ${dataPath}`);
    const existing = await run.data.existing(dataPath);
    await requireAccess(run.data, run.caller, existing, 'write');
    if (existing.type !== 'file')
      throw new StepError(`the result folder holds a folder where ${dataPath} would go`);
    await replaceContent(run.data, existing, (id) =>
      run.data.blobs.write(id, createReadStream(host)),
    );
  } finally {
    // Refused before reading (the name taken, say), the file would stay open.
    bytes.destroy();
  }
}

/**
 * Uploads the working directory's files, adding the data path of each one written to `written`;
 * `replace` as upload's.
 */
export async function uploadOutputs(
  run: StepRun,
  workDir: string,
  written: string[],
  replace = false,
): Promise<void> {
  const walk = async (hostFolder: string, dataFolder: string): Promise<void> => {
    const entries = await readdir(hostFolder, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const host = path.join(hostFolder, entry.name);
      const info = await lstat(host);
      const target = joinDataPath(dataFolder, entry.name, 'name');
      if (info.isDirectory()) {
        await createFolders(run.data, run.caller, [target]);
        await walk(host, target);
      } else if (info.isFile()) {
        await upload(run, host, target, replace);
        written.push(target);
      }
    }
  };
  await walk(workDir, run.resultFolder);
}

/**
 * Uploads the engine's log files of step `number` into `logs/` (step-logs.ts names them), and
 * marks the run as having left its logs; answers their data paths.
 */
export async function uploadLogs(run: StepRun, logDir: string, number: number): Promise<string[]> {
  const logs = await logsFolder(run);
  const names = stepLogNames(number);
  const written: string[] = [];
  for (const [file, name] of [
    ['stdout', names.stdout],
    ['stderr', names.stderr],
    ['exit-status', names.exitStatus],
  ] as const) {
    const host = path.join(logDir, file);
    const info = await lstat(host).catch(() => undefined);
    if (!info?.isFile()) continue;
    const target = joinDataPath(logs, name, 'name');
    await upload(run, host, target);
    written.push(target);
  }
  run.logsLeft = true;
  return written;
}

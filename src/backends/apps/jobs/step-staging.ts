// Staging a sandboxed step's inputs: each file a file parameter names is copied out of the data
// store, read as the user who launched the job (their permissions decide), into the step's
// `inputs` folder, which the sandbox mounts read-only at `/inputs`. A folder parameter brings the
// folder and everything below it. The step's arguments name the staged copies as the sandbox sees
// them. Staged again while an interactive step runs (download-input-files), each copy replaces
// the one before by a rename, so the running program never finds a staged file missing or half
// written; what is no longer staged is removed afterwards.
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { baseName } from '../../../common/data-path.ts';
import { readableFile, readableTree, type DataObject } from '../../data-info/index.ts';
import { pathParameterTypes, type AppParameter } from '../shared/index.ts';
import { pathOf } from './job-executors.ts';
import { StepError, type StepRun } from './job-step.ts';

/** Where the sandbox mounts the inputs folder. */
export const inputsMountPoint = '/inputs';

export class InputStager {
  private readonly taken = new Set<string>();
  /** Host paths this stager wrote (files and folders), and the folders above them. */
  private readonly written = new Set<string>();

  private readonly run: StepRun;
  readonly folder: string;

  constructor(
    run: StepRun,
    /** The host folder staged inputs go to. */
    folder: string,
  ) {
    this.run = run;
    this.folder = folder;
  }

  /**
   * A free place in the inputs folder for `name` (a second `x.txt` goes to `2/x.txt`): its host
   * path and its path in the sandbox.
   */
  private async placeFor(name: string): Promise<{ host: string; sandbox: string }> {
    for (let round = 1; ; round += 1) {
      const relative = round === 1 ? name : `${round}/${name}`;
      if (!this.taken.has(relative)) {
        this.taken.add(relative);
        const host = path.join(this.folder, ...relative.split('/'));
        await this.folderAt(path.dirname(host));
        return { host, sandbox: path.posix.join(inputsMountPoint, relative) };
      }
    }
  }

  /** A folder made (if need be) and kept, with those above it up to the inputs folder. */
  private async folderAt(folder: string): Promise<void> {
    await mkdir(folder, { recursive: true });
    for (let above = folder; above.startsWith(this.folder + path.sep); above = path.dirname(above))
      this.written.add(above);
  }

  /** The object's bytes written beside `target`, then renamed over it. */
  private async copy(object: DataObject, target: string): Promise<void> {
    if (this.run.signal.aborted) throw new StepError('stopped');
    const blob = await this.run.data.content(object);
    const partial = path.join(path.dirname(target), `.staging-${randomUUID()}`);
    try {
      await pipeline(blob.stream(), createWriteStream(partial, { flags: 'wx', mode: 0o444 }), {
        signal: this.run.signal,
      });
      await rename(partial, target);
      this.written.add(target);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    } finally {
      await blob.close();
    }
  }

  /**
   * Removes what the inputs folder holds that this stager did not write: after staging again,
   * the files and folders no longer among the inputs (or no longer in a staged folder).
   */
  async removeUnstaged(): Promise<void> {
    const entries = await readdir(this.folder, { recursive: true });
    // Deepest first, so a folder is looked at after what it held.
    for (const entry of entries.sort((a, b) => b.length - a.length)) {
      const host = path.join(this.folder, entry);
      if (!this.written.has(host)) await rm(host, { recursive: true, force: true });
    }
  }

  private async stageFile(dataPath: string): Promise<string> {
    const object = await readableFile(this.run.data, this.run.caller, dataPath);
    const place = await this.placeFor(baseName(object.path));
    await this.copy(object, place.host);
    return place.sandbox;
  }

  private async stageFolder(dataPath: string): Promise<string> {
    const { folder, below } = await readableTree(this.run.data, this.run.caller, dataPath);
    const place = await this.placeFor(baseName(folder.path));
    await this.folderAt(place.host);
    for (const object of below) {
      const inside = path.join(place.host, ...object.path.slice(folder.path.length + 1).split('/'));
      if (object.type === 'dir') await this.folderAt(inside);
      else {
        await this.folderAt(path.dirname(inside));
        await this.copy(object, inside);
      }
    }
    return place.sandbox;
  }

  /**
   * The value a parameter gives the step: for a file parameter, the staged copies' paths (as the
   * sandbox sees them); anything else unchanged.
   */
  async stage(parameter: AppParameter, value: unknown): Promise<unknown> {
    if (!pathParameterTypes.includes(parameter.type)) return value;
    const label = parameter.label ?? parameter.name ?? parameter.id;
    if (parameter.type === 'FolderInput') return this.stageFolder(pathOf(value, label));
    if (parameter.type === 'FileInput') return this.stageFile(pathOf(value, label));
    const staged: string[] = [];
    for (const item of Array.isArray(value) ? value : [value])
      staged.push(await this.stageFile(pathOf(item, label)));
    return staged;
  }
}

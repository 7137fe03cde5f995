// What is wrong with a step's command before anything is spawned, said as the end of a reason
// (`could not start: its working directory /x is not a directory`).
import { stat } from 'node:fs/promises';
import { isAbsolute, normalize } from 'node:path';
import type { StepCommand } from './engine.ts';

/** The limits every step has (`cpus` and `processes` are the container engine's, optional). */
const limitNames = ['wallClockSeconds', 'cpuSeconds', 'memoryBytes', 'outputBytes'] as const;

/**
 * Paths the sandbox mounts itself, where a read-only path would be hidden or misplaced, and `/`,
 * which would show the whole host.
 */
const ownMountPoint = /^\/((work|proc|dev)(\/|$)|$)/;

/** What is wrong with a command before anything is spawned, in the words of a reason. */
export async function commandProblem(command: StepCommand): Promise<string | undefined> {
  if (command.argv.length === 0 || !command.argv[0]) return 'it names no program';
  if (command.containerImage !== undefined)
    return `it names the container image ${command.containerImage}, which only a container runtime runs (CONTAINER_RUNTIME)`;
  for (const name of limitNames) {
    const value = command.limits[name];
    if (!Number.isFinite(value) || value <= 0) return `its limit ${name} is not a positive number`;
  }
  const isDirectory = (path: string) =>
    stat(path).then(
      (s) => s.isDirectory(),
      () => false,
    );
  if (!isAbsolute(command.workDir) || !(await isDirectory(command.workDir))) {
    return `its working directory ${command.workDir} is not a directory`;
  }
  if (
    command.rootImage &&
    (!isAbsolute(command.rootImage) || !(await isDirectory(command.rootImage)))
  ) {
    return `its root image ${command.rootImage} is not an unpacked image`;
  }
  for (const { host, sandbox } of command.mounts ?? []) {
    if (!isAbsolute(sandbox) || ownMountPoint.test(normalize(sandbox)))
      return `its mount point ${sandbox} is not an absolute path outside the sandbox's own /, /work, /proc and /dev`;
    const exists = await stat(host).then(
      () => true,
      () => false,
    );
    if (!isAbsolute(host) || !exists) return `its mounted path ${host} does not exist`;
  }
  for (const path of command.readOnly ?? []) {
    if (ownMountPoint.test(normalize(path)))
      return `its read-only path ${path} would cover the sandbox's own /, /work, /proc or /dev`;
    const exists = await stat(path).then(
      () => true,
      () => false,
    );
    if (!isAbsolute(path) || !exists) return `its read-only path ${path} does not exist`;
  }
  return undefined;
}

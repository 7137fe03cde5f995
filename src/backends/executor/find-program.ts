// Where a program is: an absolute path as given, or the first executable of that name on PATH.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

export async function findProgram(name: string): Promise<string | undefined> {
  const candidates = name.includes('/')
    ? [name]
    : (process.env.PATH ?? '/usr/bin:/bin').split(delimiter).map((dir) => join(dir, name));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not there, or not executable
    }
  }
  return undefined;
}

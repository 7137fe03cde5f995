// SQLite for tests: a data folder's database copied from a migrated template file, made once per
// migrations digest, instead of migrating each test's fresh database (≈ 0.5 s a gateway).
import { copyFileSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStore, sqliteFileName } from '../../src/store/database.ts';
import { migrationsDigest } from './migrations-digest.ts';

/** Where the template for the current migrations lives, shared by every test process. */
const templateFile = path.join(tmpdir(), `gateway-template-${migrationsDigest}.sqlite`);

let template: Promise<string> | undefined;

/**
 * Migrates a database in a folder of its own and renames it into place: concurrent processes may
 * each make one, and the last rename wins, but a copy never sees a half-made template.
 */
async function makeTemplate(): Promise<string> {
  if (existsSync(templateFile)) return templateFile;
  const dir = mkdtempSync(path.join(tmpdir(), 'gateway-template-'));
  try {
    // Closing checkpoints the write-ahead log into the file, so the file alone is the database.
    await (await openStore({ dataDir: dir })).close();
    renameSync(path.join(dir, sqliteFileName), templateFile);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return templateFile;
}

/** Puts a database migrated to the latest into `dataDir`, where the store opens its SQLite file. */
export async function copySqliteTemplate(dataDir: string): Promise<void> {
  template ??= makeTemplate();
  copyFileSync(await template, path.join(dataDir, sqliteFileName));
}

// A digest of the migrations' sources, naming the migrated templates tests clone their databases
// from (PostgreSQL's template database, SQLite's template file): a changed migration names another.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

const folder = new URL('../../src/store/migrations/', import.meta.url);

/** Sixteen hex digits of SHA-256 over every migration file's name and text, in name order. */
export const migrationsDigest: string = (() => {
  const hash = createHash('sha256');
  for (const name of readdirSync(folder).sort()) {
    hash.update(`${name}\0`);
    hash.update(readFileSync(new URL(name, folder)));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
})();

// `npm start`: builds only when the sources changed since the last build, then runs the gateway
// in this same process (its arguments and signals are the gateway's own).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from './build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
try {
  build(root, { ifChanged: true });
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
await import(pathToFileURL(path.join(root, 'dist', 'main.js')).href);

// `npm run lint`: ESLint, Prettier's check and dependency-cruiser's layer rules, run side by side
// (each is one busy process; one after the other they took ≈ 55 s on a loaded two-core machine, side
// by side ≈ half); with --typecheck (`npm test`), `npm run typecheck` beside them as well. Each
// tool's output is printed whole, in this order; the run fails if any fails. ESLint, Prettier,
// dependency-cruiser and tsc keep caches in node_modules/.cache, so a second run reads only
// changed files.
// Plain JavaScript: it runs before anything is compiled.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCollected } from './run-collected.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const cache = (name) => path.join(root, 'node_modules', '.cache', name);

const tools = [
  [
    bin('eslint'),
    ['.', '--cache', '--cache-strategy', 'content', '--cache-location', cache('eslint/')],
  ],
  [
    bin('prettier'),
    [
      '--check',
      '.',
      '--cache',
      '--cache-strategy',
      'content',
      '--cache-location',
      cache('prettier/.cache'),
    ],
  ],
  [
    bin('depcruise'),
    [
      'src',
      '--config',
      '.dependency-cruiser.cjs',
      '--cache',
      cache('dependency-cruiser'),
      '--cache-strategy',
      'content',
    ],
  ],
  ...(process.argv.includes('--typecheck') ? [['npm', ['run', '-s', 'typecheck']]] : []),
];

const runs = tools.map(([command, args]) => runCollected(command, args, { cwd: root }));

let failed = false;
for (const { output, code } of await Promise.all(runs)) {
  process.stdout.write(output);
  if (code !== 0) failed = true;
}
process.exit(failed ? 1 : 0);

// Compiles src/ to dist/ with tsc, then bundles dist/main.js with esbuild (our modules and most
// packages in one file: a start loads one module instead of ≈ 1,500, bench/README.md "Start-up"),
// and with `--if-changed` only when the sources differ from the last build's: `npm start` and
// `npm ci` (prepare) use that so a start does not pay for a build.
// Plain JavaScript: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the build reads besides node_modules: a change to any of these calls for a new build. */
const inputs = ['src', 'tsconfig.json', 'tsconfig.build.json'];
/** Written after a successful build: the digest of the inputs that build compiled. */
const stampName = '.source-digest';

/** A digest of the build inputs' names and contents (about 10 ms for the gateway's sources). */
export function sourceDigest(root) {
  const hash = createHash('sha256');
  for (const input of inputs) {
    const full = path.join(root, input);
    if (!existsSync(full)) continue;
    const files = statSync(full).isDirectory()
      ? readdirSync(full, { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isFile())
          .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name))
      : [full];
    for (const file of files.sort()) {
      hash.update(path.relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
    }
  }
  return hash.digest('hex');
}

/**
 * Builds `root` (its tsconfig.build.json, into dist/) unless `ifChanged` and dist/ already holds
 * a build of the current sources. Answers whether it built; throws when tsc fails.
 */
export function build(root, { ifChanged = false, log = (line) => console.error(line) } = {}) {
  const stamp = path.join(root, 'dist', stampName);
  const digest = sourceDigest(root);
  if (ifChanged && existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === digest) return false;
  log('building dist/: it holds no build of the current sources (tsc -p tsconfig.build.json)');
  // tsc writes dist/ even when it reports errors: until it succeeds, no build counts as current.
  rmSync(stamp, { force: true });
  const tsc = createRequire(path.join(root, 'package.json')).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0)
    throw new Error(`build failed (tsc exit ${result.status ?? result.signal})`);
  bundle(root);
  writeFileSync(stamp, `${digest}\n`);
  return true;
}

/**
 * Packages left out of the bundle, loaded from node_modules as before: native code
 * (better-sqlite3), those that read their own files at run time (pino's worker transports,
 * @fastify/swagger's package.json, @fastify/swagger-ui's page), and those imported only when their
 * setting is on (import() of a bundled package would put it in the file every start parses).
 */
export const unbundled = [
  'better-sqlite3',
  'pino',
  'thread-stream',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  '@aws-sdk/*',
  'pg',
  'pg-native',
  'amqplib',
  'nodemailer',
  'ioredis',
];

/**
 * Rewrites dist/main.js (tsc's output, which imports the rest of dist/) as one ES module holding
 * it, the rest of dist/ and every package but `unbundled`. Whitespace and comments are left out
 * (a bundle with them holds ≈ 17 MiB more when loaded); names are kept, so stack traces still name
 * functions, and dist/main.js.map maps a position back (`node --enable-source-maps`).
 */
function bundle(root) {
  const entry = path.join(root, 'dist', 'main.js');
  if (!existsSync(entry)) return;
  const esbuild = createRequire(path.join(root, 'package.json'))('esbuild');
  esbuild.buildSync({
    entryPoints: [entry],
    outfile: entry,
    allowOverwrite: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: unbundled,
    minifyWhitespace: true,
    legalComments: 'none',
    sourcemap: 'linked',
    // The CommonJS packages inside call require() for Node's own modules and for `unbundled`.
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    build(root, { ifChanged: process.argv.includes('--if-changed') });
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}

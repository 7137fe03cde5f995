// Compiles src/ to dist/ with tsc, then bundles dist/main.js with esbuild (our modules and most
// packages in ≈ 50 modules, most under 400 kB: a start loads those instead of ≈ 1,500,
// bench/README.md "Start-up" and "Idle RSS"),
// and with `--if-changed` only when the sources differ from the last build's: `npm start` and
// `npm ci` (prepare) use that so a start does not pay for a build.
// Plain JavaScript: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
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
  // Tracing (src/tracing.ts): imported only when it is configured, and its instrumentations must
  // patch the very pg, ioredis, amqplib and AWS SDK the gateway loads from node_modules.
  '@opentelemetry/*',
  '@fastify/otel',
];

/**
 * The most bundled code (bytes of output) one part of the bundle holds. V8 compiles a module's top
 * level in one go, in a parser and bytecode workspace (its "zone") of ≈ 10 bytes of malloc per byte
 * of top-level source, freed when the compile ends; glibc keeps that memory resident whenever
 * anything still in use lands above it in the heap, and V8 itself allocates such things during the
 * compile. One 4 MB module took a 19 MiB zone, and whether 12 MiB of it stayed resident in an idle
 * gateway changed with unrelated edits of the sources (bench/README.md, "Idle RSS"). Modules of at
 * most this size keep each compile's zone to a few MiB, which the next compile reuses.
 */
const MODULE_BYTES = 400_000;

/**
 * Rewrites dist/main.js (tsc's output, which imports the rest of dist/) as an ES module that, with
 * the `chunk-*.js` modules beside it, holds it, the rest of dist/ and every package but `unbundled`.
 * Whitespace and comments are left out (a bundle with them holds ≈ 17 MiB more when loaded); names
 * are kept, so stack traces still name functions, and each module's .map maps a position back
 * (`node --enable-source-maps`). The modules are cut by package and by folder of dist/ into parts of
 * at most MODULE_BYTES (a larger package is a part of its own: undici, 750 kB, but CommonJS, whose
 * modules V8 compiles one by one when first required). esbuild gives each part an entry point, so
 * that code reached by the same entry points shares a chunk; the part entries themselves (files of
 * a temporary folder importing their modules) are removed afterwards.
 */
function bundle(root) {
  const dist = path.join(root, 'dist');
  const entry = path.join(dist, 'main.js');
  if (!existsSync(entry)) return;
  const esbuild = createRequire(path.join(root, 'package.json'))('esbuild');
  const common = {
    bundle: true,
    platform: 'node',
    format: 'esm',
    // The oldest Node the project supports (package.json's engines): what it runs is left as written.
    target: 'node22.18',
    external: unbundled,
    minifyWhitespace: true,
    legalComments: 'none',
    logLevel: 'warning',
    absWorkingDir: root,
  };
  // Each module's bytes in a single bundle, by part.
  const single = esbuild.buildSync({
    ...common,
    entryPoints: [entry],
    write: false,
    metafile: true,
  });
  const parts = new Map();
  for (const [input, { bytesInOutput }] of Object.entries(
    Object.values(single.metafile.outputs)[0].inputs,
  )) {
    const file = path.resolve(root, input);
    const name = partOf(path.relative(dist, file));
    if (!name) continue;
    const part = parts.get(name) ?? { bytes: 0, files: [] };
    part.bytes += bytesInOutput;
    part.files.push(file);
    parts.set(name, part);
  }
  const bins = [];
  for (const part of [...parts.values()].sort((a, b) => b.bytes - a.bytes)) {
    let bin = bins.find((candidate) => candidate.bytes + part.bytes <= MODULE_BYTES);
    if (!bin) bins.push((bin = { bytes: 0, files: [] }));
    bin.bytes += part.bytes;
    bin.files.push(...part.files);
  }
  for (const stale of readdirSync(dist).filter((name) =>
    /^(chunk|part)-.*\.js(\.map)?$/.test(name),
  ))
    rmSync(path.join(dist, stale));
  const startHeap = path.join(dist, 'start-heap.js');
  const partsDir = mkdtempSync(path.join(tmpdir(), 'gateway-bundle-parts-'));
  const result = esbuild.buildSync({
    ...common,
    entryPoints: [
      { in: entry, out: 'main' },
      // Its own entry, so that it is a chunk of its own, which main.js then imports first.
      ...(existsSync(startHeap) ? [{ in: startHeap, out: 'start-heap' }] : []),
      ...bins.map((bin, index) => {
        const file = path.join(partsDir, `part-${index}.js`);
        const imports = bin.files.filter((name) => !name.endsWith('.json'));
        writeFileSync(file, imports.map((name) => `import ${JSON.stringify(name)};\n`).join(''));
        return { in: file, out: `part-${index}` };
      }),
    ],
    outdir: dist,
    allowOverwrite: true,
    splitting: true,
    chunkNames: 'chunk-[hash]',
    sourcemap: 'linked',
    metafile: true,
    // A part's import of a package file marked free of side effects adds nothing: that file goes
    // where main.js's own imports put it.
    logOverride: { 'ignored-bare-import': 'silent' },
    // The CommonJS packages inside call require() for Node's own modules and for `unbundled`.
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
  });
  rmSync(partsDir, { recursive: true });
  for (const name of readdirSync(dist).filter((name) => /^part-.*\.js(\.map)?$/.test(name)))
    rmSync(path.join(dist, name));
  if (existsSync(startHeap)) firstImport(result.metafile, root, startHeap);
}

/** A bundled file's part: its package, or its folder of dist/ (none for main.js, start-heap.js). */
function partOf(relative) {
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(relative);
  if (inPackage) return `package ${inPackage[1]}`;
  if (relative === 'main.js' || relative === 'start-heap.js') return undefined;
  const folders = relative.split('/').slice(0, -1);
  return `dist/${folders.slice(0, folders[0] === 'backends' ? 2 : 1).join('/')}`;
}

/**
 * esbuild orders the imports of chunks by its own reckoning, not by the source's import order, so
 * main.js is rewritten to import the chunk holding `module` before any other: src/start-heap.ts must
 * run before the rest allocates (it imports nothing but node:v8, so it can run first).
 */
function firstImport(metafile, root, module) {
  const chunk = Object.entries(metafile.outputs).find(
    ([output, { entryPoint, inputs }]) =>
      !entryPoint &&
      output.endsWith('.js') &&
      Object.keys(inputs).some((input) => path.resolve(root, input) === module),
  );
  if (!chunk) throw new Error(`bundle: no chunk holds ${module}`);
  const name = path.basename(chunk[0]);
  const main = path.join(path.dirname(module), 'main.js');
  const text = readFileSync(main, 'utf8');
  const statement = new RegExp(`import(\\{[^}]*\\}from)?"\\./${name.replace('.', '\\.')}";`).exec(
    text,
  );
  if (!statement) throw new Error(`bundle: main.js does not import ${name}`);
  // Moved within the first line after the banner: the source map's lines stay right.
  const rest = text.replace(statement[0], '');
  const afterBanner = rest.indexOf('\n') + 1;
  writeFileSync(main, rest.slice(0, afterBanner) + statement[0] + rest.slice(afterBanner));
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

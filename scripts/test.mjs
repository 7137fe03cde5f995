// Runs the test files given on the command line (`npm test`, `npm run test:runtime`) with Node's
// test runner, in a few processes that each run a group of files one after another
// (`--test-isolation=none`), instead of one process per file: a process spends ≈ 1 s of CPU loading
// the gateway's modules and warming up before its first test, which over 160 files was a third of
// the suite's CPU. Groups run several at a time, more than there are CPUs, since most tests wait on
// a database, a child process or the network. A file that changes what is global to its process
// (OpenTelemetry's tracer provider and instrumentations) says so with a line starting
// `// test: own process` and runs alone. `--lint` runs `scripts/lint.mjs --typecheck` beside the
// tests. The exit status is 1 when a test, a group or the lint failed.
//
// Files are packed into groups by their duration in the last run on this machine
// (node_modules/.cache/platform-gateway/test-times.json), else by their size, and the longest
// groups start first. Each group's output (the spec reporter's) is printed when the group ends;
// then the totals and the ten slowest files. Node's compile cache (NODE_COMPILE_CACHE, under
// node_modules/.cache) keeps the modules' compiled code, type-stripped TypeScript included, for
// every process of the run and the next ones.
// Plain JavaScript: it runs before anything is compiled.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCollected } from './run-collected.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cacheDir = path.join(root, 'node_modules', '.cache', 'platform-gateway');
const timesFile = path.join(cacheDir, 'test-times.json');
const reporter = path.join(root, 'scripts', 'test-file-reporter.mjs');

/**
 * Processes at a time (TEST_CONCURRENCY overrides): one and a half for each CPU, so that tests'
 * waits overlap. More costs more than it overlaps: on two CPUs the whole suite took 501 s with six
 * at a time, 451 s with three and 527 s with two, and a CPU-bound part 119–123 s with six against
 * 69–99 s with three (each process's threads contend for the CPUs).
 */
const slots =
  concurrency(process.env.TEST_CONCURRENCY) ??
  Math.max(2, Math.round(availableParallelism() * 1.5));
/** Groups per slot: enough that the last to end does not leave the other slots idle for long. */
const groupsPerSlot = 3;

/** TEST_CONCURRENCY when set: a whole number from 1 (else the run stops, saying so). */
function concurrency(value) {
  if (value === undefined || value === '') return undefined;
  if (/^[1-9]\d*$/.test(value)) return Number(value);
  console.error(`TEST_CONCURRENCY must be a whole number of processes from 1, not "${value}"`);
  process.exit(2);
}

const args = process.argv.slice(2);
const withLint = args.includes('--lint');
const files = args.filter((arg) => !arg.startsWith('--'));
if (files.length === 0) {
  console.error('usage: node scripts/test.mjs [--lint] <test files…>');
  process.exit(2);
}

/** Node 22 knows the flag by its experimental name only. */
const isolationFlag =
  Number(process.versions.node.split('.')[0]) >= 23
    ? '--test-isolation'
    : '--experimental-test-isolation';

const missing = files.filter((file) => !existsSync(file));
if (missing.length) {
  console.error(`no such test file: ${missing.join(', ')}`);
  process.exit(2);
}

const ownProcess = (file) => /^\/\/ test: own process/m.test(readFileSync(file, 'utf8'));

/** The last run's milliseconds per file, when there was one. */
function lastTimes() {
  try {
    return JSON.parse(readFileSync(timesFile, 'utf8'));
  } catch {
    return {};
  }
}

/**
 * The files in groups of about equal weight (the longest first into the lightest group), heaviest
 * group first; a file that needs its own process is a group of its own. `times`: milliseconds
 * per file from the last run.
 */
function groupsOf(files, times) {
  // Without a time, a file's size stands in, scaled to the known times (≈ 1 ms per 10 bytes else).
  const known = files.filter((file) => times[file] !== undefined);
  const msPerByte = known.length
    ? known.reduce((sum, file) => sum + times[file], 0) /
      known.reduce((sum, file) => sum + statSync(file).size, 0)
    : 0.1;
  const weight = (file) => times[file] ?? statSync(file).size * msPerByte;
  const alone = files.filter(ownProcess);
  const shared = files.filter((file) => !alone.includes(file));
  const count = Math.min(shared.length, slots * groupsPerSlot);
  const groups = Array.from({ length: count }, () => ({ files: [], weight: 0 }));
  for (const file of [...shared].sort((a, b) => weight(b) - weight(a))) {
    const lightest = groups.reduce((min, group) => (group.weight < min.weight ? group : min));
    lightest.files.push(file);
    lightest.weight += weight(file);
  }
  for (const file of alone) groups.push({ files: [file], weight: weight(file), alone: true });
  return groups.filter((group) => group.files.length).sort((a, b) => b.weight - a.weight);
}

const started = performance.now();
const secondsSince = (start) => ((performance.now() - start) / 1000).toFixed(1);
const workDir = mkdtempSync(path.join(tmpdir(), 'test-run-'));
mkdirSync(cacheDir, { recursive: true });
const env = {
  ...process.env,
  NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? path.join(cacheDir, 'node-compile-cache'),
  // The gateways the tests build hold every answer against their OpenAPI document
  // (src/http/contract-check.ts); CONTRACT_CHECK=0 turns it off.
  CONTRACT_CHECK: process.env.CONTRACT_CHECK ?? '1',
};

const times = lastTimes();
const groups = groupsOf(files, times);
const results = [];
const jobs = groups.map((group, index) => async () => {
  const summary = path.join(workDir, `group-${index}.json`);
  const isolation = group.alone ? 'process' : 'none';
  const groupStarted = performance.now();
  const result = await runCollected(
    process.execPath,
    [
      '--test',
      `${isolationFlag}=${isolation}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${reporter}`,
      `--test-reporter-destination=${summary}`,
      ...group.files,
    ],
    { cwd: root, env },
  );
  let files = {};
  try {
    files = JSON.parse(readFileSync(summary, 'utf8'));
  } catch {
    // The group died before its reporter wrote: its status says so.
  }
  const header = `── group ${index + 1}/${groups.length} (${group.files.length} files, ${isolation === 'none' ? 'one process' : 'own process'}, ${secondsSince(groupStarted)} s)`;
  process.stdout.write(`${header}\n${result.output}\n`);
  results.push({ group, code: result.code, signal: result.signal, files });
});
if (withLint)
  jobs.unshift(async () => {
    const lintStarted = performance.now();
    const result = await runCollected(process.execPath, ['scripts/lint.mjs', '--typecheck'], {
      cwd: root,
      env,
    });
    process.stdout.write(
      `── lint and type-check (${secondsSince(lintStarted)} s)\n${result.output}\n`,
    );
    results.push({ lint: true, code: result.code, signal: result.signal });
  });

// A pool of `slots` workers taking the next job in turn.
await Promise.all(
  Array.from({ length: Math.min(slots, jobs.length) }, async () => {
    for (let job = jobs.shift(); job; job = jobs.shift()) await job();
  }),
);
rmSync(workDir, { recursive: true, force: true });

const perFile = Object.assign({}, ...results.map((result) => result.files ?? {}));
const totals = { tests: 0, pass: 0, fail: 0, skipped: 0, todo: 0, cancelled: 0 };
for (const file of Object.values(perFile))
  for (const key of Object.keys(totals)) totals[key] += file[key] ?? 0;
const failedRuns = results.filter((result) => result.code !== 0);
const seconds = secondsSince(started);

writeFileSync(
  timesFile,
  `${JSON.stringify({ ...times, ...Object.fromEntries(Object.entries(perFile).map(([file, row]) => [file, Math.round(row.ms)])) }, null, 1)}\n`,
);

const slowest = Object.entries(perFile)
  .sort(([, a], [, b]) => b.ms - a.ms)
  .slice(0, 10)
  .map(
    ([file, row]) =>
      `  ${(row.ms / 1000).toFixed(1).padStart(6)} s ${String(row.tests).padStart(4)} tests  ${file}`,
  );
console.log(`slowest files:\n${slowest.join('\n')}`);
console.log(
  `${Object.keys(perFile).length} files in ${groups.length} groups, ${slots} at a time: ` +
    `${totals.tests} tests, ${totals.pass} passed, ${totals.fail} failed, ${totals.cancelled} cancelled, ` +
    `${totals.skipped} skipped, ${totals.todo} todo; ${seconds} s`,
);
for (const result of failedRuns)
  console.log(
    result.lint
      ? `FAILED: lint and type-check (exit ${result.code})`
      : `FAILED: group of ${result.group.files.join(', ')} (exit ${result.signal ?? result.code})`,
  );
process.exitCode = failedRuns.length || totals.fail || totals.cancelled ? 1 : 0;

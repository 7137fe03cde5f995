// `npm run reliability-report` (issue 45 item 9): writes docs/reliability.md from the runs
// themselves. It runs every test file that records what it tried (those importing
// test/support/reliability.ts: hostile inputs, forged tokens, guessed passwords, traversal paths,
// the authorization matrix, faults of the services the gateway depends on, crashes) with
// RELIABILITY_REPORT_DIR set, then reads the last soak's results (bench/results/soak-*.json; with
// `--soak` it runs `npm run soak` first), and writes the tables: what was tried, how much held,
// the load held, and what was lost (nothing, or the report says so). Exit status 1 when a test
// failed or something did not hold; the document is written either way, saying so.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Tried } from '../test/support/reliability.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const withSoak = process.argv.includes('--soak');

/**
 * The test files that record what they tried: those importing test/support/reliability.ts (by
 * `recordTried` or `tally`); the import, not a function's name, since a test may have a `tally` of
 * its own.
 */
function recordingFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'support' && entry.name !== 'fixtures')
        walk(relative);
      else if (
        entry.name.endsWith('.test.ts') &&
        /from '(?:\.\.\/)+support\/reliability\.ts'/.test(
          readFileSync(path.join(root, relative), 'utf8'),
        )
      )
        found.push(relative);
    }
  };
  walk('test');
  return found.sort();
}

const reportDir = mkdtempSync(path.join(tmpdir(), 'reliability-'));
const files = recordingFiles();
console.error(`reliability-report: running ${files.length} test files`);
const tests = spawnSync(process.execPath, ['scripts/test.mjs', ...files], {
  cwd: root,
  env: { ...process.env, RELIABILITY_REPORT_DIR: reportDir },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const testsPassed = tests.status === 0;

let soakPassed = true;
if (withSoak) {
  console.error('reliability-report: npm run soak');
  soakPassed =
    spawnSync(process.execPath, ['bench/soak.ts'], { cwd: root, stdio: 'inherit' }).status === 0;
}

const tried: Tried[] = readdirSync(reportDir)
  .filter((name) => name.endsWith('.jsonl'))
  .flatMap((name) =>
    readFileSync(path.join(reportDir, name), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Tried),
  );
rmSync(reportDir, { recursive: true, force: true });

/** What bench/soak.ts writes of a run. */
interface SoakReport {
  users: number;
  seconds: number;
  perMinute: number;
  burst: number;
  failures?: string[];
  rows: Record<string, string | number>[];
}

/** The last soak's results, if a soak has run here. */
function lastSoak(): { file: string; report: SoakReport } | undefined {
  const results = path.join(root, 'bench', 'results');
  const latest = readdirSync(results)
    .filter((name) => /^soak-.*\.json$/.test(name))
    .sort()
    .at(-1);
  return latest
    ? {
        file: `bench/results/${latest}`,
        report: JSON.parse(readFileSync(path.join(results, latest), 'utf8')),
      }
    : undefined;
}

/** The report's sections, in order; a section recorded by no test is left out. */
const areas: [string, string][] = [
  ['inputs', 'Hostile and generated inputs'],
  ['tokens', 'Tokens'],
  ['sign-in', 'Password guessing'],
  ['paths', 'Paths'],
  ['authorization', 'Authorization'],
  ['faults', 'Faults of the services the gateway depends on'],
  ['crashes', 'Crashes'],
];
// An area no section names still gets one: a test recording under a new name is never dropped.
for (const area of new Set(tried.map((entry) => entry.area)))
  if (!areas.some(([known]) => known === area)) areas.push([area, area]);

/**
 * One row of a section: a test's records on each engine it ran on, added up (each part keeps its
 * own counts, so that a part that did not hold is named).
 */
interface Row {
  area: string;
  what: string;
  file: string;
  parts: Tried[];
  tried: number;
  held: number;
}
const rows: Row[] = [];
for (const entry of tried) {
  let row = rows.find(
    (each) => each.area === entry.area && each.what === entry.what && each.file === entry.file,
  );
  if (!row) {
    row = { area: entry.area, what: entry.what, file: entry.file, parts: [], tried: 0, held: 0 };
    rows.push(row);
  }
  row.parts.push(entry);
  row.tried += entry.tried;
  row.held += entry.held;
}
// By file; within one, in the order its tests ran (the sort is stable).
rows.sort((a, b) => a.file.localeCompare(b.file));

const count = (value: number) => value.toLocaleString('en');
/** `all`, or the number held in bold. */
const heldOf = (row: { tried: number; held: number }) =>
  row.held === row.tried ? 'all' : `**${count(row.held)}**`;
/** What each part's note says, a part that did not hold with its own counts. */
function notesOf(row: Row): string {
  const notes = row.parts.map((part) => {
    const note = part.note ?? '';
    if (part.held === part.tried) return note;
    const counts = `**${count(part.held)} of ${count(part.tried)} held**`;
    return note ? `${note}: ${counts}` : counts;
  });
  return [...new Set(notes.filter(Boolean))].sort().join('; ');
}

const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
  cwd: root,
  encoding: 'utf8',
}).trim();
const held = tried.every((entry) => entry.held === entry.tried);
const soak = lastSoak();
/** When the soak ran, from its file's name (soak-2026-11-30T00-09-11-438Z.json). */
const soakRan = soak && /soak-(\d{4}-\d\d-\d\d)T(\d\d)-(\d\d)/.exec(soak.file);
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const inSection = (area: string) => rows.filter((row) => row.area === area);

const lines: string[] = [
  '# Reliability',
  '',
  '<!-- Written by `npm run reliability-report` (scripts/reliability-report.ts); edit that, not this. -->',
  '',
  'What the tests that attack the gateway, break what it depends on and kill it mid-write tried on',
  'their last run, and how much of it held; the load it held in the last soak; and what was lost',
  '(nothing, unless this page says otherwise). [SECURITY.md](../SECURITY.md) says which threat each',
  'test answers, and [operations](operations.md#faults-and-what-the-gateway-does) what an operator',
  'sees in each fault. Regenerate with `npm run reliability-report` (add `-- --soak` to run the soak',
  'first) where `npm test` runs: with DATABASE_URL and REDIS_URL set, and RabbitMQ and the job',
  'engines at hand ([development](development.md)); a test that cannot run skips, and its row is',
  'missing.',
  '',
  `Generated ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on commit ${commit}, Node ${process.version}, ` +
    `on SQLite${process.env.DATABASE_URL ? ' and PostgreSQL' : ''}${process.env.REDIS_URL ? ', with Redis' : ', without Redis'}. ` +
    `${files.length} test files that record what they try were run: ${testsPassed ? 'all passed' : '**some failed** (their output says which)'}; ` +
    `${held ? 'everything tried held' : '**something tried did not hold** (in bold below)'}.`,
  '',
  '| section | tests | cases tried | held |',
  '|---|---|---|---|',
];
for (const [area, title] of areas) {
  const section = inSection(area);
  if (section.length === 0) continue;
  const totals = {
    tried: sum(section.map((row) => row.tried)),
    held: sum(section.map((row) => row.held)),
  };
  lines.push(
    `| [${title}](#${title
      .toLowerCase()
      .replace(/[^a-z0-9 -]/g, '')
      .replace(/ /g, '-')}) | ${section.length} | ${count(totals.tried)} | ${heldOf(totals)} |`,
  );
}
lines.push(
  '',
  'In each section a row is one test: what it tried and what it requires, how many cases it tried',
  '(requests, passwords, operations, analyses: the row says which), and how many were answered as',
  'it requires ("all" when every one was). A test run on both databases is one row, its counts',
  'added up; its notes name the databases (sqlite, postgres). A test that fails stops at its first',
  'wrong answer, so its row counts what it tried up to there.',
  '',
);
for (const [area, title] of areas) {
  const section = inSection(area);
  if (section.length === 0) continue;
  lines.push(
    `## ${title}`,
    '',
    '| what was tried | cases | held | notes | test |',
    '|---|---|---|---|---|',
  );
  for (const row of section)
    lines.push(
      `| ${row.what} | ${count(row.tried)} | ${heldOf(row)} | ${notesOf(row)} | \`${row.file}\` |`,
    );
  lines.push('');
}
lines.push('## Load held', '');
if (soak) {
  const { report } = soak;
  lines.push(
    `\`npm run soak\` (${soak.file}${soakRan ? `, run ${soakRan[1]} ${soakRan[2]}:${soakRan[3]} UTC` : ''}): ${report.users} users for ${report.seconds} s, each sending`,
    `twice its limit (${report.perMinute} a minute, bucket of ${report.burst}), every fourth request a write, on one`,
    'gateway and on two sharing PostgreSQL, Redis and S3 (bench/README.md "Soak"). "worst user vs',
    'bucket": how far the user furthest off was from what a token bucket accepts of the requests it',
    'sent (±2 % allowed); "other/failed": any other status than 2xx and 429, or no answer. ' +
      `${report.failures?.length ? `**Failed:** ${report.failures.join('; ')}` : 'Every check held.'}`,
    '',
    '| mode | sent | accepted | refused (429) | 5xx | other/failed | worst user vs bucket | p50 / p99 ms | writes acked | read back intact |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...report.rows.map(
      (row) =>
        `| ${row.mode} | ${row.sent} | ${row.accepted} | ${row.refused} | ${row['5xx']} | ${row['other/failed']} | ${row['worst user vs bucket']} | ${row['p50 / p99 ms']} | ${row['writes acked']} | ${row['read back intact']} |`,
    ),
    '',
  );
} else lines.push('No soak has run here (`npm run soak`, or this script with `--soak`).', '');

const crashes = inSection('crashes');
const writes = rows.flatMap((row) =>
  row.parts.filter((part) => part.writes).map((part) => ({ row, writes: part.writes! })),
);
const acknowledged = sum(writes.map((each) => each.writes.acknowledged));
const found = sum(writes.map((each) => each.writes.found));
const soakAcked = soak ? sum(soak.report.rows.map((row) => Number(row['writes acked']))) : 0;
const soakIntact = soak ? sum(soak.report.rows.map((row) => Number(row['read back intact']))) : 0;
lines.push(
  '## Nothing lost',
  '',
  `- Crashes: ${crashes.length ? `${count(sum(crashes.map((row) => row.tried)))} operations killed mid-way (SIGKILL), ${count(sum(crashes.map((row) => row.held)))} of them leaving no partial file, and the catalog equal to the bytes (fsck)` : 'none run'}.`,
  `- Faults: ${writes.length ? `${count(acknowledged)} writes acknowledged while a service the gateway depends on was failing, ${count(found)} of them found afterwards (${[...new Set(writes.map((each) => `\`${each.row.file}\``))].join(', ')})` : 'no test counted the writes acknowledged during a fault'}.`,
  `- Load: ${soak ? `${count(soakAcked)} writes acknowledged during the soak, ${count(soakIntact)} read back intact` : 'no soak run'}.`,
  '',
);
writeFileSync(path.join(root, 'docs', 'reliability.md'), lines.join('\n'));
console.error('reliability-report: docs/reliability.md written');
const lost = found < acknowledged || soakIntact < soakAcked;
if (!testsPassed || !held || !soakPassed || lost) process.exitCode = 1;

// `npm run reliability-report` (issue 45 item 9): writes docs/reliability.md from the runs
// themselves. It runs every test file that records what it tried (test/support/reliability.ts:
// hostile inputs, forged tokens, traversal paths, the authorization matrix, faults, crashes) with
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

/** The test files that record what they tried. */
function recordingFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'support' && entry.name !== 'fixtures')
        walk(relative);
      else if (
        entry.name.endsWith('.test.ts') &&
        /\brecordTried\(/.test(readFileSync(path.join(root, relative), 'utf8'))
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

const areas: [string, string][] = [
  ['inputs', 'Hostile and generated inputs'],
  ['tokens', 'Tokens and passwords'],
  ['paths', 'Paths'],
  ['authorization', 'Authorization'],
  ['faults', 'Faults'],
  ['crashes', 'Crashes'],
];
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
  cwd: root,
  encoding: 'utf8',
}).trim();
const held = tried.every((entry) => entry.held === entry.tried);
const soak = lastSoak();
const lines: string[] = [
  '# Reliability',
  '',
  '<!-- Written by `npm run reliability-report` (scripts/reliability-report.ts); edit that, not this. -->',
  '',
  `Generated ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on commit ${commit}, Node ${process.version}, ` +
    `databases: SQLite${process.env.DATABASE_URL ? ' and PostgreSQL' : ''}${process.env.REDIS_URL ? ', Redis' : ''}. ` +
    `${files.length} test files that record what they try were run: ${testsPassed ? 'all passed' : '**some failed**'}; ` +
    `${held ? 'everything tried held' : '**something tried did not hold**'}.`,
  '',
  'Each row is one test: what it tried, how many cases, and how many were answered as they must be',
  '(the test says what that is; SECURITY.md says what each defends). Regenerate with',
  '`npm run reliability-report` (`-- --soak` to run the soak too; it needs DATABASE_URL and',
  'REDIS_URL for the PostgreSQL, Redis and two-gateway rows).',
  '',
];
for (const [area, title] of areas) {
  const rows = tried.filter((entry) => entry.area === area);
  if (rows.length === 0) continue;
  lines.push(`## ${title}`, '', '| what was tried | cases | held | test |', '|---|---|---|---|');
  for (const row of rows.sort(
    (a, b) => a.file.localeCompare(b.file) || a.what.localeCompare(b.what),
  ))
    lines.push(
      `| ${row.what}${row.note ? ` (${row.note})` : ''} | ${row.tried.toLocaleString('en')} | ${row.held === row.tried ? 'all' : `**${row.held.toLocaleString('en')}**`} | \`${row.file}\` |`,
    );
  lines.push('');
}
lines.push('## Load held', '');
if (soak) {
  const { report } = soak;
  lines.push(
    `\`npm run soak\` (${soak.file}): ${report.users} users for ${report.seconds} s, each sending twice its`,
    `limit (${report.perMinute} a minute, bucket of ${report.burst}), reads and writes mixed.`,
    `${report.failures?.length ? `**Failed:** ${report.failures.join('; ')}` : 'Every check held.'}`,
    '',
    '| mode | sent | accepted | refused | 5xx | worst user vs bucket | p50 / p99 ms | writes acked | read back intact |',
    '|---|---|---|---|---|---|---|---|---|',
    ...report.rows.map(
      (row) =>
        `| ${row.mode} | ${row.sent} | ${row.accepted} | ${row.refused} | ${row['5xx']} | ${row['worst user vs bucket']} | ${row['p50 / p99 ms']} | ${row['writes acked']} | ${row['read back intact']} |`,
    ),
    '',
  );
} else lines.push('No soak has run here (`npm run soak`, or this script with `--soak`).', '');
const crashes = tried.filter((entry) => entry.area === 'crashes');
const acked = soak
  ? soak.report.rows.reduce((sum: number, row) => sum + Number(row['writes acked']), 0)
  : 0;
const intact = soak
  ? soak.report.rows.reduce((sum: number, row) => sum + Number(row['read back intact']), 0)
  : 0;
lines.push(
  '## Nothing lost',
  '',
  `- Crashes: ${crashes.length ? `${crashes.reduce((sum, row) => sum + row.tried, 0)} operations killed mid-way, ${crashes.reduce((sum, row) => sum + row.held, 0)} left no partial file and a catalog equal to the bytes` : 'none run'}.`,
  `- Load: ${soak ? `${acked.toLocaleString('en')} writes acknowledged, ${intact.toLocaleString('en')} read back intact` : 'no soak run'}.`,
  '',
);
writeFileSync(path.join(root, 'docs', 'reliability.md'), lines.join('\n'));
console.error('reliability-report: docs/reliability.md written');
if (!testsPassed || !held || !soakPassed) process.exitCode = 1;

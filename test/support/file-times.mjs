// A test reporter that times each test file (its process, from start to its last result) and
// prints them slowest first, with the number of tests each ran, so that the slow files are easy to
// find: `node --import tsx --test --test-reporter=spec --test-reporter-destination=stdout
// --test-reporter=./test/support/file-times.mjs --test-reporter-destination=times.txt …`.
// Plain JavaScript: the runner loads it before anything is compiled.
import path from 'node:path';

export default async function* fileTimes(source) {
  const files = new Map();
  const entry = (file) => {
    let found = files.get(file);
    if (!found) files.set(file, (found = { ms: 0, tests: 0, failed: 0 }));
    return found;
  };
  for await (const event of source) {
    const { data } = event;
    if (!data?.file) continue;
    // The runner's own test for a file is named by the file's path; its duration is the file's.
    if (event.type === 'test:complete' && data.name === data.file)
      entry(data.file).ms = data.details.duration_ms;
    else if ((event.type === 'test:pass' || event.type === 'test:fail') && !data.details?.type)
      // Counted as the runner's summary counts tests: suites (details.type 'suite') apart.
      entry(data.file)[event.type === 'test:pass' ? 'tests' : 'failed'] += 1;
  }
  const rows = [...files].sort(([, a], [, b]) => b.ms - a.ms);
  const total = rows.reduce((sum, [, row]) => sum + row.ms, 0);
  yield `${rows.length} files, ${(total / 1000).toFixed(1)} s summed\n`;
  for (const [file, row] of rows) {
    const failed = row.failed ? ` (${row.failed} failed)` : '';
    yield `${(row.ms / 1000).toFixed(1).padStart(7)} s ${String(row.tests).padStart(4)} tests${failed}  ${path.relative(process.cwd(), file)}\n`;
  }
}

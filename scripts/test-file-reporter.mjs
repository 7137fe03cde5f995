// A test reporter for scripts/test.mjs: per test file, its time and its tests counted as Node's
// summary counts them (suites apart; skipped, todo and cancelled on their own), as one JSON object
// keyed by the file's path relative to the working directory. A file's time is the runner's own
// test for the file where it runs one (one process per file: from the process's start), else the
// sum of its top-level tests and suites (files run one after another in one process).
// Plain JavaScript: the runner loads it before anything is compiled.
import path from 'node:path';

export default async function* testFileReporter(source) {
  const files = {};
  const entry = (file) =>
    (files[path.relative(process.cwd(), file)] ??= {
      ms: 0,
      processMs: undefined,
      tests: 0,
      pass: 0,
      fail: 0,
      cancelled: 0,
      skipped: 0,
      todo: 0,
    });
  for await (const { type, data } of source) {
    if (!data?.file || (type !== 'test:pass' && type !== 'test:fail')) continue;
    const row = entry(data.file);
    const isFile = data.name === path.relative(process.cwd(), data.file) || data.name === data.file;
    if (isFile) row.processMs = data.details.duration_ms;
    else if (data.nesting === 0) row.ms += data.details.duration_ms;
    if (isFile || data.details?.type === 'suite') continue;
    row.tests += 1;
    if (type === 'test:fail')
      row[data.details.error?.failureType === 'cancelledByParent' ? 'cancelled' : 'fail'] += 1;
    else if (data.skip !== undefined) row.skipped += 1;
    else if (data.todo !== undefined) row.todo += 1;
    else row.pass += 1;
  }
  for (const row of Object.values(files)) {
    if (row.processMs !== undefined) row.ms = row.processMs;
    delete row.processMs;
  }
  yield `${JSON.stringify(files)}\n`;
}

// A step's `mounts` (its staged inputs at /inputs, say) are read-only inside the local engine's
// sandbox: the step reads them, but creating, appending to, replacing or removing a file there
// fails, and the host's files stay as they were. A guard whose removal (a read-write bind) no
// other test noticed.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { createLocalEngine, type ExecutionEngine } from '../../../src/backends/executor/index.ts';

const MiB = 1024 * 1024;
let root: string;
let engine: ExecutionEngine;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'executor-mounts-'));
  engine = createLocalEngine({ log: pino({ level: 'silent' }), pollMs: 50 });
});

after(async () => {
  await engine?.close();
  await rm(root, { recursive: true, force: true });
});

test('a step cannot write into its read-only /inputs mount, and reads it', async (t) => {
  const available = await engine.available();
  if (!available.ok) {
    // CI installs bubblewrap: there the engine must be available.
    if (process.env.CI)
      assert.fail(`the local engine is not available: ${JSON.stringify(available)}`);
    return t.skip('bubblewrap is not available');
  }
  const inputs = join(root, 'inputs');
  const workDir = join(root, 'work');
  const logDir = join(root, 'log');
  await mkdir(inputs);
  await mkdir(workDir);
  await writeFile(join(inputs, 'data.txt'), 'the input\n');
  // Each attempt's exit status goes to /work; the step itself ends 0 when the script runs through.
  const script = [
    'cat /inputs/data.txt > read.txt',
    'echo new > /inputs/new.txt; echo $? > create.status',
    'echo more >> /inputs/data.txt; echo $? > append.status',
    'echo other > /work/other.txt && mv /work/other.txt /inputs/data.txt; echo $? > replace.status',
    'rm -f /inputs/data.txt; echo $? > remove.status',
    'exit 0',
  ].join('\n');
  const outcome = await engine.run(
    {
      argv: ['/bin/sh', '-c', script],
      workDir,
      logDir,
      mounts: [{ host: inputs, sandbox: '/inputs' }],
      limits: { wallClockSeconds: 20, cpuSeconds: 10, memoryBytes: 256 * MiB, outputBytes: MiB },
    },
    new AbortController().signal,
  );
  assert.equal(outcome.state, 'completed', await readFile(join(logDir, 'stderr'), 'utf8'));
  assert.equal(await readFile(join(workDir, 'read.txt'), 'utf8'), 'the input\n');
  for (const attempt of ['create', 'append', 'replace', 'remove'])
    assert.notEqual(
      (await readFile(join(workDir, `${attempt}.status`), 'utf8')).trim(),
      '0',
      `${attempt} succeeded in /inputs`,
    );
  assert.deepEqual(await readdir(inputs), ['data.txt']);
  assert.equal(await readFile(join(inputs, 'data.txt'), 'utf8'), 'the input\n');
});

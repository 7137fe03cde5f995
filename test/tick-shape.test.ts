// process.nextTick's entries keep their shape through idle collections (src/tick-shape.ts): after
// full collections while no entry is alive, the feedback of nextTick's entry literal stays
// monomorphic with keepTickShape, and turns megamorphic without it (the control, which shows the
// V8 behaviour the module exists for). Each case runs in a fresh Node process with V8's
// `%DebugPrint`, which prints a function's feedback slots and their states.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const tickShape = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../src/tick-shape.ts',
);

/**
 * In a child: keepTickShape (unless `control`), a burst of nextTicks, full collections with none
 * pending (what an idle process's memory reducer does), another burst, then nextTick's feedback.
 */
const script = (control: boolean) => `
const { keepTickShape } = ${control ? '{ keepTickShape() {} }' : `await import(${JSON.stringify(tickShape)})`};
keepTickShape();
const burst = () => new Promise((resolve) => {
  let left = 100;
  for (let i = 0; i < 100; i++) process.nextTick(() => { if (--left === 0) resolve(); });
});
const turn = () => new Promise((resolve) => setImmediate(resolve));
await burst();
await turn();
for (let i = 0; i < 6; i++) { globalThis.gc(); await turn(); }
await burst();
new Function('%DebugPrint(process.nextTick)')();
`;

/**
 * The states of nextTick's feedback slots for its entry literal's properties (five on node 22 and
 * 24, four on node 20, which had no async context frame). `%DebugPrint` writes through C's buffered
 * stdout, which loses its tail on a pipe that fills (node makes its pipes non-blocking): the child
 * writes to a file instead.
 */
function entryLiteralFeedback(control: boolean): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'tick-shape-'));
  const file = path.join(dir, 'stdout');
  const fd = openSync(file, 'w');
  try {
    execFileSync(
      process.execPath,
      ['--expose-gc', '--allow-natives-syntax', '--input-type=module', '-e', script(control)],
      { env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['ignore', fd, 'inherit'] },
    );
    const out = readFileSync(file, 'utf8');
    return [...out.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((match) => match[1]!);
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("nextTick's entry shape through idle collections", () => {
  it('turns megamorphic without keepTickShape (the control)', () => {
    const states = entryLiteralFeedback(true);
    assert.ok(states.length >= 4, `feedback slots: ${states.join(', ')}`);
    assert.ok(states.includes('MEGAMORPHIC'), `feedback: ${states.join(', ')}`);
  });

  it('stays monomorphic with keepTickShape', () => {
    const states = entryLiteralFeedback(false);
    assert.ok(states.length >= 4, `feedback slots: ${states.join(', ')}`);
    assert.deepEqual(
      states.filter((state) => state !== 'MONOMORPHIC'),
      [],
      `feedback: ${states.join(', ')}`,
    );
  });
});

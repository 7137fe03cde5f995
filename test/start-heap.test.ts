// The young generation during start-up (src/start-heap.ts): held at its size while the process
// loads and builds everything (all of which survives), free to grow again once it serves, and
// left alone when the operator set the growth factor on node's command line. Each case runs in a
// fresh Node process, since V8's flags are process-wide.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const startHeap = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../src/start-heap.ts',
);

/**
 * In a child: imports start-heap (unless `control`), keeps ≈ 30 MiB of small objects alive, as a
 * start does, and reads the young generation's size; then, after youngGenerationMayGrow, the same.
 */
const script = (control: boolean) => `
import v8 from 'node:v8';
const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
const atEntry = young();
const { youngGenerationMayGrow } = ${control ? '{ youngGenerationMayGrow() {} }' : `await import(${JSON.stringify(startHeap)})`};
const kept = [];
const survive = () => { for (let i = 0; i < 400_000; i++) kept.push({ i, s: 'x' + i }); };
survive();
const starting = young();
youngGenerationMayGrow();
survive();
console.log(JSON.stringify({ atEntry, starting, serving: young() }));
`;

interface Sizes {
  atEntry: number;
  starting: number;
  serving: number;
}

function youngSizes(control: boolean, nodeFlags: string[] = []): Sizes {
  const out = execFileSync(
    process.execPath,
    [...nodeFlags, '--import', 'tsx', '--input-type=module', '-e', script(control)],
    { env: { ...process.env, NODE_OPTIONS: '' } },
  );
  return JSON.parse(out.toString()) as Sizes;
}

describe('the young generation at start-up', () => {
  it('grows to V8 maximum without start-heap (the control)', () => {
    const { atEntry, starting } = youngSizes(true);
    assert.ok(starting >= 4 * atEntry, `young generation: ${atEntry} → ${starting} MiB`);
  });

  it('stays at its size while everything allocated survives, then grows once serving', () => {
    const { atEntry, starting, serving } = youngSizes(false);
    assert.equal(starting, atEntry, 'no growth during start');
    assert.ok(serving >= 4 * atEntry, `young generation once serving: ${serving} MiB`);
  });

  it("keeps the growth factor an operator set on node's command line", () => {
    const { atEntry, starting } = youngSizes(false, ['--semi-space-growth-factor=2']);
    assert.ok(starting >= 4 * atEntry, `young generation: ${atEntry} → ${starting} MiB`);
  });
});

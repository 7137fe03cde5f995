// releaseStartupMemory (src/common/startup-memory.ts): after a burst of allocations that survive
// (what a start does), V8's young generation has grown; the memory-reducing collection shrinks it
// back and the old generation keeps what is still referenced.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getHeapSpaceStatistics } from 'node:v8';
import { releaseStartupMemory } from '../../src/common/startup-memory.js';

const newSpaceBytes = () =>
  getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_size;

test('the young generation grown by surviving allocations is shrunk; live objects stay', async () => {
  // Objects that survive their scavenges, as module code and schemas do at start: each scavenge
  // copies them, and V8 grows the young generation once more survived than it holds.
  let kept: object[][] = [];
  for (let i = 0; i < 400_000; i++) kept.push([{ i, name: `item ${i}` }]);
  const grown = newSpaceBytes();
  assert.ok(grown >= 8 * 1024 * 1024, `the young generation grew (${grown} bytes)`);
  const live = kept.slice(0, 1000);
  kept = [];

  await releaseStartupMemory();

  const after = newSpaceBytes();
  assert.ok(after <= grown / 4, `shrunk from ${grown} to ${after} bytes`);
  assert.equal(live.length, 1000);
  assert.deepEqual(live[999], [{ i: 999, name: 'item 999' }]);
});

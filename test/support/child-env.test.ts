// A child started through nodeDyingWithTest dies when the test process that started it is killed
// (SIGKILL: no exit handler runs), so a test file killed mid-run leaves no gateway behind.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { test } from 'node:test';

/** Whether `pid` runs: a zombie (killed, not yet reaped by whoever adopted it) does not. */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

test('a child tied with nodeDyingWithTest is killed with its parent', async () => {
  // The parent: starts a child that would run for ever, prints its pid, waits to be killed.
  const parentScript = `
    import { spawn } from 'node:child_process';
    import { nodeDyingWithTest } from ${JSON.stringify(new URL('./child-env.ts', import.meta.url).href)};
    const child = spawn(...nodeDyingWithTest(['-e', 'setInterval(() => {}, 1000)']), { stdio: 'ignore' });
    child.once('spawn', () => console.log(child.pid));
    setInterval(() => {}, 1000);
  `;
  const parent = spawn(process.execPath, ['--input-type=module', '-e', parentScript], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
  const childPid = Number(line.toString().trim());
  assert.ok(Number.isInteger(childPid) && childPid > 0, `a pid: ${line}`);
  assert.ok(alive(childPid), 'the child runs while its parent does');

  parent.kill('SIGKILL');
  await once(parent, 'exit');
  // The kernel sends the child its signal as the parent exits; reaping it takes a moment.
  for (let waited = 0; alive(childPid) && waited < 5_000; waited += 20) await delay(20);
  const survived = alive(childPid);
  if (survived) process.kill(childPid, 'SIGKILL');
  assert.equal(survived, false, 'the child outlived its parent');
});

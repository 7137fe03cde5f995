// A running interactive step's watch (src/backends/apps/jobs/interactive-steps.ts), with the engine's
// session and the step's row held in memory and the watch's interval driven by mocked timers:
// a request whose action fails is said (with the error and the request), cleared, and the session
// goes on; a row that cannot be read is said and read again at the next look; an exit request then
// ends the session, answered as its ending.
import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import type { ExecutionEngine, StepOutcome } from '../../../../src/backends/executor/index.ts';
import {
  runInteractive,
  type InteractiveRequest,
} from '../../../../src/backends/apps/jobs/interactive-steps.ts';

/** An engine whose one session runs until stopped. */
function heldEngine() {
  let end: (outcome: StepOutcome) => void = () => undefined;
  const done = new Promise<StepOutcome>((resolve) => (end = resolve));
  const session = {
    id: 'session-1',
    port: 40000,
    status: () => 'running' as const,
    stop: async () => {
      end({ state: 'stopped' } as StepOutcome);
      return done;
    },
    done,
  };
  return { startInteractive: async () => session } as unknown as ExecutionEngine;
}

const turns = async (count = 5) => {
  for (let turn = 0; turn < count; turn += 1) await new Promise((resolve) => setImmediate(resolve));
};

test('a failing request is said and cleared, an unreadable row is said, and exit still ends the session', async () => {
  mock.timers.enable({ apis: ['setInterval'] });
  try {
    let row: InteractiveRequest | undefined;
    let unreadable = false;
    const failures: { message: string; request?: InteractiveRequest }[] = [];
    let restaged = 0;
    const running = runInteractive(
      heldEngine(),
      { argv: ['tool'], workDir: '/w', logDir: '/l', mounts: [], limits: {} } as never,
      'session-1',
      new AbortController().signal,
      {
        started: async () => undefined,
        request: async () => {
          if (unreadable) throw new Error('the store is unreachable');
          return row;
        },
        done: async (request) => {
          if (row === request) row = undefined;
        },
      },
      60,
      {
        saveOutputs: async () => undefined,
        restageInputs: async () => {
          restaged += 1;
          throw new Error('the input is gone');
        },
        failed: (error, request) =>
          failures.push({ message: (error as Error).message, ...(request ? { request } : {}) }),
      },
    );
    await turns();

    row = 'download-input-files';
    mock.timers.tick(500);
    await turns();
    assert.equal(restaged, 1);
    assert.deepEqual(failures, [{ message: 'the input is gone', request: 'download-input-files' }]);
    assert.equal(row, undefined, 'the failed request is cleared, not tried for ever');

    unreadable = true;
    mock.timers.tick(500);
    await turns();
    assert.deepEqual(failures.at(-1), { message: 'the store is unreachable' });

    unreadable = false;
    row = 'exit';
    mock.timers.tick(500);
    await turns();
    const ended = await running;
    assert.equal(ended.ending, 'exit');
    assert.equal(ended.outcome.state, 'stopped');
    assert.equal(restaged, 1);
  } finally {
    mock.timers.reset();
  }
});

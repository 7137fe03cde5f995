// The arithmetic of the embedded identity provider's failed-sign-in limits (failure-counts.ts),
// without a database: whatever the policy and however failures are spread in time, exactly the
// SIGNIN_MAX_FAILURES-th failure, each within a window of the one before, locks; nothing is
// admitted while locked; each lock lasts from SIGNIN_LOCKOUT_SECONDS to SIGNIN_MAX_LOCKOUT_SECONDS
// and doubles the one before unless a whole window passed since it ended; a row is worthless
// (deletable) once it expires.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  attempt,
  expiryOf,
  freshState,
  type LockState,
} from '../../../src/backends/identity/failure-counts.ts';

const policies = fc
  .record({
    maxFailures: fc.integer({ min: 1, max: 8 }),
    lockoutSeconds: fc.integer({ min: 1, max: 120 }),
    extraSeconds: fc.integer({ min: 0, max: 2000 }),
    windowSeconds: fc.integer({ min: 1, max: 1800 }),
  })
  .map(({ extraSeconds, windowSeconds, ...policy }) => ({
    policy: { ...policy, maxLockoutSeconds: policy.lockoutSeconds + extraSeconds },
    windowMs: windowSeconds * 1000,
  }));
/** Gaps between failed checks: mostly close together, sometimes past a lock or a window. */
const gaps = fc.array(
  fc.oneof(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 4_000_000 })),
  { minLength: 1, maxLength: 80 },
);

test('maxFailures failures, each within a window of the one before, lock; none admitted while locked; locks double within a window, capped', () => {
  fc.assert(
    fc.property(policies, gaps, ({ policy, windowMs }, steps) => {
      let state: LockState = freshState;
      let now = 1_700_000_000_000;
      /** Admitted checks since the last lock, each within a window of the one before. */
      let run = 0;
      let last = -Infinity;
      let lastLock: { length: number; until: number } | undefined;
      for (const gap of steps) {
        now += gap;
        const result = attempt(state, now, policy, windowMs);
        if (state.lockedUntil > now) {
          assert.equal(result.admitted, false, 'refused while locked');
          continue;
        }
        assert.equal(result.admitted, true, 'admitted when not locked');
        if (!result.admitted) continue;
        run = now - last < windowMs ? run + 1 : 1;
        last = now;
        assert.equal(result.locks, run === policy.maxFailures, 'the maxFailures-th failure locks');
        if (result.locks) {
          const length = result.next.lockedUntil - now;
          assert.ok(length >= policy.lockoutSeconds * 1000);
          assert.ok(length <= policy.maxLockoutSeconds * 1000);
          const expected =
            lastLock && now - lastLock.until < windowMs
              ? Math.min(policy.maxLockoutSeconds * 1000, lastLock.length * 2)
              : policy.lockoutSeconds * 1000;
          assert.equal(length, expected, 'doubles the last lock, unless a window passed since');
          lastLock = { length, until: result.next.lockedUntil };
          run = 0;
        } else assert.ok(result.next.lockedUntil <= now);
        state = result.next;
      }
    }),
  );
});

test('the failure that reaches maxFailures locks; a window without failures starts the count again', () => {
  const policy = { maxFailures: 3, lockoutSeconds: 60, maxLockoutSeconds: 600 };
  const windowMs = 900_000;
  let state = freshState;
  const at = (seconds: number) => 1_700_000_000_000 + seconds * 1000;
  for (const [seconds, locks] of [
    [0, false],
    [10, false],
    [20, true],
  ] as const) {
    const result = attempt(state, at(seconds), policy, windowMs);
    assert.ok(result.admitted);
    assert.equal(result.locks, locks);
    state = result.next;
  }
  assert.equal(state.lockedUntil, at(80));
  assert.deepEqual(attempt(state, at(79), policy, windowMs), {
    admitted: false,
    lockedUntil: at(80),
  });
  // Two failures, then a window without any: the count starts again.
  let later = attempt(state, at(100), policy, windowMs);
  assert.ok(later.admitted);
  later = attempt(later.next, at(110), policy, windowMs);
  assert.ok(later.admitted && later.next.failures === 2);
  const fresh = attempt(later.next, at(110 + 900), policy, windowMs);
  assert.ok(fresh.admitted && fresh.next.failures === 1 && !fresh.locks);
});

test('an expired row is worth nothing: a fresh count answers the same from then on', () => {
  fc.assert(
    fc.property(policies, gaps, fc.nat(5_000_000), ({ policy, windowMs }, steps, after) => {
      let state: LockState = freshState;
      let now = 1_700_000_000_000;
      for (const gap of steps) {
        now += gap;
        const result = attempt(state, now, policy, windowMs);
        if (result.admitted) state = result.next;
      }
      const later = Math.max(now, expiryOf(state, windowMs)) + after;
      assert.deepEqual(
        attempt(state, later, policy, windowMs),
        attempt(freshState, later, policy, windowMs),
      );
    }),
  );
});

// How the failed sign-ins of one key (a username, or a client address) are counted and locked:
// the arithmetic of sign-in-limits.ts, apart from the database, and the key of an address.
import type { SignInLockPolicy } from '../../config/index.ts';

/** One key's count: its failures since the last lock, the last one's time, and its lock. */
export interface LockState {
  /** Failed checks, each within a window of the one before (none since the last lock). */
  failures: number;
  /** The last failed check (or the last lock's start). */
  lastFailureAt: number;
  /** 0, or the end of the lock in force (or last in force). */
  lockedUntil: number;
  /** The length of the last lock (0: none ended within a window): the next is twice as long. */
  lockMs: number;
}

export const freshState: LockState = {
  failures: 0,
  lastFailureAt: 0,
  lockedUntil: 0,
  lockMs: 0,
};

export type Attempt =
  { admitted: false; lockedUntil: number } | { admitted: true; next: LockState; locks: boolean };

/**
 * One more password check of a key at `now`: refused while the key is locked; otherwise counted
 * as a failure (the count starts again when a window has passed since the last failure), and the
 * failure that reaches `maxFailures` locks the key, for twice as long as its last lock (the first:
 * `lockoutSeconds`; at most `maxLockoutSeconds`). So `maxFailures` failures, each within a window
 * of the one before, lock; a whole window without a lock since the last one ended forgets the
 * doubling.
 */
export function attempt(
  state: LockState,
  now: number,
  policy: SignInLockPolicy,
  windowMs: number,
): Attempt {
  if (state.lockedUntil > now) return { admitted: false, lockedUntil: state.lockedUntil };
  const lockMs = now - state.lockedUntil >= windowMs ? 0 : state.lockMs;
  const failures = (now - state.lastFailureAt < windowMs ? state.failures : 0) + 1;
  if (failures < policy.maxFailures)
    return {
      admitted: true,
      // A forgotten lock is forgotten whole: its end means nothing any more.
      next: {
        failures,
        lastFailureAt: now,
        lockedUntil: lockMs === 0 ? 0 : state.lockedUntil,
        lockMs,
      },
      locks: false,
    };
  const lock =
    lockMs === 0
      ? policy.lockoutSeconds * 1000
      : Math.min(policy.maxLockoutSeconds * 1000, lockMs * 2);
  return {
    admitted: true,
    next: { failures: 0, lastFailureAt: now, lockedUntil: now + lock, lockMs: lock },
    locks: true,
  };
}

/** When a key's row means nothing any more: a whole window after its last failure and its lock. */
export const expiryOf = (state: LockState, windowMs: number) =>
  Math.max(state.lastFailureAt, state.lockedUntil) + windowMs;

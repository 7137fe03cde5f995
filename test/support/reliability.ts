// What docs/reliability.md is made of (`npm run reliability-report`): a test that tries hostile
// inputs, forged tokens, guessed passwords, traversal paths, authorization grants, faults of the
// services the gateway depends on or crashes records what it tried and how much of it held, when
// RELIABILITY_REPORT_DIR is set (the report's run sets it); in an ordinary run it records nothing
// and costs nothing.
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

export interface Tried {
  /**
   * The report's section: `inputs`, `tokens`, `sign-in`, `paths`, `authorization`, `faults`,
   * `crashes`.
   */
  area: string;
  /** One line: what was tried (`every operation with generated and mutated inputs`). */
  what: string;
  /** How many cases were tried. */
  tried: number;
  /** How many were answered as they must be (equal to `tried` when nothing failed). */
  held: number;
  /** The test file that tried them. */
  file: string;
  /** Anything the reader needs beside the counts (a seed, the engines). */
  note?: string;
  /**
   * Writes the gateway acknowledged while a dependency was failing, and how many of them were found
   * afterwards (the report's "Nothing lost"); only where the test checks that.
   */
  writes?: { acknowledged: number; found: number };
}

/** Records one line of the report (nothing unless RELIABILITY_REPORT_DIR is set). */
export function recordTried(tried: Tried): void {
  const dir = process.env.RELIABILITY_REPORT_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  appendFileSync(path.join(dir, `${process.pid}.jsonl`), `${JSON.stringify(tried)}\n`);
}

/** A test's running counts, recorded when the test (or the suite) ends. */
export interface Tally {
  /** Cases sent or done so far. */
  tried: number;
  /** Of those, the ones whose outcome has passed the test's assertions so far. */
  held: number;
  /** Writes acknowledged during the faults and found afterwards, where the test checks that. */
  writes?: { acknowledged: number; found: number };
  /** The row's note, when it depends on what happened (else the one given to `tally`). */
  note?: string;
  /**
   * Counts everything tried so far as held: called once the assertions covering them have passed,
   * where one assertion covers many cases at once (the statuses of a batch of requests).
   */
  settle(): void;
}

/**
 * Counts a test's cases as it runs (`tried` as each is sent, `held` once the assertions on it have
 * passed) and records them when `scope` ends: a test's context, or `{ after }` inside a describe
 * for one row over its tests. Recorded whether the test passed or not, so that a failure shows in
 * the report as fewer held than tried rather than as a missing row; a test that tried nothing
 * (skipped, or failed before its first case) records nothing.
 */
export function tally(
  scope: { after(fn: () => void): void },
  entry: Omit<Tried, 'tried' | 'held' | 'writes'>,
): Tally {
  const counts: Tally = {
    tried: 0,
    held: 0,
    settle: () => {
      counts.held = counts.tried;
    },
  };
  if (process.env.RELIABILITY_REPORT_DIR)
    scope.after(() => {
      if (counts.tried === 0) return;
      recordTried({
        ...entry,
        tried: counts.tried,
        held: counts.held,
        ...(counts.note ? { note: counts.note } : {}),
        ...(counts.writes ? { writes: counts.writes } : {}),
      });
    });
  return counts;
}

/** `import.meta.url` of a test file as the report names it (test/…). */
export function testFile(url: string): string {
  const at = url.indexOf('/test/');
  return at >= 0 ? url.slice(at + 1) : url;
}

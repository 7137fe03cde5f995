// What docs/reliability.md is made of (`npm run reliability-report`): a test that tries hostile
// inputs, forged tokens, traversal paths, authorization grants, faults or crashes records what it
// tried and how much of it held, when RELIABILITY_REPORT_DIR is set (the report's run sets it); in
// an ordinary run it records nothing and costs nothing.
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

export interface Tried {
  /** The report's section: `inputs`, `tokens`, `paths`, `authorization`, `faults`, `crashes`. */
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
}

/** Records one line of the report (nothing unless RELIABILITY_REPORT_DIR is set). */
export function recordTried(tried: Tried): void {
  const dir = process.env.RELIABILITY_REPORT_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  appendFileSync(path.join(dir, `${process.pid}.jsonl`), `${JSON.stringify(tried)}\n`);
}

/** `import.meta.url` of a test file as the report names it (test/…). */
export function testFile(url: string): string {
  const at = url.indexOf('/test/');
  return at >= 0 ? url.slice(at + 1) : url;
}

// What a test of `npm start`'s gateway in a process of its own holds beside the process: a data
// folder, a database of the engine under test, and callers with tokens it trusts; made before the
// gateway starts (it is given their settings) and put away after it is killed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { MainProcess } from './main-process.ts';
import { engineDatabase, type engines } from './postgres.ts';
import { processCallers, type ProcessCallers } from './process-callers.ts';

export interface ProcessFixture {
  dataDir: string;
  database: Awaited<ReturnType<typeof engineDatabase>>;
  callers: ProcessCallers;
}

/** A data folder named from `prefix`, a database on `engine`, callers of the gateway at `url()`. */
export async function openProcessFixture(
  prefix: string,
  engine: (typeof engines)[number],
  url: () => string,
): Promise<ProcessFixture> {
  const dataDir = mkdtempSync(path.join(tmpdir(), prefix));
  let callers: ProcessCallers | undefined;
  try {
    callers = await processCallers(url);
    return { dataDir, database: await engineDatabase(engine), callers };
  } catch (error) {
    // Nothing is assigned to close after: put away here what was made.
    await callers?.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Kills `gateway` (SIGKILL: nothing of it may outlive the test), then runs `cleanUp` (what the test
 * made beside it, needing the gateway gone) and puts the fixture away; any part may be missing
 * when `before` failed.
 */
export async function closeProcessFixture(
  gateway: MainProcess | undefined,
  fixture: Partial<ProcessFixture>,
  cleanUp: () => Promise<void> | void = () => {},
): Promise<void> {
  await gateway?.stop('SIGKILL');
  await cleanUp();
  await fixture.callers?.close();
  await fixture.database?.drop();
  if (fixture.dataDir) rmSync(fixture.dataDir, { recursive: true, force: true });
}

// `npm start`'s entry (src/main.ts) in a child process, for tests that need the real process: its
// signals and exit (shutdown, SIGKILL mid-burst) and its JSON log lines.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { nodeCacheEnv, nodeDyingWithTest } from './child-env.ts';

export interface MainProcess {
  url: string;
  /** Resolves with the first log line `match` accepts (rejects if the process exits first, or after `limitMs`). */
  logLine(
    match: (line: Record<string, unknown>) => boolean,
    limitMs?: number,
  ): Promise<Record<string, unknown>>;
  /** Sends `signal` (unless the process has exited) and resolves with its exit code and how long it took to exit. */
  stop(signal: NodeJS.Signals): Promise<{ code: number | null; ms: number }>;
}

const repoRoot = path.resolve(import.meta.dirname, '../..');

/** How long start-up may take: Node strips the sources' types as it loads them, slowly on a busy machine. */
const startLimitMs = 45_000;

/** Starts src/main.ts with `args`, logging at info on a free loopback port, `env` over PATH and HOME alone. */
export async function startMainProcess(
  env: Record<string, string>,
  args: string[] = [],
): Promise<MainProcess> {
  const child = spawn(...nodeDyingWithTest(['src/main.ts', ...args]), {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...nodeCacheEnv(),
      LOG_LEVEL: 'info',
      PORT: '0',
      HOST: '127.0.0.1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  const waiting = new Set<() => void>();
  let exitCode: number | null | undefined;
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  createInterface({ input: child.stdout! }).on('line', (text) => {
    try {
      lines.push(JSON.parse(text));
    } catch {
      return; // not a log line
    }
    for (const wake of waiting) wake();
  });
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exitCode = code;
      for (const wake of waiting) wake();
      resolve(code);
    }),
  );
  const logLine: MainProcess['logLine'] = (match, limitMs = 30_000) =>
    new Promise((resolve, reject) => {
      // Only a guard against a line that never comes (the test fails then); lines normally come first.
      const limit = setTimeout(
        () => settle(new Error(`no such log line within ${limitMs} ms`)),
        limitMs,
      );
      const settle = (error?: Error, found?: Record<string, unknown>) => {
        clearTimeout(limit);
        waiting.delete(check);
        if (error) reject(error);
        else resolve(found!);
      };
      const check = () => {
        const found = lines.find(match);
        if (found) settle(undefined, found);
        else if (exitCode !== undefined) settle(new Error(`the process exited first: ${stderr}`));
      };
      waiting.add(check);
      check();
    });
  let listening: Record<string, unknown>;
  try {
    listening = await logLine(
      (line) =>
        typeof line.msg === 'string' && /listening at http:\/\/127\.0\.0\.1:\d+/.test(line.msg),
      startLimitMs,
    );
  } catch (error) {
    // A child that never said it listens is nobody's to stop: left running, its pipes would keep
    // the test process (and the whole test run) alive after the test failed.
    child.kill('SIGKILL');
    throw error;
  }
  return {
    url: /http:\/\/127\.0\.0\.1:\d+/.exec(String(listening.msg))![0],
    logLine,
    stop: async (signal) => {
      const started = Date.now();
      if (exitCode === undefined) child.kill(signal);
      const code = await exit;
      return { code, ms: Date.now() - started };
    },
  };
}

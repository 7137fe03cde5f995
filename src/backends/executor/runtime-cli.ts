// The container runtime's command-line client (`docker`, or `podman`, which takes the same
// commands): one command at a time, never through a shell, answering its exit status and what it
// printed. A client that cannot be spawned answers status null and the spawn error as its stderr.
import { spawn } from 'node:child_process';

export interface RuntimeResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One command; aborting `signal` ends the client (not what it asked the engine to do). */
export type RuntimeCli = (args: string[], signal?: AbortSignal) => Promise<RuntimeResult>;

export function runtimeCli(program: string): RuntimeCli {
  return (args, signal) =>
    new Promise((resolve) => {
      const child = spawn(program, args, {
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(signal ? { signal } : {}),
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.once('error', (error) => resolve({ code: null, stdout, stderr: error.message }));
      child.once('close', (code) => resolve({ code, stdout, stderr }));
    });
}

/** The runtime's own complaint, one line: its last non-empty line of stderr, `Error response…` trimmed. */
export function runtimeComplaint(result: RuntimeResult): string {
  const lines = result.stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const last = lines.at(-1) ?? `exited with status ${result.code}`;
  return last.replace(/^Error response from daemon:\s*/, '').replace(/^Error:\s*/, '');
}

// Runs a command with its output (stdout and stderr, in the order they came) collected, for the
// scripts that run several commands side by side and print each one's output whole when it ends
// (scripts/lint.mjs, scripts/test.mjs).
// Plain JavaScript: it runs before anything is compiled.
import { spawn } from 'node:child_process';

/**
 * Resolves with the command's exit status (1 when a signal ended it or it could not start), the
 * signal, and its output.
 */
export function runCollected(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    const collected = () => Buffer.concat(output).toString();
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) =>
      resolve({ code: 1, signal: null, output: `${collected()}${command}: ${error.message}\n` }),
    );
    child.on('close', (code, signal) => resolve({ code: code ?? 1, signal, output: collected() }));
  });
}

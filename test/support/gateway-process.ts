// A gateway in a child process (gateway-child.ts), for tests that must see whether the process
// survives: its liveness, its stderr and its exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { nodeCacheEnv, nodeDyingWithTest } from './child-env.ts';

export interface GatewayProcess {
  url: string;
  /** True while the process runs: an unhandled 'error' event or rejection ends it. */
  alive(): boolean;
  /** What the process wrote to stderr so far (the crash, when it died). */
  stderr(): string;
  /** Resolves true once the process has exited, false if it still runs after `ms`. */
  exited(ms: number): Promise<boolean>;
  stop(): Promise<void>;
}

const childScript = fileURLToPath(new URL('./gateway-child.ts', import.meta.url));

/** Starts a gateway in a child process (see gateway-child.ts) with `env` layered over the test defaults. */
export async function spawnGateway(env: Record<string, string>): Promise<GatewayProcess> {
  const child: ChildProcess = spawn(...nodeDyingWithTest([childScript]), {
    env: {
      PATH: process.env.PATH ?? '',
      ...nodeCacheEnv(),
      GATEWAY_CHILD_ENV: JSON.stringify(env),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let exited = false;
  const exit = once(child, 'exit').then(() => {
    exited = true;
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const line = stdout.split('\n').find((candidate) => candidate.startsWith('{'));
      if (line && stdout.includes('\n')) resolve((JSON.parse(line) as { url: string }).url);
    });
    void exit.then(() => reject(new Error(`gateway process exited before listening: ${stderr}`)));
  });
  return {
    url,
    alive: () => !exited && child.exitCode === null && child.signalCode === null,
    stderr: () => stderr,
    exited: (ms) => {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<boolean>(
        (resolve) => (timer = setTimeout(() => resolve(false), ms)),
      );
      return Promise.race([exit.then(() => true), waited]).finally(() => clearTimeout(timer));
    },
    stop: async () => {
      if (exited) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exit;
      clearTimeout(killer);
    },
  };
}

// The built gateway as `npm start` runs it (`node dist/main.js`, the bundle) in a child process on a
// free loopback port and a fresh data directory, for the end-to-end tests of the build.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { nodeCacheEnv, nodeDyingWithTest } from './child-env.ts';

export const projectDir = path.resolve(import.meta.dirname, '../..');

/** A loopback port no one listens on now (for a child process to bind). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Bundled {
  url: string;
  dataDir: string;
  child: ChildProcess;
  /** SIGTERM, then the exit awaited, then the data directory removed. */
  stop(): Promise<void>;
}

/**
 * `node [nodeArgs] dist/main.js` on a fresh data directory, once `GET /livez` answers; `env` over
 * PATH, HOME and a silent log (nothing else of this process's environment).
 */
export async function startBundle(
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<Bundled> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gateway-bundle-'));
  const port = await freePort();
  const child = spawn(
    ...nodeDyingWithTest([...nodeArgs, path.join(projectDir, 'dist', 'main.js')]),
    {
      cwd: projectDir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? tmpdir(),
        ...nodeCacheEnv(),
        GATEWAY_DATA_DIR: dataDir,
        PORT: String(port),
        LOG_LEVEL: 'silent',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the bundle exited: ${stderr}`);
      const answer = await fetch(`${url}/livez`).catch(() => undefined);
      if (answer?.ok) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    dataDir,
    child,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

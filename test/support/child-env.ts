// What a test's child Node processes keep of the test process, and how they are tied to it.
import { existsSync } from 'node:fs';

/**
 * Of the test process's environment, beside what the test gives a child: Node's compile cache
 * (NODE_COMPILE_CACHE, which scripts/test.mjs sets), so that a child gateway does not compile the
 * sources again (≈ 1.4 against ≈ 1.0 CPU-s a start). The cache holds compiled code keyed by each
 * file's contents, nothing of the test's own settings.
 */
export function nodeCacheEnv(): Record<string, string> {
  const cache = process.env.NODE_COMPILE_CACHE;
  return cache ? { NODE_COMPILE_CACHE: cache } : {};
}

const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((candidate) => existsSync(candidate));

/**
 * `node args…` as a command that dies with the test process: through util-linux's `setpriv
 * --pdeathsig SIGKILL` (it execs Node, so the pid is Node's). A test file killed mid-run (a
 * timeout, ^C, a killed process group) otherwise left its gateways running, and they went on
 * taking over jobs in the pooled PostgreSQL databases of later runs. Plain `node` where there is
 * no setpriv.
 */
export function nodeDyingWithTest(args: string[]): [string, string[]] {
  return setpriv
    ? [setpriv, ['--pdeathsig', 'SIGKILL', process.execPath, ...args]]
    : [process.execPath, args];
}

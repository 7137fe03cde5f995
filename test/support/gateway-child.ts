// A gateway in a process of its own, for tests that must see the process die (an unhandled 'error'
// event kills it, where in the test runner's process it would only fail some test): started with
// the JSON environment in GATEWAY_CHILD_ENV, it prints one line `{"url": ...}` once listening and
// stops on SIGTERM.
import { startGateway } from './gateway.ts';

const running = await startGateway(
  JSON.parse(process.env.GATEWAY_CHILD_ENV ?? '{}') as Record<string, string>,
);
process.stdout.write(`${JSON.stringify({ url: running.url })}\n`);
process.once('SIGTERM', () => {
  void running.close().finally(() => process.exit(0));
});

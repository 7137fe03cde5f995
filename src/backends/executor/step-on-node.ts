// A Slurm job's program (slurm-engine.ts writes a batch script that runs `node step-on-node.ts
// <command.json> [<port>]` on the node): runs that one step command exactly as the local engine
// runs it on the gateway's machine, in its bubblewrap sandbox with its monitor, so that its limits
// (memory, CPU time, output size, wall clock) are held and named on the node even where Slurm
// itself enforces nothing (TaskPlugin=task/none). With a port, the step is interactive: it gets
// the node's network and that port (PORT), which the gateway picked. The local engine writes the
// step's stdout, stderr and exit-status into its log directory, which the Slurm engine reads when
// Slurm says the job ended. Slurm's scancel (SIGTERM, then SIGKILL) stops the sandbox: `stopped`.
// A step naming an image runs in a container of it on the node's container runtime instead, as
// the container engine runs it on the gateway's machine (the file names the runtime).
import { readFile } from 'node:fs/promises';
import { destination, pino } from 'pino';
import { createContainerEngine } from './container-engine.ts';
import type { StepOutcome } from './engine.ts';
import { createLocalEngine } from './local-engine.ts';
import type { NodeStep } from './node-step.ts';

const [file, port] = process.argv.slice(2);
if (!file || (port !== undefined && !/^\d+$/.test(port))) {
  console.error('usage: node step-on-node.ts <step command JSON file> [<interactive port>]');
  process.exit(2);
}
const { command, container } = JSON.parse(await readFile(file, 'utf8')) as NodeStep;
// What goes wrong around the step goes to the job's stderr file (slurm-<id>.err).
const log = pino({ level: 'warn' }, destination(2));
const engine =
  command.containerImage && container
    ? createContainerEngine({
        runtime: container.runtime,
        log,
        ...(container.registry ? { registry: container.registry } : {}),
      })
    : createLocalEngine({ log });
const stop = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGUSR1'] as const)
  process.on(signal, () => stop.abort());

let outcome: StepOutcome;
if (port === undefined) {
  outcome = await engine.run(command, stop.signal);
} else {
  const session = await engine.startInteractive(command, undefined, Number(port));
  if (stop.signal.aborted) void session.stop();
  stop.signal.addEventListener('abort', () => void session.stop(), { once: true });
  outcome = await session.done;
}
console.log(`step ${outcome.state}: ${outcome.reason}`);
process.exitCode = outcome.state === 'completed' ? 0 : 1;

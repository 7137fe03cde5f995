// An interactive step: a program that listens on a loopback port the engine picked, `starting`
// until the port accepts a connection, `running` from then on, `exited` once it has ended.
import { randomUUID } from 'node:crypto';
import { connect, createServer } from 'node:net';
import type { InteractiveSession, StepOutcome } from './engine.ts';
import type { RunningStep } from './step-process.ts';

const readinessPollMs = 100;

/**
 * A loopback port nobody listens on now. Another process may take it before the step listens: the
 * step then fails to listen and ends, which its outcome tells.
 */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether something accepts a TCP connection on 127.0.0.1:port now. */
export function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export function interactiveSession(step: RunningStep, port: number, id: string = randomUUID()) {
  let state: 'starting' | 'running' | 'exited' = 'starting';
  const done: Promise<StepOutcome> = step.done.then((outcome) => {
    state = 'exited';
    return outcome;
  });
  const watchPort = async () => {
    while (state === 'starting') {
      if (await acceptsConnections(port)) {
        if (state === 'starting') state = 'running';
        return;
      }
      await new Promise<void>((resolve) => setTimeout(resolve, readinessPollMs));
    }
  };
  void watchPort();
  const session: InteractiveSession = {
    id,
    port,
    status: () => state,
    stop: () => {
      step.stop();
      return done;
    },
    done,
  };
  return session;
}

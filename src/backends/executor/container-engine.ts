// The container engine (JOB_EXECUTOR=docker, or the older CONTAINER_RUNTIME=docker|podman): a step
// whose tool names a registry image runs in a container of that image on the runtime's engine,
// pulled by name when absent (docs/executor.md "Docker"). Containers are created detached and
// followed (container-step.ts), so a step outlives the gateway: `tracking.submitted` is told the
// container's name, and an engine given it as `tracking.attach` after a restart follows that
// container to its end. Stopping kills the container; a gateway stopping for a restart lets go of
// it instead (`tracking.detach`).
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { StepDetached, type ExecutionEngine, type InteractiveSession } from './engine.ts';
import { findProgram } from './find-program.ts';
import { freeLoopbackPort, interactiveSession } from './interactive-session.ts';
import { runtimeCli, runtimeComplaint } from './runtime-cli.ts';
import { sandboxUid } from './sandbox-args.ts';
import {
  startContainerStep,
  type ContainerStep,
  type ContainerStepTools,
} from './container-step.ts';

export { containerArgs } from './container-args.ts';

export interface ContainerEngineOptions {
  runtime: 'docker' | 'podman';
  log: Pick<FastifyBaseLogger, 'warn'>;
  /**
   * The registry an image name naming none is pulled from (`127.0.0.1:5000`,
   * `registry.example.org/lab`): `platform/busybox` is then `<registry>/platform/busybox`.
   */
  registry?: string;
  /** How often the working directory's size and the container's CPU time are measured (default 250 ms). */
  pollMs?: number;
}

/** How long an ended interactive step can still be found by id. */
const endedSessionKeptMs = 60_000;

/**
 * The image reference a step runs: a name whose first part is no registry host (no `.` or `:`,
 * not `localhost`) is looked for in `registry`, when one is configured.
 */
export function imageReference(image: string, registry?: string): string {
  if (!registry) return image;
  const first = image.split('/')[0]!;
  const namesRegistry =
    image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  return namesRegistry ? image : `${registry.replace(/\/+$/, '')}/${image}`;
}

export function createContainerEngine(options: ContainerEngineOptions): ExecutionEngine {
  const cli = runtimeCli(options.runtime);
  const running = new Set<ContainerStep>();
  const sessions = new Map<string, InteractiveSession>();
  /** Pulls under way, by image: steps of one image share one. */
  const pulls = new Map<string, Promise<string | undefined>>();
  let closed = false;
  let cgroupParent: Promise<boolean> | undefined;

  const ensureImage = (image: string): Promise<string | undefined> => {
    const pending = pulls.get(image);
    if (pending) return pending;
    const pull = (async () => {
      const present = await cli(['image', 'inspect', '--format', '{{.Id}}', image]);
      if (present.code === 0) return undefined;
      const pulled = await cli(['pull', '--quiet', image]);
      return pulled.code === 0 ? undefined : runtimeComplaint(pulled);
    })().finally(() => pulls.delete(image));
    pulls.set(image, pull);
    return pull;
  };

  /**
   * Whether containers can be given a parent cgroup read for their CPU time: the runtime's cgroup
   * driver is `cgroupfs` (a systemd driver wants slices) and the gateway shares its host.
   */
  const usesCgroupfs = () => {
    cgroupParent ??= cli(['info', '--format', '{{.CgroupDriver}}']).then(
      (info) => info.code === 0 && info.stdout.trim() === 'cgroupfs',
    );
    return cgroupParent;
  };

  const uid = process.getuid?.() ?? sandboxUid;
  const gid = process.getgid?.() ?? sandboxUid;
  const tools = async (): Promise<ContainerStepTools> => ({
    program: options.runtime,
    cli,
    ensureImage,
    // Never root inside: a root gateway's steps run as nobody, an unprivileged gateway's as itself.
    user: uid === 0 ? { uid: sandboxUid, gid: sandboxUid } : { uid, gid },
    cgroupParent: await usesCgroupfs(),
    pollMs: options.pollMs ?? 250,
    log: options.log,
  });

  const start = async (
    command: Parameters<ExecutionEngine['run']>[0],
    extra: { port?: number; tracking?: Parameters<ExecutionEngine['run']>[2] },
  ) => {
    const step = startContainerStep(
      await tools(),
      {
        ...command,
        ...(command.containerImage
          ? { containerImage: imageReference(command.containerImage, options.registry) }
          : {}),
      },
      { ...extra, closed },
    );
    running.add(step);
    void step.done.finally(() => running.delete(step));
    return step;
  };

  return {
    name: options.runtime,
    async available() {
      if (!(await findProgram(options.runtime)))
        return { ok: false, reason: `${options.runtime} is not installed` };
      const info = await cli(['info', '--format', '{{.ServerVersion}}']);
      return info.code === 0
        ? { ok: true }
        : {
            ok: false,
            reason: `${options.runtime} does not run here (its engine is not reachable: ${runtimeComplaint(info)})`,
          };
    },
    async run(command, signal, tracking) {
      const step = await start(command, tracking ? { tracking } : {});
      const stop = () => step.stop();
      // Let go of before any stop: a gateway stopping for a restart leaves its containers running.
      const detached = new Promise<never>((_, reject) => {
        const detach = () => {
          signal.removeEventListener('abort', stop);
          running.delete(step);
          step.detach();
          // Once the container is made and named (or not made at all), so its handle is recorded.
          void step.started.then(() => reject(new StepDetached(step.name)));
        };
        if (tracking?.detach?.aborted) detach();
        else tracking?.detach?.addEventListener('abort', detach, { once: true });
        void step.done.finally(() => tracking?.detach?.removeEventListener('abort', detach));
      });
      detached.catch(() => undefined);
      if (signal.aborted) stop();
      signal.addEventListener('abort', stop, { once: true });
      try {
        return await Promise.race([step.done, detached]);
      } finally {
        signal.removeEventListener('abort', stop);
      }
    },
    async startInteractive(command, id = randomUUID(), given) {
      const existing = sessions.get(id);
      if (existing && existing.status() !== 'exited')
        throw new Error(`an interactive step ${id} is already running`);
      const port = given ?? (await freeLoopbackPort());
      const step = await start(command, { port });
      await step.started;
      const session = interactiveSession(step, port, id);
      sessions.set(id, session);
      void session.done.then(() => {
        const forget = setTimeout(() => {
          if (sessions.get(id) === session) sessions.delete(id);
        }, endedSessionKeptMs);
        forget.unref();
      });
      return session;
    },
    interactive: (id) => sessions.get(id),
    async close() {
      closed = true;
      for (const step of running) step.stop();
      await Promise.allSettled([...running].map((step) => step.done));
    },
  };
}

// The `create` command line of a container step: everything but the image's own contents comes
// from the command, and keeps the local engine's promises where a runtime can (docs/executor.md
// "Docker"): no network for a batch step (an interactive one shares the host's, whose loopback the
// gateway reaches it on), a read-only root with a private /tmp, an unprivileged user, no
// capabilities, no new privileges, memory (swap included), CPUs, processes, per-process CPU time
// and file size, the working directory at /work and the mounts read-only.
import type { StepCommand } from './engine.ts';
import { cgroupParentOf } from './container-cgroup.ts';
import { sandboxEnv } from './sandbox-args.ts';

export interface ContainerArgsOptions {
  /** The container's user (`uid:gid`): never root. */
  user: string;
  /** An interactive step's loopback port: the step shares the host's network to listen on it. */
  port?: number;
  /** Made under a parent cgroup of its own, for its CPU time (container-cgroup.ts). */
  cgroupParent?: boolean;
}

export function containerArgs(
  command: StepCommand,
  name: string,
  options: ContainerArgsOptions,
): string[] {
  const { limits } = command;
  const cpu = Math.max(1, Math.ceil(limits.cpuSeconds));
  const memory = String(Math.floor(limits.memoryBytes));
  const args = [
    // Not --rm: the container is inspected after its end (was it killed for memory?), then removed.
    'create',
    '--name',
    name,
    '--label',
    'platform-gateway.step=1',
    '--read-only',
    '--tmpfs',
    `/tmp:rw,nosuid,nodev,mode=1777,size=${memory}`,
    '--user',
    options.user,
    '--cap-drop',
    'ALL',
    '--security-opt',
    'no-new-privileges',
    '--memory',
    memory,
    '--memory-swap',
    memory,
    ...(limits.cpus !== undefined ? ['--cpus', String(limits.cpus)] : []),
    ...(limits.processes !== undefined
      ? ['--pids-limit', String(Math.floor(limits.processes))]
      : []),
    '--ulimit',
    `cpu=${cpu}:${cpu + 1}`,
    '--ulimit',
    `fsize=${Math.floor(limits.outputBytes)}`,
    '--ulimit',
    'core=0',
    // The runtime's own copy of the output, which the engine follows as it comes: held to twice
    // the output limit on the runtime's disk (the engine keeps the first outputBytes of each).
    '--log-driver',
    'json-file',
    '--log-opt',
    `max-size=${Math.max(1024, Math.floor(limits.outputBytes) * 2)}`,
    '--network',
    options.port === undefined ? 'none' : 'host',
    '--volume',
    `${command.workDir}:/work:rw`,
    '--workdir',
    '/work',
    ...(options.cgroupParent ? ['--cgroup-parent', cgroupParentOf(name)] : []),
  ];
  for (const { host, sandbox } of command.mounts ?? [])
    args.push('--volume', `${host}:${sandbox}:ro`);
  for (const path of command.readOnly ?? []) args.push('--volume', `${path}:${path}:ro`);
  for (const [key, value] of Object.entries(sandboxEnv(command.env, options.port)))
    args.push('--env', `${key}=${value}`);
  args.push('--entrypoint', command.argv[0]!, command.containerImage!, ...command.argv.slice(1));
  return args;
}

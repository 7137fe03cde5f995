// The bubblewrap command line of a step: every namespace unshared (the network too, unless the step
// is interactive), no capabilities, an unprivileged user, a read-only root made of the system
// directories or an image, the step's directory read-write at /work, and only the given environment.
import type { StepLimits } from './engine.ts';
import type { RootEntry } from './system-layout.ts';

/** The sandbox's user and group: `nobody`, inside a user namespace of its own. */
export const sandboxUid = 65534;

export const defaultPath = '/usr/local/bin:/usr/bin:/bin';

export interface SandboxPlan {
  argv: string[];
  root: RootEntry[];
  readOnly: string[];
  mounts: { host: string; sandbox: string }[];
  workDir: string;
  env: Record<string, string>;
  /** Interactive steps share the host's network: the gateway reaches their port on 127.0.0.1. */
  shareNetwork: boolean;
  limits: StepLimits;
}

/** The step's environment: PATH (which the step may replace), its variables, HOME and PORT. */
export function sandboxEnv(env: Record<string, string> | undefined, port?: number) {
  return {
    PATH: defaultPath,
    ...env,
    HOME: '/work',
    ...(port === undefined ? {} : { PORT: String(port) }),
  };
}

export function sandboxArgs(plan: SandboxPlan): string[] {
  // tmpfs pages are no process's resident memory, so each tmpfs is held to the memory limit itself.
  const tmpfsSize = String(Math.max(1, Math.floor(plan.limits.memoryBytes)));
  const args = [
    '--unshare-all',
    ...(plan.shareNetwork ? ['--share-net'] : []),
    '--unshare-user',
    '--disable-userns',
    '--uid',
    String(sandboxUid),
    '--gid',
    String(sandboxUid),
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--hostname',
    'sandbox',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    tmpfsSize,
    '--tmpfs',
    '/tmp',
    '--size',
    tmpfsSize,
    '--tmpfs',
    '/dev/shm',
  ];
  for (const entry of plan.root) {
    if (entry.kind === 'symlink') args.push('--symlink', entry.target, entry.dest);
    else args.push('--ro-bind', entry.source, entry.dest);
  }
  for (const path of plan.readOnly) args.push('--ro-bind', path, path);
  for (const { host, sandbox } of plan.mounts) args.push('--ro-bind', host, sandbox);
  args.push('--bind', plan.workDir, '/work');
  // bubblewrap's root is a writable tmpfs until told otherwise.
  args.push('--remount-ro', '/', '--chdir', '/work', '--clearenv');
  for (const [name, value] of Object.entries(plan.env)) args.push('--setenv', name, value);
  args.push('--', ...plan.argv);
  return args;
}

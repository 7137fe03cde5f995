// What the sandbox's `/` holds besides the step's own mounts: the host's system directories
// (read-only `/usr`, the `/bin`, `/lib`... links or directories as the host has them, and the few
// `/etc` files programs need), or the top-level entries of an unpacked root filesystem image.
import { lstat, readdir, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** One entry of the sandbox's root: a host path mounted read-only, or a symbolic link. */
export type RootEntry =
  | { kind: 'bind'; source: string; dest: string }
  | { kind: 'symlink'; target: string; dest: string };

/** Top-level directories that are links into /usr on merged-/usr systems (Debian 12) and directories elsewhere. */
const systemTopLevel = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

/**
 * The /etc a program needs and nothing else: the dynamic linker's cache, name-service and time
 * zone settings, Debian's alternatives links (`awk`, `editor`...), the loopback names and the
 * public CA certificates. No accounts, no keys, no machine identity.
 */
const etcEntries = [
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'nsswitch.conf',
  'localtime',
  'timezone',
  'alternatives',
  'hosts',
  'ssl/certs',
];

/** Name resolution, for interactive steps only: batch steps have no network to resolve on. */
const networkEtcEntries = ['resolv.conf'];

/** Mount points the engine makes itself in every sandbox; an image's own are not used. */
const ownMountPoints = new Set(['proc', 'dev', 'tmp', 'work']);

async function kindOf(path: string): Promise<'dir' | 'file' | 'symlink' | 'other' | undefined> {
  try {
    const info = await lstat(path);
    if (info.isSymbolicLink()) return 'symlink';
    if (info.isDirectory()) return 'dir';
    return info.isFile() ? 'file' : 'other';
  } catch {
    return undefined;
  }
}

/** The host's system directories, read-only, as the sandbox's root. */
export async function hostLayout(network: boolean): Promise<RootEntry[]> {
  const layout: RootEntry[] = [{ kind: 'bind', source: '/usr', dest: '/usr' }];
  for (const name of systemTopLevel) {
    const path = `/${name}`;
    const kind = await kindOf(path);
    if (kind === 'symlink')
      layout.push({ kind: 'symlink', target: await readlink(path), dest: path });
    else if (kind === 'dir') layout.push({ kind: 'bind', source: path, dest: path });
  }
  for (const name of network ? [...etcEntries, ...networkEtcEntries] : etcEntries) {
    const path = `/etc/${name}`;
    // Mounted by content: a link here (localtime, resolv.conf) may lead where the sandbox has nothing.
    const exists = await stat(path).then(
      () => true,
      () => false,
    );
    if (exists) layout.push({ kind: 'bind', source: path, dest: path });
  }
  return layout;
}

/** The top-level entries of an unpacked image (unpackImage), read-only, as the sandbox's root. */
export async function imageLayout(imageDir: string): Promise<RootEntry[]> {
  const layout: RootEntry[] = [];
  for (const name of (await readdir(imageDir)).sort()) {
    if (ownMountPoints.has(name)) continue;
    const source = join(imageDir, name);
    const kind = await kindOf(source);
    if (kind === 'symlink') {
      layout.push({ kind: 'symlink', target: await readlink(source), dest: `/${name}` });
    } else if (kind === 'dir' || kind === 'file') {
      layout.push({ kind: 'bind', source, dest: `/${name}` });
    }
  }
  return layout;
}

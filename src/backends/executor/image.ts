// Root filesystem images: a tar of a whole filesystem (what `docker export` writes) unpacked once
// into a cache directory and used read-only as a step's `/`. node-tar unpacks the files; the
// symbolic links are made here afterwards, since node-tar would rewrite their absolute targets
// (`/bin/sh -> /bin/busybox` is normal in an image) and their targets only mean something inside
// the sandbox anyway.
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, mkdtemp, rename, rm, stat, symlink } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { extract, type ReadEntry } from 'tar';

/** Entry types an image's files are never made of here: devices and pipes. */
const skippedTypes = new Set(['CharacterDevice', 'BlockDevice', 'FIFO']);

/** An entry's path within the image, or undefined when it would lead outside it. */
function insidePath(path: string): string | undefined {
  if (isAbsolute(path)) return undefined;
  const parts = path.split('/').filter((part) => part !== '' && part !== '.');
  return parts.includes('..') ? undefined : parts.join('/');
}

/** The cache's name for a tar: its path, size and modification time. */
async function cacheKey(tarPath: string): Promise<string> {
  const info = await stat(tarPath);
  return createHash('sha256')
    .update(`${resolve(tarPath)}\0${info.size}\0${info.mtimeMs}`)
    .digest('hex')
    .slice(0, 32);
}

/**
 * Makes a symbolic link at `path` (within `root`), its parent directories real directories made
 * here if missing: never through another link, which could lead out of `root`.
 */
async function placeSymlink(root: string, path: string, target: string): Promise<void> {
  const parts = path.split('/');
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    const info = await lstat(dir).catch(() => undefined);
    if (!info) await mkdir(dir);
    else if (!info.isDirectory()) throw new Error(`the image puts ${path} under a link`);
  }
  const at = join(root, path);
  // The same path twice in a tar: the file already there is kept.
  if (await lstat(at).catch(() => undefined)) return;
  await symlink(target, at);
}

async function unpackInto(tarPath: string, dir: string): Promise<void> {
  const links: { path: string; target: string }[] = [];
  let refused: string | undefined;
  const refuse = (why: string) => (refused ??= why);
  await extract({
    file: tarPath,
    cwd: dir,
    preserveOwner: false,
    filter: (path: string, entry) => {
      const read = entry as ReadEntry;
      const inside = insidePath(path);
      if (inside === undefined) {
        refuse(`its entry ${path} leads outside the image`);
        return false;
      }
      if (read.type === 'Link' && insidePath(String(read.linkpath ?? '')) === undefined) {
        refuse(`its hard link ${path} leads outside the image`);
        return false;
      }
      if (skippedTypes.has(read.type)) return false;
      if (read.type === 'SymbolicLink') {
        if (inside !== '') links.push({ path: inside, target: String(read.linkpath ?? '') });
        return false;
      }
      // No set-user-ID or set-group-ID program in a cache directory on the host.
      if (typeof read.mode === 'number') read.mode &= ~0o6000;
      return true;
    },
    onwarn: (code: string, message: string) => {
      if (code !== 'TAR_ENTRY_INFO' && code !== 'TAR_ENTRY_UNSUPPORTED') refuse(message);
    },
  });
  if (refused) throw new Error(refused);
  for (const link of links) await placeSymlink(dir, link.path, link.target);
}

const unpacking = new Map<string, Promise<string>>();

/**
 * Unpacks a filesystem tar into `cacheDir` once (the same tar, by path, size and modification
 * time, is not unpacked again) and answers the directory. The tar is unpacked beside and renamed
 * into place, so a directory found in the cache is always whole. An entry that would land outside
 * the image (an absolute path, `..`) refuses the whole image; devices and pipes are skipped.
 */
export async function unpackImage(tarPath: string, cacheDir: string): Promise<string> {
  const target = join(cacheDir, await cacheKey(tarPath));
  const pending = unpacking.get(target);
  if (pending) return pending;
  const work = (async () => {
    if ((await stat(target).catch(() => undefined))?.isDirectory()) return target;
    await mkdir(cacheDir, { recursive: true });
    const temporary = await mkdtemp(join(cacheDir, '.unpacking-'));
    try {
      await unpackInto(tarPath, temporary);
      await chmod(temporary, 0o755);
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { recursive: true, force: true });
      // Another process unpacked the same tar first: its directory is as good.
      if ((await stat(target).catch(() => undefined))?.isDirectory()) return target;
      throw new Error(`the image ${tarPath} cannot be unpacked: ${(error as Error).message}`);
    }
    return target;
  })();
  unpacking.set(target, work);
  try {
    return await work;
  } finally {
    unpacking.delete(target);
  }
}

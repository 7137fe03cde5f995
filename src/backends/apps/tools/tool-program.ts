// What a user tool runs (docs/executor.md): its program is `<location>/<name>` (the upstream
// tool's convention: location the folder, name the file) or `name` alone when it is an absolute
// path; `container.entrypoint`, when set, names the program instead. A tool whose
// `container.image.url` is a `file:` URL or an absolute path of a tar (a root filesystem as
// `docker export` writes it) runs with that image as `/`, its program found inside the image.
// Nothing runs unless allowed: by TOOL_EXECUTABLES_ALLOW, or by an administrator's approval of the
// tool's program and image as they stood (`approved_run`), which any later change undoes.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isPlaceholderImage, type ToolRow } from './tool-model.ts';

export interface ToolProgram {
  /** Absolute path of the program as the sandbox sees it (a container image's may be a name). */
  program: string;
  /** Host path of the root filesystem image tar, when the tool has one. */
  image?: string;
  /** A registry image (`name:tag`) the container runtime runs (JOB_EXECUTOR=docker, CONTAINER_RUNTIME). */
  containerImage?: string;
}

const textOf = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/**
 * The tool's program and image, or why it has none that could run. With a container runtime
 * (JOB_EXECUTOR=docker, CONTAINER_RUNTIME), a tool with neither `location` nor an image tar runs
 * its registry image (`container.image.name` and `tag`) there, its program
 * `container.entrypoint` or `name`.
 */
export function toolProgram(
  tool: ToolRow,
  containerRuntime?: string,
): ToolProgram | { reason: string } {
  const container = tool.container
    ? (JSON.parse(tool.container) as Record<string, unknown>)
    : undefined;
  const image = container?.image as Record<string, unknown> | undefined;
  const imageUrl = textOf(image?.url);
  let imagePath: string | undefined;
  // With a container runtime, an http(s) `url` is the image's web page (as in the Discovery
  // Environment), not where it is pulled from: the image is pulled by name.
  const webPage =
    containerRuntime !== undefined && imageUrl !== undefined && /^https?:/i.test(imageUrl);
  if (imageUrl !== undefined && !webPage) {
    if (imageUrl.startsWith('file:')) imagePath = fileURLToPath(imageUrl);
    else if (path.isAbsolute(imageUrl)) imagePath = path.resolve(imageUrl);
    else
      return {
        reason: `its image ${imageUrl} is not a root filesystem tar on this platform (a file: URL or an absolute path)`,
      };
  }
  const entrypoint = textOf(container?.entrypoint);
  const location = textOf(tool.location);
  const imageName = textOf(image?.name);
  // The placeholder images tools are answered with when they name none are no registry's.
  if (
    containerRuntime &&
    imagePath === undefined &&
    location === undefined &&
    imageName &&
    !isPlaceholderImage(imageName)
  ) {
    const tag = textOf(image?.tag) ?? 'latest';
    return { program: entrypoint ?? tool.name, containerImage: `${imageName}:${tag}` };
  }
  const program =
    entrypoint ??
    (location !== undefined ? path.posix.join(location, tool.name) : textOf(tool.name));
  if (program === undefined || !path.posix.isAbsolute(program))
    return {
      reason: `its program ${program ?? '(none)'} is not an absolute path (set "location" to its folder)`,
    };
  return { program: path.posix.normalize(program), ...(imagePath ? { image: imagePath } : {}) };
}

/** What an administrator's approval records: the program and image as they stand. */
export const approvalOf = (program: ToolProgram): string =>
  JSON.stringify({
    program: program.program,
    image: program.image ?? null,
    ...(program.containerImage ? { containerImage: program.containerImage } : {}),
  });

/** Whether `file` is one of `allow`'s paths or below one of its folders (entries ending in `/`). */
const allowedBy = (allow: string[], file: string) =>
  allow.some((entry) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry));

/**
 * Whether the tool may run: approved as it stands, or its image (when it has one, the program
 * inside it is the image's business) or else its program allowed by TOOL_EXECUTABLES_ALLOW.
 */
export function mayRun(tool: ToolRow, program: ToolProgram, allow: string[]): boolean {
  if (tool.approved_run !== null && tool.approved_run === approvalOf(program)) return true;
  // A registry image is no path of this host: only an administrator's approval lets it run.
  if (program.containerImage) return false;
  return allowedBy(allow, program.image ?? program.program);
}

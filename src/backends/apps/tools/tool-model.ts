// Tools as clients send and read them (routes.md §17, §18; the DE apps service's Tool): the fields
// listings filter and sort on are columns, the container settings and implementation JSON
// documents kept as sent. Who sees a tool: everyone when it is public, its owner, and those it was
// shared with.
import { isDeepStrictEqual } from 'node:util';
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { asBoolean } from '../../../store/sqlite-booleans.ts';
import { isJsonObject } from '../../../common/request-body.ts';
import { gatewayError } from '../../../common/errors.ts';
import type { Level } from '../../permissions/index.ts';
import { anonymousUser, sharedIds } from '../shared/index.ts';

export type ToolRow = Selectable<Database['tools']>;

/** The tool types a tool may have (also the `tool-types` element list). */
export const toolTypes = ['executable', 'interactive', 'internal'] as const;

/** The container settings `include-defaults=true` fills in when a tool does not name them. */
export const containerDefaults = {
  min_cpu_cores: 0,
  min_memory_limit: 0,
  min_disk_space: 0,
  network_mode: 'bridge',
  skip_tmp_mount: false,
  container_devices: [],
  container_volumes: [],
  container_volumes_from: [],
  container_ports: [],
} as const;

/**
 * What the image of a tool that names none is called: tools read by the web UI always have
 * `container.image` (it shows `image.name` and `image.tag` for every row). A built-in tool runs
 * in-process on the embedded executor (`platform-gateway/built-in`, tagged with its executor); a
 * tool stored without a container runs on the host's sandbox (`platform-gateway/host`). Names
 * under `platform-gateway/` are never pulled or run as images (tool-program.ts).
 */
export const placeholderImagePrefix = 'platform-gateway/';
export const builtInImageName = `${placeholderImagePrefix}built-in`;
export const hostImageName = `${placeholderImagePrefix}host`;

const placeholderImage = (name: string, tag: string) => ({
  name,
  tag,
  url: '',
  osg_image_path: '',
  deprecated: false,
});

/** Whether `name` is one of the placeholder images above (never a registry image). */
export const isPlaceholderImage = (name: unknown): boolean =>
  typeof name === 'string' && name.startsWith(placeholderImagePrefix);

/**
 * The container a tool is answered with: the stored one (given an image if it had none), or for a
 * tool without one, just the placeholder image (built-ins: `platform-gateway/built-in:<executor>`).
 */
export function answeredContainer(row: Pick<ToolRow, 'container' | 'executor'>) {
  const stored = row.container ? (JSON.parse(row.container) as Record<string, unknown>) : null;
  if (stored && isJsonObject(stored.image)) return stored;
  const image =
    row.executor !== null
      ? placeholderImage(builtInImageName, row.executor)
      : placeholderImage(hostImageName, 'latest');
  return { ...stored, image };
}

/** A value without what says nothing: empty texts and lists, null, false, objects left empty. */
function meaningful(value: unknown): unknown {
  if (value === '' || value === null || value === false || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(meaningful);
    return items.length > 0 ? items : undefined;
  }
  if (isJsonObject(value)) {
    const entries = Object.entries(value)
      .map(([key, each]) => [key, meaningful(each)] as const)
      .filter(([, each]) => each !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return entries.length > 0 ? Object.fromEntries(entries) : undefined;
  }
  return value;
}

/**
 * Whether `sent` says the same as the container the tool is answered with: a client that reads a
 * tool and sends it back (the web UI's tool form fills in empty texts, `[]` and `false` for the
 * settings the tool leaves out; `include-defaults` fills in the defaults) changes nothing.
 */
export function sameContainer(
  row: Pick<ToolRow, 'container' | 'executor'>,
  sent: Record<string, unknown>,
): boolean {
  const said = (container: Record<string, unknown>) =>
    meaningful({ ...containerDefaults, ...(meaningful(container) as Record<string, unknown>) });
  return isDeepStrictEqual(said(answeredContainer(row)), said(sent));
}

/** Numeric container settings: whole numbers of at least 0 when given. */
const containerCounts = [
  'min_cpu_cores',
  'max_cpu_cores',
  'cpu_shares',
  'min_memory_limit',
  'memory_limit',
  'min_disk_space',
  'pids_limit',
  'min_gpus',
  'max_gpus',
  'uid',
] as const;

const bad = (field: string, reason: string) =>
  gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field });

/** A tool's fields as a request gives them (undefined: not given). */
export interface ToolInput {
  name?: string;
  description?: string;
  location?: string;
  type?: string;
  version?: string;
  attribution?: string;
  container?: Record<string, unknown>;
  implementation?: Record<string, unknown>;
  restricted?: boolean;
  interactive?: boolean;
  time_limit_seconds?: number | null;
}

const text = (
  body: Record<string, unknown>,
  field: string,
  prefix: string,
  max: number,
  required: boolean,
): string | undefined => {
  const value = body[field];
  if (value === undefined || value === null) {
    if (required) throw bad(`${prefix}${field}`, `"${prefix}${field}" is required`);
    return undefined;
  }
  if (typeof value !== 'string' || (required && value.trim() === '') || value.length > max)
    throw bad(
      `${prefix}${field}`,
      `"${prefix}${field}" must be a${required ? ' non-empty' : ''} string of at most ${max} characters`,
    );
  return value;
};

const flag = (body: Record<string, unknown>, field: string, prefix: string) => {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean')
    throw bad(`${prefix}${field}`, `"${prefix}${field}" must be true or false`);
  return value;
};

function checkContainer(value: unknown, prefix: string): Record<string, unknown> {
  const field = `${prefix}container`;
  if (!isJsonObject(value)) throw bad(field, `"${field}" must be an object`);
  if (!isJsonObject(value.image))
    throw bad(`${field}.image`, `"${field}.image" must be an object with a name`);
  text(value.image, 'name', `${field}.image.`, 1024, true);
  for (const key of ['tag', 'url', 'osg_image_path'])
    text(value.image, key, `${field}.image.`, 1024, false);
  for (const key of containerCounts) {
    const count = value[key];
    if (
      count !== undefined &&
      count !== null &&
      !(Number.isInteger(count) && (count as number) >= 0)
    )
      throw bad(`${field}.${key}`, `"${field}.${key}" must be a whole number of at least 0`);
  }
  for (const key of ['network_mode', 'working_directory', 'entrypoint', 'name'])
    text(value, key, `${field}.`, 1024, false);
  return value;
}

/**
 * Checks a tool as a request gives it: all of it for an import (`partial` false: a name, a type, a
 * version and a container image are needed), what it names for an update. Field names in errors are
 * prefixed with `prefix` (`tools[2].` in an administrator's import).
 */
export function toolInput(raw: unknown, partial: boolean, prefix = ''): ToolInput {
  if (!isJsonObject(raw))
    throw bad(prefix.replace(/\.$/, '') || 'body', 'a tool must be an object');
  const body = raw;
  const required = !partial;
  const input: ToolInput = {
    name: text(body, 'name', prefix, 255, required),
    description: text(body, 'description', prefix, 65536, false),
    location: text(body, 'location', prefix, 1024, false),
    type: text(body, 'type', prefix, 32, required),
    version: text(body, 'version', prefix, 255, required),
    attribution: text(body, 'attribution', prefix, 65536, false),
    restricted: flag(body, 'restricted', prefix),
    interactive: flag(body, 'interactive', prefix),
  };
  if (partial && input.name !== undefined && input.name.trim() === '')
    throw bad(`${prefix}name`, `"${prefix}name" must be a non-empty string`);
  if (input.type !== undefined && !(toolTypes as readonly string[]).includes(input.type))
    throw bad(`${prefix}type`, `"${prefix}type" must be one of ${toolTypes.join(', ')}`);
  if (body.container !== undefined || required)
    input.container = checkContainer(body.container, prefix);
  if (body.implementation !== undefined && body.implementation !== null) {
    if (!isJsonObject(body.implementation))
      throw bad(`${prefix}implementation`, `"${prefix}implementation" must be an object`);
    text(body.implementation, 'implementor', `${prefix}implementation.`, 255, false);
    text(body.implementation, 'implementor_email', `${prefix}implementation.`, 255, false);
    if (body.implementation.test !== undefined && !isJsonObject(body.implementation.test))
      throw bad(`${prefix}implementation.test`, `"${prefix}implementation.test" must be an object`);
    input.implementation = body.implementation;
  }
  const limit = body.time_limit_seconds;
  if (limit !== undefined) {
    if (limit !== null && !(Number.isInteger(limit) && (limit as number) >= 0))
      throw bad(
        `${prefix}time_limit_seconds`,
        `"${prefix}time_limit_seconds" must be a whole number of at least 0`,
      );
    input.time_limit_seconds = limit as number | null;
  }
  return input;
}

/** The columns an input sets (those it names). */
export function toolColumns(input: ToolInput) {
  const columns: Partial<{
    name: string;
    description: string;
    location: string;
    type: string;
    version: string;
    attribution: string;
    container: string;
    implementation: string;
    restricted: boolean;
    interactive: boolean;
    time_limit_seconds: number | null;
  }> = {};
  for (const key of ['name', 'description', 'location', 'type', 'version', 'attribution'] as const)
    if (input[key] !== undefined) columns[key] = input[key];
  if (input.container !== undefined) columns.container = JSON.stringify(input.container);
  if (input.implementation !== undefined)
    columns.implementation = JSON.stringify(input.implementation);
  if (input.restricted !== undefined) columns.restricted = input.restricted;
  if (input.interactive !== undefined) columns.interactive = input.interactive;
  if (input.time_limit_seconds !== undefined) columns.time_limit_seconds = input.time_limit_seconds;
  return columns;
}

/**
 * The implementation a tool is answered with: the stored one, its `test` lists filled in (the web
 * UI's admin tool form copies `implementation.test.input_files` and `output_files`); a tool stored
 * without one (built-ins, imports that named none) has empty implementor fields (built-ins:
 * `Platform`).
 */
function answeredImplementation(row: Pick<ToolRow, 'implementation' | 'executor'>) {
  const stored = row.implementation
    ? (JSON.parse(row.implementation) as Record<string, unknown>)
    : {};
  const test = isJsonObject(stored.test) ? stored.test : {};
  return {
    implementor: row.executor !== null ? 'Platform' : '',
    implementor_email: '',
    ...stored,
    test: {
      ...test,
      input_files: Array.isArray(test.input_files) ? test.input_files : [],
      output_files: Array.isArray(test.output_files) ? test.output_files : [],
    },
  };
}

/**
 * A tool as clients read it, with the caller's `permission` on it. `container` (with `image`) and
 * `implementation` (with `test`) are always there: the web UI dereferences both for every tool.
 */
export function toolView(row: ToolRow, permission: Level, includeDefaults = false) {
  const container = answeredContainer(row);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    location: row.location,
    type: row.type,
    version: row.version,
    attribution: row.attribution,
    is_public: asBoolean(row.is_public),
    permission,
    restricted: asBoolean(row.restricted),
    interactive: asBoolean(row.interactive),
    ...(row.time_limit_seconds !== null ? { time_limit_seconds: row.time_limit_seconds } : {}),
    implementation: answeredImplementation(row),
    container: includeDefaults ? { ...containerDefaults, ...container } : container,
  };
}

/** The tools `user` may see: public ones, their own and those shared with them. */
export function visibleToolsQuery(db: Kysely<Database>, user: string) {
  return db
    .selectFrom('tools')
    .where((eb) =>
      eb.or([
        eb('tools.is_public', '=', true),
        eb('tools.integrator', '=', user),
        ...(user === anonymousUser ? [] : [eb('tools.id', 'in', sharedIds(db, 'tool', user))]),
      ]),
    );
}

// Tag misc: per-user preferences, kept by the user-info service, with the output-folder defaults always present.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { LRUCache } from 'lru-cache';
import { Type } from 'typebox';
import { basePaths } from '../../common/base-paths.ts';
import type { GatewayConfig } from '../../config/index.ts';
import type { Identity } from '../../common/identity.ts';
import { routeSecurity } from '../../http/openapi.ts';
import type { Forwarder } from '../../http/proxy.ts';
import { qualifiedUsername } from '../../common/users.ts';
import { GatewayError, gatewayError } from '../../common/errors.ts';

export interface Folder {
  id: string;
  path: string;
}

type Preferences = Record<string, unknown>;

/**
 * The spec's keys are canonical and stored; the other spellings are answered alongside them for
 * existing clients (`default_output_folder`, `system_default_output_dir`) and for the spec's
 * second spelling (`defaultOutputDir`), and accepted on input.
 */
const defaultFolderKeys = [
  'defaultOutputFolder',
  'default_output_folder',
  'defaultOutputDir',
] as const;
const systemFolderKeys = ['systemDefaultOutputDir', 'system_default_output_dir'] as const;

export interface PreferencesDeps {
  forwarder: Forwarder;
  config: Pick<GatewayConfig, 'uidDomain' | 'dataStore'>;
  /** Output folders known to exist (`user\0path`), so the data store is asked once per user and process. */
  ensuredOutputFolders: LRUCache<string, true>;
}

/** `<home>/<DEFAULT_OUTPUT_FOLDER>`: where analysis results go unless the user picked a folder. */
export function systemDefaultFolder(config: PreferencesDeps['config'], username: string): Folder {
  const folderPath = `${basePaths(config.dataStore.zone, username).user_home_path}/${config.dataStore.defaultOutputFolder}`;
  return { id: folderPath, path: folderPath };
}

const controlCharacters = /[\u0000-\u001f\u007f]/;

/** A folder value as clients send it: a path string, `{id, path}`, or a whole stat object (extra keys dropped). */
function parseFolder(value: unknown, key: string): Folder | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const folderPath =
    typeof value === 'string'
      ? value
      : typeof value === 'object'
        ? (value as { path?: unknown }).path
        : undefined;
  if (
    typeof folderPath !== 'string' ||
    !folderPath.startsWith('/') ||
    controlCharacters.test(folderPath) ||
    folderPath.length > 4096
  ) {
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      `${key} must be an absolute folder path or an object with one in "path"`,
      { field: key },
    );
  }
  const id = typeof value === 'object' ? (value as { id?: unknown }).id : undefined;
  return { id: typeof id === 'string' && id !== '' ? id : folderPath, path: folderPath };
}

/** Tolerant reading of stored documents: a value that is not a folder counts as absent. */
function storedFolder(preferences: Preferences, keys: readonly string[]): Folder | undefined {
  for (const key of keys) {
    try {
      const folder = parseFolder(preferences[key], key);
      if (folder) return folder;
    } catch {
      // fall through to the next spelling
    }
  }
  return undefined;
}

function withoutFolderKeys(preferences: Preferences): Preferences {
  const rest = { ...preferences };
  for (const key of [...defaultFolderKeys, ...systemFolderKeys]) delete rest[key];
  return rest;
}

/** The stored form: the caller's keys plus the two canonical folder keys. */
function storedForm(preferences: Preferences, chosen: Folder, system: Folder): Preferences {
  return {
    ...withoutFolderKeys(preferences),
    defaultOutputFolder: chosen,
    systemDefaultOutputDir: system,
  };
}

/** The answered form: the stored one with every accepted spelling of the two folder keys. */
function answeredForm(stored: Preferences): Preferences {
  const chosen = stored.defaultOutputFolder as Folder;
  const system = stored.systemDefaultOutputDir as Folder;
  return {
    ...stored,
    default_output_folder: chosen,
    defaultOutputDir: chosen,
    system_default_output_dir: system,
  };
}

function sameFolder(a: Folder | undefined, b: Folder | undefined): boolean {
  return a?.path === b?.path && a?.id === b?.id;
}

function userInfoPath(identity: Identity, uidDomain: string): string {
  return `/preferences/${encodeURIComponent(qualifiedUsername(identity.username, uidDomain))}`;
}

async function readStored(
  deps: PreferencesDeps,
  identity: Identity,
  requestId: string,
): Promise<Preferences> {
  const stored = await deps.forwarder.callJson<unknown>(
    'user-info',
    { method: 'GET', path: userInfoPath(identity, deps.config.uidDomain), identityStyle: 'path' },
    requestId,
  );
  return typeof stored === 'object' && stored !== null && !Array.isArray(stored)
    ? (stored as Preferences)
    : {};
}

async function writeStored(
  deps: PreferencesDeps,
  identity: Identity,
  preferences: Preferences,
  requestId: string,
): Promise<void> {
  await deps.forwarder.callJson(
    'user-info',
    {
      method: 'POST',
      path: userInfoPath(identity, deps.config.uidDomain),
      identityStyle: 'path',
      json: preferences,
    },
    requestId,
  );
}

/**
 * Makes sure the default output folder exists, so the first analysis has somewhere to write.
 * Best effort: a data store that is down or remote and partial must not break preferences.
 */
async function ensureOutputFolder(
  deps: PreferencesDeps,
  identity: Identity,
  folder: Folder,
  requestId: string,
  log?: FastifyBaseLogger,
): Promise<void> {
  const ensured = deps.ensuredOutputFolders;
  const key = `${identity.username}\u0000${folder.path}`;
  if (ensured.has(key)) return;
  try {
    await deps.forwarder.callJson(
      'data-info',
      {
        method: 'POST',
        path: '/data/directories',
        identity,
        identityStyle: 'data-user',
        json: { paths: [folder.path] },
      },
      requestId,
    );
    ensured.set(key, true);
  } catch (error) {
    if (error instanceof GatewayError && error.errorCode === 'ERR_EXISTS') ensured.set(key, true);
    else if (error instanceof GatewayError && error.statusCode < 500)
      log?.debug({ err: error, folder: folder.path }, 'default output folder not created');
    else
      log?.warn(
        { err: error, folder: folder.path },
        'could not make sure the default output folder exists',
      );
  }
}

/** GET processing: fills in the folder keys (writing them back once, so stored preferences always carry them). */
export async function loadPreferences(
  deps: PreferencesDeps,
  identity: Identity,
  requestId: string,
  log?: FastifyBaseLogger,
): Promise<Preferences> {
  const stored = await readStored(deps, identity, requestId);
  const system = systemDefaultFolder(deps.config, identity.username);
  const chosen = storedFolder(stored, defaultFolderKeys) ?? system;
  const complete = storedForm(stored, chosen, system);
  if (
    !sameFolder(stored.defaultOutputFolder as Folder, chosen) ||
    !sameFolder(stored.systemDefaultOutputDir as Folder, system)
  ) {
    await writeStored(deps, identity, complete, requestId);
  }
  await ensureOutputFolder(deps, identity, chosen, requestId, log);
  return answeredForm(complete);
}

/**
 * POST processing: the body replaces everything. When a client echoes back several spellings of
 * the default folder and they disagree, the one that differs from the stored value is the edit.
 */
async function replacePreferences(
  deps: PreferencesDeps,
  identity: Identity,
  body: Preferences,
  requestId: string,
): Promise<Preferences> {
  const given = defaultFolderKeys
    .map((key) => parseFolder(body[key], key))
    .filter((folder): folder is Folder => folder !== undefined);
  const system = systemDefaultFolder(deps.config, identity.username);
  let chosen = given[0] ?? system;
  if (given.some((folder) => folder.path !== chosen.path)) {
    const previous = storedFolder(await readStored(deps, identity, requestId), defaultFolderKeys);
    chosen = given.find((folder) => folder.path !== previous?.path) ?? chosen;
  }
  const stored = storedForm(body, chosen, system);
  await writeStored(deps, identity, stored, requestId);
  return answeredForm(stored);
}

const FolderSchema = Type.Object(
  { id: Type.String(), path: Type.String() },
  { description: 'A data-store folder; `id` is its path' },
);
export const PreferencesSchema = Type.Object(
  {
    defaultOutputFolder: FolderSchema,
    systemDefaultOutputDir: FolderSchema,
    default_output_folder: FolderSchema,
    system_default_output_dir: FolderSchema,
    defaultOutputDir: FolderSchema,
  },
  {
    additionalProperties: true,
    description: 'Any JSON object; the output-folder keys are always present',
  },
);

export async function preferencesRoutes(
  app: FastifyInstance,
  deps: PreferencesDeps,
): Promise<void> {
  // Routes default to auth level `user`: the guard has set request.identity before a handler runs.
  const common = { tags: ['misc'], security: routeSecurity('user') };

  app.get('/secured/preferences', {
    schema: {
      ...common,
      summary: "The caller's preferences, with output-folder defaults filled in",
      response: { 200: PreferencesSchema },
    },
    handler: async (request) => loadPreferences(deps, request.identity!, request.id, request.log),
  });

  app.post('/secured/preferences', {
    schema: {
      ...common,
      summary: 'Replace all preferences (keys left out are removed)',
      body: Type.Object(
        {},
        { additionalProperties: true, description: 'The whole preferences object' },
      ),
      response: { 200: Type.Object({ preferences: PreferencesSchema }) },
    },
    handler: async (request) => ({
      preferences: await replacePreferences(
        deps,
        request.identity!,
        request.body as Preferences,
        request.id,
      ),
    }),
  });

  app.delete('/secured/preferences', {
    schema: {
      ...common,
      summary: 'Remove stored preferences (the defaults remain)',
      response: { 200: Type.Object({}) },
    },
    handler: async (request) => {
      const identity = request.identity!;
      await deps.forwarder.callJson(
        'user-info',
        {
          method: 'DELETE',
          path: userInfoPath(identity, deps.config.uidDomain),
          identityStyle: 'path',
        },
        request.id,
      );
      return {};
    },
  });
}

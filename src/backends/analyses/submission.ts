// The checks a quick launch's submission passes on create and update (backends.md §6): its app
// exists and its creator can see it, its version is one of the app's (the current one when none
// is named), and every data-store path its file and folder parameters name is readable by whoever
// may use it — the creator, or everyone for a public quick launch. Required parameters may be absent.
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import {
  currentVersions,
  pathParameterTypes,
  visibleAppsQuery,
  type AppDefinition,
} from '../apps/index.ts';
import { normalizeDataPath } from '../../common/data-path.ts';
import { anonymousUser, atLeast, type ObjectIndex } from '../data-info/index.ts';
import type { Submission } from './model.ts';
import { isJsonObject } from '../../common/request-body.ts';
import { errorAs, gatewayError } from '../../common/errors.ts';

const PATH_BATCH = 500;
/** The submission's own fields a quick launch may leave out, and their types when present. */
const submissionFieldTypes = [
  ['system_id', 'string'],
  ['app_id', 'string'],
  ['name', 'string'],
  ['output_dir', 'string'],
  ['debug', 'boolean'],
  ['notify', 'boolean'],
] as const;
const bad = (field: string, reason: string) =>
  gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field });

export interface QuickLaunchTarget {
  creator: string;
  appId: string;
  /** Undefined: the app's current version. */
  appVersionId?: string;
  isPublic: boolean;
  submission: unknown;
}

export interface CheckedTarget {
  appId: string;
  appVersionId: string;
  submission: Submission;
}

/** The app `user` may see (public or theirs, not deleted), or 404. */
export async function appVisibleTo(db: Kysely<Database>, user: string, appId: string) {
  const row = await visibleAppsQuery(db, user)
    .selectAll('apps')
    .where('apps.id', '=', appId.toLowerCase())
    .executeTakeFirst();
  if (!row)
    throw gatewayError('ERR_NOT_FOUND', `no app ${appId} that ${user} can see`, { app_id: appId });
  return row;
}

/** The app's version `versionId` (or its current one) with its definition, or 404. */
async function versionOf(db: Kysely<Database>, appId: string, versionId: string | undefined) {
  const version = versionId
    ? await db
        .selectFrom('app_versions')
        .selectAll()
        .where('app_id', '=', appId)
        .where('id', '=', versionId.toLowerCase())
        .executeTakeFirst()
    : (await currentVersions(db, [appId])).get(appId);
  if (!version)
    throw gatewayError(
      'ERR_NOT_FOUND',
      versionId ? `app ${appId} has no version ${versionId}` : `app ${appId} has no version`,
      { app_id: appId, app_version_id: versionId },
    );
  return { id: version.id, definition: JSON.parse(version.definition) as AppDefinition };
}

/** `<step id>_<parameter id>` → parameter type, for the parameters whose values name data-store paths. */
export function pathParameters(definition: AppDefinition): Map<string, string> {
  const keys = new Map<string, string>();
  for (const group of definition.groups) {
    const step = definition.steps[(group.step_number ?? 1) - 1];
    for (const parameter of group.parameters) {
      if (pathParameterTypes.includes(parameter.type))
        keys.set(`${step?.id ?? 'step'}_${parameter.id}`, parameter.type);
    }
  }
  return keys;
}

/** A path value as clients send it: a string, or `{path}` as app-info shows it. Blank: nothing. */
function pathIn(value: unknown, field: string): string | undefined {
  const path = isJsonObject(value) ? value.path : value;
  if (path === undefined || path === null || path === '') return undefined;
  if (typeof path !== 'string')
    throw bad(field, `"${field}" must be a data-store path (or {path})`);
  return path;
}

/** The paths one parameter's value names: one for file and folder inputs, a list for MultiFileSelector. */
function pathsIn(type: string, value: unknown, field: string): string[] {
  // A MultiFileSelector's list, or `{path: [...]}` as app-info shows it.
  const list = isJsonObject(value) && Array.isArray(value.path) ? value.path : value;
  if (type === 'MultiFileSelector' && Array.isArray(list))
    return list
      .map((item, index) => pathIn(item, `${field}[${index}]`))
      .filter((path): path is string => path !== undefined);
  const path = pathIn(value, field);
  return path === undefined ? [] : [path];
}

/** Which of these paths name something in the data store (in batches, to bound the query). */
async function existing(db: Kysely<Database>, paths: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let start = 0; start < paths.length; start += PATH_BATCH) {
    const rows = await db
      .selectFrom('data_objects')
      .select('path')
      .where('path', 'in', paths.slice(start, start + PATH_BATCH))
      .execute();
    for (const row of rows) found.add(row.path);
  }
  return found;
}

/** Checks a quick launch's app, version and submission; answers the version to store. */
export async function checkTarget(
  db: Kysely<Database>,
  catalog: ObjectIndex,
  target: QuickLaunchTarget,
): Promise<CheckedTarget> {
  if (!isJsonObject(target.submission))
    throw bad('submission', '"submission" must be an analysis submission (a JSON object)');
  const submission = target.submission as Submission;
  const config = submission.config ?? {};
  if (!isJsonObject(config))
    throw bad('submission.config', '"submission.config" must be an object of parameter values');
  // Stored as given and answered as given: a field that is there has the type a launch reads.
  for (const [field, type] of submissionFieldTypes) {
    const value = (submission as Record<string, unknown>)[field];
    if (value !== undefined && typeof value !== type)
      throw bad(`submission.${field}`, `"submission.${field}" must be a ${type}`);
  }

  const app = await appVisibleTo(db, target.creator, target.appId);
  const version = await versionOf(db, app.id, target.appVersionId);

  const named = new Set<string>();
  for (const [key, type] of pathParameters(version.definition)) {
    const field = `submission.config.${key}`;
    for (const path of pathsIn(type, config[key], field))
      named.add(normalizeDataPath(path, catalog.zone, field));
  }
  // A public quick launch is for everyone: what it names must be readable without any account.
  const reader = target.isPublic ? anonymousUser : target.creator;
  const [permissions, present] = await Promise.all([
    catalog.permissions(reader, [...named]),
    existing(db, [...named]),
  ]);
  // A grant on a folder covers paths below it that do not exist: those are refused too.
  const unreadable = [...named].filter(
    (path) => !present.has(path) || !atLeast(permissions.get(path), 'read'),
  );
  if (unreadable.length > 0) {
    const reason = target.isPublic
      ? `a public quick launch may only name paths everyone can read; these are not: ${unreadable.join(', ')}`
      : `${target.creator} cannot read (or there is nothing at) ${unreadable.join(', ')}`;
    throw errorAs('ERR_NOT_READABLE', 'namedInBody', reason, {
      field: 'submission.config',
      paths: unreadable,
      public: target.isPublic,
    });
  }
  return { appId: app.id, appVersionId: version.id, submission };
}

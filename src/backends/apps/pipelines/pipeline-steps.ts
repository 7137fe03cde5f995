// A pipeline's steps as the editor sends them (DE's PipelineStep: `name`, `description`, `task_id`,
// `app_type`, and here also `app_id`, `app_version_id`), each resolved to the single-step app it
// runs, and stored as shared/definition.ts describes: the app's tool, the app and version named,
// the app's groups copied under the step. In DE `task_id` names a task, which is what
// `/apps/{id}/tasks` lists; here that is an app's step id (a step belongs to one version), and the
// app's own id is taken too: `app_version_id` picks the version, else the version holding the step
// `task_id` names, else the app's current version.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import {
  currentVersions,
  visibleAppsQuery,
  type AppRow,
  type VersionRow,
} from '../catalog/index.ts';
import { isPipeline, type AppDefinition, type AppGroup, type AppStep } from '../shared/index.ts';
import { isJsonObject } from '../../../common/request-body.ts';
import { gatewayError } from '../../../common/errors.ts';

const bad = (field: string, reason: string, extra: Record<string, unknown> = {}) =>
  gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field, ...extra });
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const definitionOf = (version: VersionRow) => JSON.parse(version.definition) as AppDefinition;

/** The single-step app a pipeline step runs, at one version. */
interface Component {
  app: AppRow;
  version: VersionRow;
  definition: AppDefinition;
}

/**
 * Apps a step may name: those `user` sees and, for a pipeline being edited, the apps its versions
 * already run (a `write` grantee keeps the owner's private apps in it, as the app editor keeps an
 * app's private tools), never deleted ones.
 */
function reachableApps(db: Kysely<Database>, user: string, kept: string[]) {
  if (kept.length === 0) return visibleAppsQuery(db, user);
  return db
    .selectFrom('apps')
    .where('apps.deleted', '=', false)
    .where((eb) =>
      eb.or([
        eb('apps.id', 'in', visibleAppsQuery(db, user).select('apps.id')),
        eb('apps.id', 'in', kept),
      ]),
    );
}

/** The ids of the apps a pipeline's versions run. */
export async function appsRunBy(db: Kysely<Database>, pipelineId: string): Promise<string[]> {
  const versions = await db
    .selectFrom('app_versions')
    .select('definition')
    .where('app_id', '=', pipelineId)
    .execute();
  const ids = versions.flatMap((version) =>
    (JSON.parse(version.definition) as AppDefinition).steps.flatMap((step) =>
      step.app_id ? [step.app_id] : [],
    ),
  );
  return [...new Set(ids)];
}

/** Who asks, and the apps they may name beyond those they see (reachableApps). */
interface Asker {
  user: string;
  kept: string[];
}

/** The app of system `de` with this id that the step may name. */
const seenApp = (db: Kysely<Database>, asker: Asker, appId: string) =>
  reachableApps(db, asker.user, asker.kept)
    .selectAll('apps')
    .where('apps.id', '=', appId)
    .where('apps.system_id', '=', 'de')
    .executeTakeFirst();

/**
 * The versions of apps the step may name (of `appId` only, when given) that hold a step with this
 * id: current versions first, then the newest (a copied app keeps its steps' ids).
 */
async function versionsWithStep(
  db: Kysely<Database>,
  asker: Asker,
  stepId: string,
  appId?: string,
): Promise<VersionRow[]> {
  if (!uuidPattern.test(stepId)) return [];
  let query = reachableApps(db, asker.user, asker.kept)
    .innerJoin('app_versions', 'app_versions.app_id', 'apps.id')
    .selectAll('app_versions')
    .where('apps.system_id', '=', 'de')
    .where('app_versions.definition', 'like', `%${stepId}%`);
  if (appId) query = query.where('apps.id', '=', appId);
  const holding = (await query.execute()).filter((version) =>
    definitionOf(version).steps.some((step) => step.id.toLowerCase() === stepId),
  );
  const current = await currentVersions(db, [...new Set(holding.map((row) => row.app_id))]);
  const isCurrent = (version: VersionRow) => current.get(version.app_id)?.id === version.id;
  return holding.sort(
    (a, b) => Number(isCurrent(b)) - Number(isCurrent(a)) || b.created_on - a.created_on,
  );
}

/** What one step of the body names: an app of `user`'s, at one version. 400 naming the field otherwise. */
async function componentOf(
  db: Kysely<Database>,
  asker: Asker,
  step: Record<string, unknown>,
  field: string,
): Promise<Component> {
  const text = (name: string) => {
    const value = step[name];
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') throw bad(`${field}.${name}`, `"${name}" must be a string`);
    return value.toLowerCase();
  };
  const appType = text('app_type');
  if (
    (appType && appType !== 'de') ||
    text('external_app_id') ||
    (text('system_id') ?? 'de') !== 'de'
  )
    throw bad(`${field}.app_type`, 'a pipeline step must be an app of system "de" (app_type "DE")');
  const taskId = text('task_id');
  const appId = text('app_id');
  const versionId = text('app_version_id');
  if (!taskId && !appId)
    throw bad(
      `${field}.task_id`,
      'a step names its app: "task_id" (a step of the app, or its id) or "app_id"',
    );

  let app: AppRow | undefined;
  let version: VersionRow | undefined;
  if (appId) {
    app = await seenApp(db, asker, appId);
    if (!app) throw bad(`${field}.app_id`, `no app ${appId} that you can see`, { app_id: appId });
  } else {
    app = await seenApp(db, asker, taskId!);
    if (!app) {
      version = (await versionsWithStep(db, asker, taskId!))[0];
      if (!version)
        throw bad(`${field}.task_id`, `no app or app step ${taskId} that you can see`, {
          task_id: taskId,
        });
      app = (await seenApp(db, asker, version.app_id))!;
    }
  }
  if (versionId) {
    version = await db
      .selectFrom('app_versions')
      .selectAll()
      .where('app_id', '=', app.id)
      .where('id', '=', versionId)
      .executeTakeFirst();
    if (!version)
      throw bad(`${field}.app_version_id`, `app ${app.id} has no version ${versionId}`, {
        app_version_id: versionId,
      });
  } else if (!version && taskId && taskId !== app.id) {
    version = (await versionsWithStep(db, asker, taskId, app.id))[0];
    if (!version)
      throw bad(`${field}.task_id`, `app ${app.id} has no step ${taskId}`, { task_id: taskId });
  }
  version ??= (await currentVersions(db, [app.id])).get(app.id)!;

  const definition = definitionOf(version);
  const refuse = (reason: string) =>
    bad(field, `app "${app.name}" ${reason}: a pipeline's steps are apps of one step with a tool`, {
      app_id: app.id,
    });
  if (isPipeline(definition)) throw refuse('is a pipeline');
  if (definition.steps.length !== 1) throw refuse(`has ${definition.steps.length} steps`);
  if (!definition.steps[0]!.tool_id) throw refuse('has no tool');
  return { app, version, definition };
}

/**
 * The stored steps, groups and requirements of a pipeline from the body's `steps` (at least one).
 * A step that runs the same app version as the `previous` definition's step at its place keeps
 * that step's id, so launch forms and quick launches naming `<step id>_<parameter id>` stay valid.
 */
export async function pipelineSteps(
  db: Kysely<Database>,
  asker: Asker,
  body: unknown,
  previous?: AppDefinition,
): Promise<Pick<AppDefinition, 'steps' | 'groups' | 'requirements'>> {
  if (!Array.isArray(body) || body.length === 0)
    throw bad('steps', 'a pipeline needs "steps": a list of at least one step');
  const steps: AppStep[] = [];
  const groups: AppGroup[] = [];
  const requirements: Record<string, unknown>[] = [];
  const groupIds = new Set<string>();
  for (const [index, given] of body.entries()) {
    const field = `steps[${index}]`;
    if (!isJsonObject(given)) throw bad(field, 'a step must be an object');
    for (const name of ['name', 'description'])
      if (given[name] !== undefined && given[name] !== null && typeof given[name] !== 'string')
        throw bad(`${field}.${name}`, `"${name}" must be a string`);
    const { app, version, definition } = await componentOf(db, asker, given, field);
    const kept = previous?.steps[index];
    steps.push({
      id: kept && kept.app_version_id === version.id ? kept.id : randomUUID(),
      name: (given.name as string | undefined)?.trim() || app.name,
      description: (given.description as string | undefined) ?? app.description,
      tool_id: definition.steps[0]!.tool_id,
      app_id: app.id,
      app_version_id: version.id,
    });
    // Copies, parameter ids kept (mappings name them); a group id is made anew only when an app
    // used twice would repeat it.
    for (const group of structuredClone(definition.groups)) {
      const id = groupIds.has(group.id) ? randomUUID() : group.id;
      groupIds.add(id);
      groups.push({ ...group, id, step_number: index + 1 });
    }
    for (const requirement of definition.requirements ?? [])
      if ((requirement.step_number ?? 1) === 1)
        requirements.push({ ...requirement, step_number: index + 1 });
  }
  return { steps, groups, ...(requirements.length > 0 ? { requirements } : {}) };
}

// One app as a caller sees it (backends.md §5.1): the app a user may see, and its launch form
// (AppJobView) with parameter ids as submissions name them. Used by the catalog's routes, app
// editing, analysis submission and, through the door, the analyses service's quick launches.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { currentVersions, listingEntries, visibleAppsQuery } from './app-listings.ts';
import { mappedInputs, type AppDefinition } from '../shared/index.ts';
import { gatewayError } from '../../../common/errors.ts';

/**
 * The launch view of a definition: parameter ids become `<step id>_<parameter id>`. A pipeline's
 * inputs fed by an earlier step's output are left out (the form asks only for what the user
 * gives), and so is a group left with nothing to ask.
 */
export function jobViewGroups(definition: AppDefinition) {
  const mapped = mappedInputs(definition);
  return definition.groups.flatMap((group) => {
    const stepNumber = group.step_number ?? 1;
    const step = definition.steps[stepNumber - 1];
    const parameters = group.parameters.filter(
      (parameter) => !mapped(stepNumber - 1, parameter.id),
    );
    if (parameters.length === 0 && group.parameters.length > 0) return [];
    return [
      {
        id: group.id,
        name: group.name ?? '',
        label: group.label,
        description: group.description ?? '',
        isVisible: group.isVisible ?? true,
        step_number: stepNumber,
        parameters: parameters.map((parameter) => ({
          ...parameter,
          id: `${step?.id ?? 'step'}_${parameter.id}`,
        })),
      },
    ];
  });
}

/** An app's row in the catalog. */
export type AppRow = Selectable<Database['apps']>;

/** The app `user` may see, or 404 naming it. */
export async function visibleApp(
  db: Kysely<Database>,
  user: string,
  systemId: string,
  appId: string,
): Promise<AppRow> {
  const row = await visibleAppsQuery(db, user)
    .selectAll('apps')
    .where('apps.id', '=', appId.toLowerCase())
    .where('apps.system_id', '=', systemId.toLowerCase())
    .executeTakeFirst();
  if (!row)
    throw gatewayError('ERR_NOT_FOUND', `no app ${appId} in system ${systemId}`, {
      app_id: appId,
      system_id: systemId,
    });
  return row;
}

/** Any app by id, deleted or private: administrators' routes. 404 when there is none. */
export async function anyApp(
  db: Kysely<Database>,
  systemId: string,
  appId: string,
): Promise<AppRow> {
  const row = await db
    .selectFrom('apps')
    .selectAll()
    .where('id', '=', appId.toLowerCase())
    .where('system_id', '=', systemId.toLowerCase())
    .executeTakeFirst();
  if (!row)
    throw gatewayError('ERR_NOT_FOUND', `no app ${appId} in system ${systemId}`, {
      app_id: appId,
      system_id: systemId,
    });
  return row;
}

/** An app's versions, newest first, as listings name them. */
export async function versionsOf(db: Kysely<Database>, appId: string) {
  const rows = await db
    .selectFrom('app_versions')
    .select(['id', 'version'])
    .where('app_id', '=', appId)
    .orderBy('version_order', 'desc')
    .execute();
  return rows.map((row) => ({ version: row.version, version_id: row.id }));
}

/** The launch form (AppJobView) of an app's current version, or of `versionId`. */
export async function launchView(
  db: Kysely<Database>,
  user: string,
  row: AppRow,
  versionId?: string,
) {
  const [[entry], versions, current] = await Promise.all([
    listingEntries(db, [row], user),
    versionsOf(db, row.id),
    currentVersions(db, [row.id]),
  ]);
  const version = versionId
    ? await db
        .selectFrom('app_versions')
        .selectAll()
        .where('app_id', '=', row.id)
        .where('id', '=', versionId.toLowerCase())
        .executeTakeFirst()
    : current.get(row.id);
  if (!version)
    throw gatewayError('ERR_NOT_FOUND', `app ${row.id} has no version ${versionId}`, {
      app_id: row.id,
      version_id: versionId,
    });
  const definition = JSON.parse(version.definition) as AppDefinition;
  return {
    id: row.id,
    name: row.name,
    label: row.name,
    description: row.description,
    app_type: entry!.app_type,
    system_id: row.system_id,
    deleted: entry!.deleted,
    disabled: entry!.disabled,
    debug: false,
    version: version.version,
    version_id: version.id,
    integration_date: entry!.integration_date,
    edited_date: entry!.edited_date,
    overall_job_type: entry!.overall_job_type,
    requirements: definition.requirements ?? [],
    versions,
    limitChecks: entry!.limitChecks,
    groups: jobViewGroups(definition),
  };
}

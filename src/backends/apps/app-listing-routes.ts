// The catalog's read routes (backends.md §5.1): listing and search, one app's launch view
// (AppJobView), details (AppDetails) and listing entry.
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely, Selectable } from 'kysely';
import { normalizeQuery, badQueryParam, countParam } from '../../common/query-params.js';
import type { Database } from '../../store/schema.js';
import {
  currentVersions,
  listApps,
  listingEntries,
  sortFields,
  visibleApps,
  type ListingQuery,
  type SortField,
} from './app-listings.js';
import { jobStats } from './analyses/job-stats.js';
import type { AppDefinition } from './definition.js';
import { shortUser } from './caller.js';
import { gatewayError } from '../../common/errors.js';

/** The launch view of a definition: parameter ids become `<step id>_<parameter id>`. */
export function jobViewGroups(definition: AppDefinition) {
  return definition.groups.map((group) => {
    const stepNumber = group.step_number ?? 1;
    const step = definition.steps[stepNumber - 1];
    return {
      id: group.id,
      name: group.name ?? '',
      label: group.label,
      description: group.description ?? '',
      isVisible: group.isVisible ?? true,
      step_number: stepNumber,
      parameters: group.parameters.map((parameter) => ({
        ...parameter,
        id: `${step?.id ?? 'step'}_${parameter.id}`,
      })),
    };
  });
}

type AppRow = Selectable<Database['apps']>;

/** The app `user` may see, or 404 naming it. */
export async function visibleApp(
  db: Kysely<Database>,
  user: string,
  systemId: string,
  appId: string,
): Promise<AppRow> {
  const row = await visibleApps(db, user)
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

async function versionsOf(db: Kysely<Database>, appId: string) {
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

/** The paging, sorting and filtering of an app listing (`/apps`, category listings). */
export function listingQuery(raw: unknown): ListingQuery {
  const query = normalizeQuery(raw) as Record<string, string>;
  const sortField = (query['sort-field'] ?? 'name').toLowerCase();
  const sortDir = (query['sort-dir'] ?? 'asc').toLowerCase();
  if (!(sortFields as readonly string[]).includes(sortField))
    throw badQueryParam('sort-field', `sort-field must be one of ${sortFields.join(', ')}`);
  if (sortDir !== 'asc' && sortDir !== 'desc')
    throw badQueryParam('sort-dir', 'sort-dir must be ASC or DESC');
  const appType = query['app-type'];
  return {
    search: query.search?.trim() || undefined,
    limit: countParam(query, 'limit', 0),
    offset: countParam(query, 'offset', 0),
    sortField: sortField as SortField,
    sortDir,
    appType:
      appType === undefined || appType === '' || appType.toLowerCase() === 'all'
        ? undefined
        : appType,
  };
}

/** AppDetails (backends.md §5.1): the listing entry with tools, references, categories, versions, job statistics. */
async function appDetails(db: Kysely<Database>, user: string, row: AppRow) {
  const [[entry], versions, current, stats] = await Promise.all([
    listingEntries(db, [row], user),
    versionsOf(db, row.id),
    currentVersions(db, [row.id]),
    jobStats(db, [row.id]),
  ]);
  const version = current.get(row.id);
  const definition = JSON.parse(version?.definition ?? '{"steps":[],"groups":[]}') as AppDefinition;
  const toolIds = definition.steps
    .map((step) => step.tool_id)
    .filter((id): id is string => id !== null);
  const tools =
    toolIds.length === 0
      ? []
      : await db
          .selectFrom('tools')
          .select(['id', 'name', 'description', 'location', 'type', 'version', 'attribution'])
          .where('id', 'in', toolIds)
          .execute();
  const categories = await db
    .selectFrom('app_category_apps as c')
    .innerJoin('app_categories as k', 'k.id', 'c.category_id')
    .select(['k.id', 'k.name'])
    .where('c.app_id', '=', row.id)
    .execute();
  return {
    ...entry,
    tools,
    references: JSON.parse(version?.reference_urls ?? '[]') as string[],
    categories,
    suggested_categories: [],
    versions,
    job_stats: stats.get(row.id)!,
  };
}

export const catalogRoutes: FastifyPluginAsync<{ db: Kysely<Database> }> = async (app, { db }) => {
  app.get('/apps', async (request) =>
    listApps(db, shortUser(request.query), listingQuery(request.query)),
  );

  app.get<{ Params: { systemId: string; appId: string } }>(
    '/apps/:systemId/:appId',
    async (request) => {
      const user = shortUser(request.query);
      return launchView(
        db,
        user,
        await visibleApp(db, user, request.params.systemId, request.params.appId),
      );
    },
  );

  app.get<{ Params: { systemId: string; appId: string } }>(
    '/apps/:systemId/:appId/details',
    async (request) => {
      const user = shortUser(request.query);
      const details = await appDetails(
        db,
        user,
        await visibleApp(db, user, request.params.systemId, request.params.appId),
      );
      const { job_count_completed, job_last_completed } = details.job_stats;
      return {
        ...details,
        job_stats: { job_count_completed, ...(job_last_completed ? { job_last_completed } : {}) },
      };
    },
  );

  // Administrators see any app, deleted or private, with all its job statistics and its documentation.
  app.get<{ Params: { systemId: string; appId: string } }>(
    '/admin/apps/:systemId/:appId/details',
    async (request) => {
      const user = shortUser(request.query);
      const row = await db
        .selectFrom('apps')
        .selectAll()
        .where('id', '=', request.params.appId.toLowerCase())
        .where('system_id', '=', request.params.systemId.toLowerCase())
        .executeTakeFirst();
      if (!row)
        throw gatewayError(
          'ERR_NOT_FOUND',
          `no app ${request.params.appId} in system ${request.params.systemId}`,
          { app_id: request.params.appId },
        );
      const details = await appDetails(db, user, row);
      const version = (await currentVersions(db, [row.id])).get(row.id);
      return {
        ...details,
        documentation: {
          app_id: row.id,
          version_id: version?.id,
          documentation: version?.documentation ?? '',
          references: details.references,
        },
        extra: {},
        hierarchies: [],
      };
    },
  );

  app.get<{ Params: { systemId: string; appId: string } }>(
    '/apps/:systemId/:appId/listing',
    async (request) => {
      const user = shortUser(request.query);
      const row = await visibleApp(db, user, request.params.systemId, request.params.appId);
      return { total: 1, apps: await listingEntries(db, [row], user) };
    },
  );
};

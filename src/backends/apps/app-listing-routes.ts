// The catalog's read routes (backends.md §5.1): listing and search, one app's launch view
// (AppJobView), details (AppDetails) and listing entry.
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import { normalizeQuery, badQueryParam, countParam } from '../../common/query-params.js';
import type { Database } from '../../store/schema.js';
import {
  currentVersions,
  listApps,
  listingEntries,
  sortFields,
  type ListingQuery,
  type SortField,
} from './app-listings.js';
import { jobStats } from './job-stats.js';
import { launchView, versionsOf, visibleApp, type AppRow } from './app-views.js';
import type { AppDefinition } from './definition.js';
import { shortUser } from './caller.js';
import { gatewayError } from '../../common/errors.js';

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
  const tools = (
    toolIds.length === 0
      ? []
      : await db
          .selectFrom('tools')
          .select([
            'id',
            'name',
            'description',
            'location',
            'type',
            'version',
            'attribution',
            'container',
          ])
          .where('id', 'in', toolIds)
          .execute()
  ).map(({ container, ...tool }) => ({
    ...tool,
    ...(container ? { container: JSON.parse(container) as Record<string, unknown> } : {}),
  }));
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

// The catalog's read routes (backends.md §5.1): listing and search, one app's launch view
// (AppJobView), details (AppDetails) and listing entry.
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import { normalizeQuery, badQueryParam, countParam } from '../../../common/query-params.ts';
import type { Database } from '../../../store/schema.ts';
import {
  currentVersions,
  listApps,
  listingEntries,
  sortFields,
  type ListingQuery,
  type SortField,
} from './app-listings.ts';
import { jobStats } from './job-stats.ts';
import { launchView, versionsOf, visibleApp, type AppRow, anyApp } from './app-views.ts';
import { shortUser, type AppDefinition } from '../shared/index.ts';
import { documentationOf, toolsOf } from './app-versions.ts';
import { gatewayError } from '../../../common/errors.ts';

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

/**
 * AppDetails (backends.md §5.1): the listing entry with tools, references, categories, versions,
 * job statistics; of the current version, or of `versionId` (404 when the app has no such version).
 */
export async function appDetails(
  db: Kysely<Database>,
  user: string,
  row: AppRow,
  versionId?: string,
) {
  const [[entry], versions, current, stats] = await Promise.all([
    listingEntries(db, [row], user),
    versionsOf(db, row.id),
    versionId
      ? db
          .selectFrom('app_versions')
          .selectAll()
          .where('app_id', '=', row.id)
          .where('id', '=', versionId.toLowerCase())
          .execute()
          .then((rows) => new Map(rows.map((version) => [row.id, version])))
      : currentVersions(db, [row.id]),
    jobStats(db, [row.id]),
  ]);
  const version = current.get(row.id);
  if (versionId && !version)
    throw gatewayError('ERR_NOT_FOUND', `app ${row.id} has no version ${versionId}`, {
      app_id: row.id,
      version_id: versionId,
    });
  const definition = JSON.parse(version?.definition ?? '{"steps":[],"groups":[]}') as AppDefinition;
  const tools = await toolsOf(db, definition);
  const categories = await db
    .selectFrom('app_category_apps as c')
    .innerJoin('app_categories as k', 'k.id', 'c.category_id')
    .select(['k.id', 'k.name'])
    .where('c.app_id', '=', row.id)
    .execute();
  return {
    ...entry,
    ...(version ? { version: version.version, version_id: version.id } : {}),
    tools,
    references: JSON.parse(version?.reference_urls ?? '[]') as string[],
    categories,
    suggested_categories: [],
    versions,
    job_stats: stats.get(row.id)!,
  };
}

/**
 * AdminAppDetails (routes.md §17): AppDetails of any app (of `versionId`, or its current version)
 * with the version's documentation and the app's `extra` (set by administrators).
 */
export async function adminAppDetails(
  db: Kysely<Database>,
  user: string,
  row: AppRow,
  versionId?: string,
) {
  const details = await appDetails(db, user, row, versionId);
  const [documentation, extra] = await Promise.all([
    documentationOf(db, row.id, details.version_id as string | undefined),
    db.selectFrom('app_extras').select('extra').where('app_id', '=', row.id).executeTakeFirst(),
  ]);
  return {
    ...details,
    documentation,
    extra: extra ? (JSON.parse(extra.extra) as unknown) : {},
    hierarchies: [],
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
    async (request) =>
      adminAppDetails(
        db,
        shortUser(request.query),
        await anyApp(db, request.params.systemId, request.params.appId),
      ),
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

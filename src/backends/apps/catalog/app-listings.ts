// Reading the app catalog (backends.md §5.1): who sees which apps, and the AppListingDetail of
// each (spec "App models"). Listings page, search and sort in SQL; what a page shows about its
// apps (current version, steps, favourites, ratings) comes in one query per kind, not per app.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { asBoolean } from '../../../store/sqlite-booleans.ts';
import { paged } from '../../../store/paging.ts';
import {
  anonymousUser,
  isPipeline,
  levelOf,
  sharedIds,
  sharedLevels,
  type AppDefinition,
} from '../shared/index.ts';

const iso = (ms: number) => new Date(Number(ms)).toISOString();

type AppRow = Selectable<Database['apps']>;

/**
 * Apps `user` may see: public ones, their own and those shared with them; never deleted ones
 * (unless `withDeleted`).
 */
export function visibleAppsQuery(db: Kysely<Database>, user: string, withDeleted = false) {
  let query = db
    .selectFrom('apps')
    .where((eb) =>
      eb.or([
        eb('apps.is_public', '=', true),
        eb('apps.integrator', '=', user),
        ...(user === anonymousUser ? [] : [eb('apps.id', 'in', sharedIds(db, 'app', user))]),
      ]),
    );
  if (!withDeleted) query = query.where('apps.deleted', '=', false);
  return query;
}

export interface ListingQuery {
  search?: string;
  limit: number;
  offset: number;
  sortField: SortField;
  sortDir: 'asc' | 'desc';
  /** `DE` (the platform's apps) or undefined for every type. */
  appType?: string;
}

export const sortFields = [
  'name',
  'description',
  'integrator_name',
  'integration_date',
  'edited_date',
  'average_rating',
] as const;
export type SortField = (typeof sortFields)[number];

/** Latest version of each app (the highest version_order). */
export async function currentVersions(db: Kysely<Database>, appIds: string[]) {
  if (appIds.length === 0) return new Map<string, Selectable<Database['app_versions']>>();
  const rows = await db
    .selectFrom('app_versions as v')
    .selectAll('v')
    .where('v.app_id', 'in', appIds)
    .where('v.version_order', '=', (eb) =>
      eb
        .selectFrom('app_versions as w')
        .select((w) => w.fn.max('w.version_order').as('top'))
        .whereRef('w.app_id', '=', 'v.app_id'),
    )
    .execute();
  return new Map(rows.map((row) => [row.app_id, row]));
}

/** Whether an app may be a step of a pipeline: one step, with a tool, and not a pipeline itself. */
function pipelineEligibility(definition: AppDefinition, canRun: boolean) {
  const no = (reason: string) => ({ is_valid: false, reason });
  if (!canRun) return no('a step has no tool');
  if (definition.steps.length > 1) return no('the app has more than one step');
  if (isPipeline(definition)) return no('the app is a pipeline');
  return { is_valid: true, reason: '' };
}

/**
 * The apps whose versions run a tool, as `user` lists them: those they may see, or every app not
 * deleted with `everyApp` (administrators); by name.
 */
export async function appsUsingTool(
  db: Kysely<Database>,
  toolId: string,
  user: string,
  { everyApp = false }: { everyApp?: boolean } = {},
) {
  const from = everyApp
    ? db.selectFrom('apps').where('apps.deleted', '=', false)
    : visibleAppsQuery(db, user);
  const rows = await from
    .selectAll('apps')
    .where('apps.id', 'in', (eb) =>
      eb
        .selectFrom('app_versions')
        .innerJoin('app_version_tools', 'app_version_tools.app_version_id', 'app_versions.id')
        .select('app_versions.app_id')
        .where('app_version_tools.tool_id', '=', toolId),
    )
    .orderBy(sql`lower(apps.name)`)
    .orderBy('apps.id')
    .execute();
  return { apps: await listingEntries(db, rows, user) };
}

/** The AppListingDetail of each app, in the order given. */
export async function listingEntries(
  db: Kysely<Database>,
  apps: AppRow[],
  user: string,
): Promise<Record<string, unknown>[]> {
  const ids = apps.map((app) => app.id);
  if (ids.length === 0) return [];
  const [versions, favorites, ratings, mine, granted] = await Promise.all([
    currentVersions(db, ids),
    db
      .selectFrom('app_favorites')
      .select('app_id')
      .where('username', '=', user)
      .where('app_id', 'in', ids)
      .execute(),
    db
      .selectFrom('app_ratings')
      .select((eb) => [
        'app_id',
        eb.fn.avg<number>('rating').as('average'),
        eb.fn.countAll<number>().as('total'),
      ])
      .where('app_id', 'in', ids)
      .groupBy('app_id')
      .execute(),
    db
      .selectFrom('app_ratings')
      .select(['app_id', 'rating', 'comment_id'])
      .where('username', '=', user)
      .where('app_id', 'in', ids)
      .execute(),
    user === anonymousUser
      ? new Map<string, never>()
      : sharedLevels(
          db,
          'app',
          apps.filter((app) => app.integrator !== user).map((app) => app.id),
          user,
        ),
  ]);
  const favorite = new Set(favorites.map((row) => row.app_id));
  const rated = new Map(ratings.map((row) => [row.app_id, row]));
  const own = new Map(mine.map((row) => [row.app_id, row]));
  const known = user !== anonymousUser;
  return apps.map((app) => {
    const version = versions.get(app.id);
    const definition = version
      ? (JSON.parse(version.definition) as AppDefinition)
      : { steps: [], groups: [] };
    const canRun =
      definition.steps.length > 0 && definition.steps.every((step) => step.tool_id !== null);
    const average = rated.get(app.id);
    const userRating = own.get(app.id);
    return {
      id: app.id,
      name: app.name,
      description: app.description,
      app_type: app.system_id === 'de' ? 'DE' : app.system_id,
      version: version?.version,
      version_id: version?.id,
      system_id: app.system_id,
      integrator_name: app.integrator_name,
      integrator_email: app.integrator_email,
      integration_date: iso(app.integration_date),
      edited_date: iso(app.edited_date),
      ...(app.wiki_url ? { wiki_url: app.wiki_url } : {}),
      deleted: asBoolean(app.deleted),
      disabled: asBoolean(app.disabled),
      beta: asBoolean(app.beta),
      is_public: asBoolean(app.is_public),
      isBlessed: asBoolean(app.is_blessed),
      is_favorite: favorite.has(app.id),
      can_favor: known,
      can_rate: known,
      can_run: canRun,
      step_count: definition.steps.length,
      overall_job_type: 'executable',
      permission:
        levelOf(app.integrator, user, granted.get(app.id), asBoolean(app.is_public)) ?? 'read',
      pipeline_eligibility: pipelineEligibility(definition, canRun),
      rating: {
        average: average ? Number(Number(average.average).toFixed(2)) : 0,
        total: average ? Number(average.total) : 0,
        ...(userRating
          ? {
              user: userRating.rating,
              ...(userRating.comment_id ? { comment_id: userRating.comment_id } : {}),
            }
          : {}),
      },
      limitChecks: { canRun: canRun && !asBoolean(app.disabled), results: [] },
    };
  });
}

/**
 * One page of the apps `user` may see (or of `from`, for administrators), with the total before
 * paging; entries are as `user` sees them (permission, favourites, own rating).
 */
export async function listApps(
  db: Kysely<Database>,
  user: string,
  query: ListingQuery,
  restrict: (apps: ReturnType<typeof visibleAppsQuery>) => ReturnType<typeof visibleAppsQuery> = (
    apps,
  ) => apps,
  from: ReturnType<typeof visibleAppsQuery> = visibleAppsQuery(db, user),
): Promise<{ total: number; apps: Record<string, unknown>[] }> {
  let selection = restrict(from);
  if (query.search) {
    const pattern = `%${query.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    selection = selection.where((eb) =>
      eb.or([
        sql<boolean>`lower(apps.name) like ${pattern} escape '\\'`,
        sql<boolean>`lower(apps.description) like ${pattern} escape '\\'`,
      ]),
    );
  }
  if (query.appType !== undefined)
    selection = selection.where(
      'apps.system_id',
      '=',
      query.appType.toLowerCase() === 'de' ? 'de' : query.appType.toLowerCase(),
    );
  const totalRow = await selection
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirst();

  const ratings = db
    .selectFrom('app_ratings')
    .select((eb) => ['app_id', eb.fn.avg<number>('rating').as('average')])
    .groupBy('app_id')
    .as('r');
  let page = selection.leftJoin(ratings, 'r.app_id', 'apps.id').selectAll('apps');
  const order = query.sortDir;
  page =
    query.sortField === 'average_rating'
      ? page.orderBy(sql`coalesce(r.average, 0)`, order)
      : query.sortField === 'name' ||
          query.sortField === 'description' ||
          query.sortField === 'integrator_name'
        ? page.orderBy(sql`lower(${sql.ref(`apps.${query.sortField}`)})`, order)
        : page.orderBy(`apps.${query.sortField}`, order);
  page = page.orderBy('apps.id', order);
  const rows = await paged(page, query.limit, query.offset).execute();
  return { total: Number(totalRow?.count ?? 0), apps: await listingEntries(db, rows, user) };
}

// App categories for users (backends.md §5.1 AppCategory): the caller's workspace ("Apps under
// development", "Favorite Apps"), the virtual categories every user has ("My public apps", "Shared
// with me", "Featured Apps": the public apps of the featured-apps community, app-communities.ts),
// and the public categories administrators keep (app_categories).
import { createHash } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import type { GatewayConfig } from '../../../config/index.ts';
import type { Store } from '../../../store/database.ts';
import type { Database } from '../../../store/schema.ts';
import { listApps, visibleAppsQuery } from './app-listings.ts';
import { listingQuery } from './app-listing-routes.ts';
import { anonymousUser, callerId, sharedIds, shortUser, workspaceOf } from '../shared/index.ts';
import { gatewayError } from '../../../common/errors.ts';
import { featuredApps } from './app-communities.ts';

type Restrict = (
  apps: ReturnType<typeof visibleAppsQuery>,
  user: string,
) => ReturnType<typeof visibleAppsQuery>;

/** A stable id for a workspace's own categories, made from its root's id (no rows to keep). */
function childId(rootId: string, name: string): string {
  const hex = createHash('sha1').update(`${rootId}/${name}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Where Featured Apps live among the virtual categories (backends.md §5.1). */
const featuredCategoryId = 'cccccccc-cccc-cccc-cccc-cccccccccccc';

const virtualCategories = (
  db: Kysely<Database>,
): { id: string; name: string; restrict: Restrict }[] => [
  {
    id: '00000000-0000-0000-0000-000000000000',
    name: 'My public apps',
    restrict: (apps, user) =>
      apps.where('apps.integrator', '=', user).where('apps.is_public', '=', true),
  },
  // Others' apps shared with the user, or with a team or collaborator list they are in.
  {
    id: 'eeeeeeee-eeee-eeee-eeee-eeeeeeeeeeee',
    name: 'Shared with me',
    restrict: (apps, user) =>
      apps.where('apps.integrator', '!=', user).where('apps.id', 'in', sharedIds(db, 'app', user)),
  },
  { id: featuredCategoryId, name: 'Featured Apps', restrict: featuredApps(db) },
];

const workspaceChildren: { name: string; restrict: Restrict }[] = [
  {
    name: 'Apps under development',
    restrict: (apps, user) =>
      apps.where('apps.integrator', '=', user).where('apps.is_public', '=', false),
  },
  {
    name: 'Favorite Apps',
    restrict: (apps, user) =>
      apps.where('apps.id', 'in', (eb) =>
        eb
          .selectFrom('app_favorites')
          .select('app_favorites.app_id')
          .where('app_favorites.username', '=', user),
      ),
  },
];

/** The workspace holds what its children hold: one's own apps and one's favourites. */
const workspaceApps: Restrict = (apps, user) =>
  apps.where((eb) =>
    eb.or([
      eb('apps.integrator', '=', user),
      eb(
        'apps.id',
        'in',
        eb
          .selectFrom('app_favorites')
          .select('app_favorites.app_id')
          .where('app_favorites.username', '=', user),
      ),
    ]),
  );

const publicCategory =
  (db: Kysely<Database>, id: string): Restrict =>
  (apps) =>
    apps
      .where('apps.is_public', '=', true)
      .where(
        'apps.id',
        'in',
        db
          .selectFrom('app_category_apps')
          .select('app_category_apps.app_id')
          .where('app_category_apps.category_id', '=', id),
      );

export const categoryRoutes: FastifyPluginAsync<{
  store: Store;
  config: Pick<GatewayConfig, 'uidDomain'>;
}> = async (app, { store, config }) => {
  const { db } = store;
  const totalOf = async (user: string, restrict: Restrict) =>
    Number(
      (
        await restrict(visibleAppsQuery(db, user), user)
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .executeTakeFirst()
      )?.count ?? 0,
    );

  /** Every category the caller can open, with how to select its apps. */
  const categoriesOf = async (query: unknown) => {
    const user = shortUser(query);
    const found = new Map<
      string,
      { name: string; restrict: Restrict; is_public: boolean; parent?: string }
    >();
    if (user !== anonymousUser) {
      const workspace = await workspaceOf(store, await callerId(store, query, config.uidDomain));
      found.set(workspace.root_category_id, {
        name: 'Workspace',
        is_public: false,
        restrict: workspaceApps,
      });
      for (const child of workspaceChildren)
        found.set(childId(workspace.root_category_id, child.name), {
          ...child,
          is_public: false,
          parent: workspace.root_category_id,
        });
      for (const virtual of virtualCategories(db))
        found.set(virtual.id, { ...virtual, is_public: false });
    }
    const shared = await db
      .selectFrom('app_categories')
      .select(['id', 'name', 'parent_id'])
      .where('owner', 'is', null)
      .orderBy('name')
      .execute();
    for (const row of shared)
      found.set(row.id, {
        name: row.name,
        is_public: true,
        restrict: publicCategory(db, row.id),
        ...(row.parent_id ? { parent: row.parent_id } : {}),
      });
    return { user, found };
  };

  app.get('/apps/categories', async (request) => {
    const { user, found } = await categoriesOf(request.query);
    const onlyPublic =
      String((request.query as { public?: unknown }).public ?? '').toLowerCase() === 'true';
    const shown = [...found].filter(([, category]) => !onlyPublic || category.is_public);
    const totals = await Promise.all(shown.map(([, category]) => totalOf(user, category.restrict)));
    const entries = new Map<
      string,
      Record<string, unknown> & { categories: Record<string, unknown>[] }
    >(
      shown.map(([id, category], index) => [
        id,
        {
          system_id: 'de',
          id,
          name: category.name,
          is_public: category.is_public,
          total: totals[index]!,
          categories: [],
        },
      ]),
    );
    const roots: Record<string, unknown>[] = [];
    for (const [id, entry] of entries) {
      const parent = found.get(id)!.parent;
      if (parent && entries.has(parent)) entries.get(parent)!.categories.push(entry);
      else roots.push(entry);
    }
    return { categories: roots };
  });

  // Featured Apps for everyone, anonymous visitors included (the web UI's first page lists them).
  app.get('/apps/categories/featured', async (request) => {
    const user = shortUser(request.query);
    const listing = await listApps(db, user, listingQuery(request.query), featuredApps(db));
    return {
      system_id: 'de',
      id: featuredCategoryId,
      name: 'Featured Apps',
      is_public: false,
      ...listing,
    };
  });

  app.get<{ Params: { systemId: string; categoryId: string } }>(
    '/apps/categories/:systemId/:categoryId',
    async (request) => {
      const { user, found } = await categoriesOf(request.query);
      const id = request.params.categoryId.toLowerCase();
      const category = request.params.systemId.toLowerCase() === 'de' ? found.get(id) : undefined;
      if (!category)
        throw gatewayError('ERR_NOT_FOUND', `no app category ${request.params.categoryId}`, {
          category_id: request.params.categoryId,
        });
      const listing = await listApps(db, user, listingQuery(request.query), (apps) =>
        category.restrict(apps, user),
      );
      return {
        system_id: 'de',
        id,
        name: category.name,
        is_public: category.is_public,
        ...listing,
      };
    },
  );
};

// The apps part of the dashboard (routes.md §23) in one call, so that the gateway's `/dashboard`
// makes one apps call whatever the limit: the caller's recently added apps, recently made public
// apps, the apps of the caller's most recent analyses (most recent first) and the featured apps
// (best rated first). Anonymous callers get the public and featured ones. Each item names its
// integrator as the DE's dashboard aggregator does (`username`, qualified; the web UI's app card
// reads "Integrated by <username>"), with a full `integrator_name`.
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { countParam } from '../../../common/query-params.ts';
import { qualifiedUsername } from '../../../common/users.ts';
import { featuredApps } from './app-communities.ts';
import { listApps, type ListingQuery } from './app-listings.ts';
import { anonymousUser, shortUser } from '../shared/index.ts';

type Item = Record<string, unknown>;

/**
 * The items with their integrator: `username` (qualified) and, when the app records no name,
 * `integrator_name` from the integrator's user record (first and last name), else the username.
 */
async function withIntegrators(
  db: Kysely<Database>,
  uidDomain: string,
  lists: Item[][],
): Promise<Item[][]> {
  const ids = [...new Set(lists.flat().map((item) => item.id as string))];
  if (ids.length === 0) return lists;
  const integrators = new Map(
    (await db.selectFrom('apps').select(['id', 'integrator']).where('id', 'in', ids).execute()).map(
      (row) => [row.id, qualifiedUsername(row.integrator, uidDomain)],
    ),
  );
  const accounts = await db
    .selectFrom('users')
    .select(['username', 'first_name', 'last_name'])
    .where('username', 'in', [...new Set(integrators.values())])
    .execute();
  const fullNames = new Map(
    accounts.map((row) => [row.username, `${row.first_name ?? ''} ${row.last_name ?? ''}`.trim()]),
  );
  return lists.map((items) =>
    items.map((item) => {
      const username = integrators.get(item.id as string) ?? '';
      const recorded = typeof item.integrator_name === 'string' ? item.integrator_name.trim() : '';
      return {
        ...item,
        username,
        integrator_name: recorded || fullNames.get(username) || username.split('@')[0] || '',
      };
    }),
  );
}

export const dashboardRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  uidDomain: string;
}> = async (app, { db, uidDomain }) => {
  app.get('/dashboard/apps', async (request) => {
    const user = shortUser(request.query);
    const limit = Math.min(countParam(request.query, 'limit', 8), 100);
    const newest: ListingQuery = {
      limit,
      offset: 0,
      sortField: 'integration_date',
      sortDir: 'desc',
    };
    const signedIn = user !== anonymousUser;
    const usedIds = signedIn
      ? (
          await db
            .selectFrom('analyses')
            .select((eb) => ['app_id', eb.fn.max('start_date').as('last_used')])
            .where('username', '=', user)
            .where('deleted', '=', false)
            .groupBy('app_id')
            .orderBy('last_used', 'desc')
            .limit(limit)
            .execute()
        ).map((row) => row.app_id)
      : [];
    const [recentlyAdded, publicApps, used, featured] = await Promise.all([
      signedIn
        ? listApps(db, user, newest, (apps) => apps.where('apps.integrator', '=', user))
        : { apps: [] },
      listApps(db, user, newest, (apps) => apps.where('apps.is_public', '=', true)),
      usedIds.length > 0
        ? listApps(db, user, { ...newest, sortField: 'name', sortDir: 'asc' }, (apps) =>
            apps.where('apps.id', 'in', usedIds),
          )
        : { apps: [] },
      listApps(
        db,
        user,
        { ...newest, sortField: 'average_rating', sortDir: 'desc' },
        featuredApps(db),
      ),
    ]);
    const order = new Map(usedIds.map((id, index) => [id, index]));
    const [added, publicItems, usedItems, featuredItems] = await withIntegrators(db, uidDomain, [
      recentlyAdded.apps,
      publicApps.apps,
      [...used.apps].sort(
        (a, b) => (order.get(a.id as string) ?? 0) - (order.get(b.id as string) ?? 0),
      ),
      featured.apps,
    ]);
    return {
      recentlyAdded: added,
      public: publicItems,
      recentlyUsed: usedItems,
      popularFeatured: featuredItems,
    };
  });
};

// The apps part of the dashboard (routes.md §23) in one call, so that the gateway's `/dashboard`
// makes one apps call whatever the limit: the caller's recently added apps, recently made public
// apps, the apps of the caller's most recent analyses (most recent first) and the featured apps
// (best rated first). Anonymous callers get the public and featured ones.
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import { countParam } from '../../common/query-params.js';
import { featuredApps } from './app-communities.js';
import { listApps, type ListingQuery } from './app-listings.js';
import { anonymousUser, shortUser } from './caller.js';

export const dashboardRoutes: FastifyPluginAsync<{ db: Kysely<Database> }> = async (
  app,
  { db },
) => {
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
    return {
      recentlyAdded: recentlyAdded.apps,
      public: publicApps.apps,
      recentlyUsed: [...used.apps].sort(
        (a, b) => (order.get(a.id as string) ?? 0) - (order.get(b.id as string) ?? 0),
      ),
      popularFeatured: featured.apps,
    };
  });
};

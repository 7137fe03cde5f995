// The administrators' app listing (routes.md §17 GET /admin/apps): every app of a subset, not only
// those the caller may see, each entry with its job statistics.
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { userQuery } from '../../metadata/index.ts';
import { choiceParam } from '../../../common/query-params.ts';
import { jobStats } from './job-stats.ts';
import { listApps } from './app-listings.ts';
import { listingQuery } from './app-listing-routes.ts';
import { shortUser } from '../shared/index.ts';

const subsets = ['public', 'private', 'all'] as const;

export const adminListingRoutes: FastifyPluginAsync<{ db: Kysely<Database> }> = async (
  app,
  { db },
) => {
  app.get('/admin/apps', { schema: { querystring: userQuery } }, async (request) => {
    const user = shortUser(request.query);
    const subset = choiceParam(request.query, 'app-subset', subsets, 'public');
    let from = db.selectFrom('apps').where('apps.deleted', '=', false);
    if (subset !== 'all') from = from.where('apps.is_public', '=', subset === 'public');
    const listing = await listApps(db, user, listingQuery(request.query), undefined, from);
    const stats = await jobStats(
      db,
      listing.apps.map((entry) => entry.id as string),
    );
    return {
      ...listing,
      apps: listing.apps.map((entry) => ({ ...entry, job_stats: stats.get(entry.id as string) })),
    };
  });
};

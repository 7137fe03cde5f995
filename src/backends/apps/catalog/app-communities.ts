// App communities (routes.md §16 app-communities, app-community-tags, §17): an app belongs to a
// community when it carries a community tag, an AVU `cyverse-community` = <community name> on the
// app in the metadata service's avus table (backends.md §3.3: "community tags" are app AVUs; the
// attribute is the one the web UI sends). Featured Apps are the public apps of the featured-apps
// community, which administrators choose.
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Database } from '../../../store/schema.ts';
import {
  avusOf,
  deleteAvus,
  requestedAvus,
  targetsWithAvu,
  userQuery,
  Uuid,
  writeAvus,
} from '../../metadata/index.ts';
import { gatewayError } from '../../../common/errors.ts';
import { listApps, visibleAppsQuery } from './app-listings.ts';
import { listingQuery } from './app-listing-routes.ts';
import { shortUser, signedInUser } from '../shared/index.ts';
import { communityAvuAttribute } from '../../../common/app-community-avus.ts';
import { isCommunityAdmin } from '../../groups/index.ts';

/** The community whose apps are Featured Apps: tagging into it is for administrators only. */
export const featuredAppsCommunity = 'Featured Apps';

type AppsQuery = ReturnType<typeof visibleAppsQuery>;

/** Narrows an app query to the apps tagged into any of `communities`. */
export function inCommunities(db: Kysely<Database>, communities: readonly string[]) {
  return (apps: AppsQuery): AppsQuery =>
    apps.where('apps.id', 'in', targetsWithAvu(db, 'app', communityAvuAttribute, communities));
}

/** The public apps of the featured-apps community. */
export function featuredApps(db: Kysely<Database>) {
  return (apps: AppsQuery): AppsQuery =>
    inCommunities(db, [featuredAppsCommunity])(apps.where('apps.is_public', '=', true));
}

/**
 * Whether `user` may add `app` to `community` or take it out: the app's owner may, for any community
 * but the featured-apps one (which administrators choose), and so may an administrator of the
 * community. Platform administrators tag any app through `/admin/apps/{app-id}/metadata`: the
 * apps service does not see the caller's roles on a user route.
 */
export async function mayTagAppIntoCommunity(
  db: Kysely<Database>,
  user: string,
  app: { integrator: string },
  community: string,
): Promise<boolean> {
  if (app.integrator === user && community !== featuredAppsCommunity) return true;
  return isCommunityAdmin(db, community, user);
}

type AppRequest = { Params: { appId: string } };
type CommunityRequest = { Params: { communityId: string } };

export const appCommunityRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  now: () => number;
}> = async (app, { db, now }) => {
  const target = (appId: string) => ({ id: appId, type: 'app' as const });

  /** The community tags of a body `{avus: [{attr, value, unit?}]}`; AVUs of other attributes are not looked at. */
  const communityTags = (body: unknown) => {
    const tags = requestedAvus(body, false)
      .filter((avu) => avu.attr === communityAvuAttribute)
      .map((avu) => ({ attr: avu.attr, value: avu.value, unit: avu.unit }));
    if (tags.length === 0)
      throw gatewayError(
        'ERR_BAD_OR_MISSING_FIELD',
        `no community tags (AVUs with attr "${communityAvuAttribute}") in the request`,
        { field: 'avus' },
      );
    return tags;
  };

  /** The app the caller can see (404 otherwise), after checking they may tag it into each community. */
  const taggableApp = async (user: string, appId: string, communities: string[]) => {
    const row = await visibleAppsQuery(db, user)
      .select(['apps.id', 'apps.integrator'])
      .where('apps.id', '=', appId.toLowerCase())
      .executeTakeFirst();
    if (!row) throw gatewayError('ERR_NOT_FOUND', `no app ${appId}`, { app_id: appId });
    for (const community of communities)
      if (!(await mayTagAppIntoCommunity(db, user, row, community)))
        throw gatewayError(
          'ERR_FORBIDDEN',
          `${user} may not change whether app ${row.id} is in the community ${community}`,
          { app_id: row.id, community },
        );
    return row;
  };

  const communityAvus = async (appId: string) => ({
    avus: (await avusOf(db, target(appId))).filter((avu) => avu.attr === communityAvuAttribute),
  });

  const appSchema = { params: Type.Object({ appId: Uuid }), querystring: userQuery };

  app.post<AppRequest>('/apps/:appId/communities', { schema: appSchema }, async (request) => {
    const user = signedInUser(request.query, 'add an app to a community');
    const tags = communityTags(request.body);
    const row = await taggableApp(
      user,
      request.params.appId,
      tags.map((tag) => tag.value),
    );
    await db
      .transaction()
      .execute((trx) => writeAvus(trx, user, now(), target(row.id), tags, false));
    return communityAvus(row.id);
  });

  app.delete<AppRequest>('/apps/:appId/communities', { schema: appSchema }, async (request) => {
    const user = signedInUser(request.query, 'take an app out of a community');
    const tags = communityTags(request.body);
    const row = await taggableApp(
      user,
      request.params.appId,
      tags.map((tag) => tag.value),
    );
    const removed = (await avusOf(db, target(row.id))).filter((avu) =>
      tags.some((tag) => tag.attr === avu.attr && tag.value === avu.value && tag.unit === avu.unit),
    );
    await db.transaction().execute((trx) =>
      deleteAvus(
        trx,
        removed.map((avu) => avu.id),
      ),
    );
    return communityAvus(row.id);
  });

  const communitySchema = {
    params: Type.Object({ communityId: Type.String({ minLength: 1, maxLength: 1024 }) }),
    querystring: userQuery,
  };

  // The apps of a community the caller can see, paged, searched and sorted like GET /apps.
  app.get<CommunityRequest>(
    '/apps/communities/:communityId/apps',
    { schema: communitySchema },
    async (request) =>
      listApps(
        db,
        shortUser(request.query),
        listingQuery(request.query),
        inCommunities(db, [request.params.communityId]),
      ),
  );

  // Administrators see every app of the community that is not deleted, private ones included.
  app.get<CommunityRequest>(
    '/admin/apps/communities/:communityId/apps',
    { schema: communitySchema },
    async (request) =>
      listApps(
        db,
        shortUser(request.query),
        listingQuery(request.query),
        inCommunities(db, [request.params.communityId]),
        db.selectFrom('apps').where('apps.deleted', '=', false),
      ),
  );
};

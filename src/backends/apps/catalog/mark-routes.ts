// A user's marks on apps (backends.md §5.1): favourites and ratings of the apps they can see.
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { visibleAppsQuery } from './app-listings.ts';
import { signedInUser } from '../shared/index.ts';
import { gatewayError } from '../../../common/errors.ts';

type AppParams = { Params: { systemId: string; appId: string } };

export const appMarkRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  now: () => number;
}> = async (app, { db, now }) => {
  /** The app's id when `user` (not anonymous) may see it. */
  const markable = async (query: unknown, params: AppParams['Params']) => {
    const user = signedInUser(query, 'mark apps');
    const row = await visibleAppsQuery(db, user)
      .select('apps.id')
      .where('apps.id', '=', params.appId.toLowerCase())
      .where('apps.system_id', '=', params.systemId.toLowerCase())
      .executeTakeFirst();
    if (!row)
      throw gatewayError('ERR_NOT_FOUND', `no app ${params.appId} in system ${params.systemId}`, {
        app_id: params.appId,
      });
    return { user, appId: row.id };
  };

  app.put<AppParams>('/apps/:systemId/:appId/favorite', async (request) => {
    const { user, appId } = await markable(request.query, request.params);
    await db
      .insertInto('app_favorites')
      .values({ username: user, app_id: appId, created_on: now() })
      .onConflict((c) => c.columns(['username', 'app_id']).doNothing())
      .execute();
    return {};
  });

  app.delete<AppParams>('/apps/:systemId/:appId/favorite', async (request) => {
    const { user, appId } = await markable(request.query, request.params);
    await db
      .deleteFrom('app_favorites')
      .where('username', '=', user)
      .where('app_id', '=', appId)
      .execute();
    return {};
  });

  const ratingOf = async (appId: string) => {
    const row = await db
      .selectFrom('app_ratings')
      .select((eb) => [
        eb.fn.avg<number>('rating').as('average'),
        eb.fn.countAll<number>().as('total'),
      ])
      .where('app_id', '=', appId)
      .executeTakeFirst();
    const total = Number(row?.total ?? 0);
    return { average: total === 0 ? 0 : Number(Number(row!.average).toFixed(2)), total };
  };

  app.post<AppParams>('/apps/:systemId/:appId/rating', async (request) => {
    const { user, appId } = await markable(request.query, request.params);
    const body = (request.body ?? {}) as { rating?: unknown; comment_id?: unknown };
    if (
      typeof body.rating !== 'number' ||
      !Number.isInteger(body.rating) ||
      body.rating < 1 ||
      body.rating > 5
    ) {
      throw gatewayError(
        'ERR_BAD_OR_MISSING_FIELD',
        'body field "rating" must be a whole number from 1 to 5',
        { field: 'rating' },
      );
    }
    if (body.comment_id !== undefined && typeof body.comment_id !== 'string') {
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'body field "comment_id" must be a string', {
        field: 'comment_id',
      });
    }
    const rating = {
      rating: body.rating,
      comment_id: (body.comment_id as string | undefined) ?? null,
      rated_on: now(),
    };
    await db
      .insertInto('app_ratings')
      .values({ username: user, app_id: appId, ...rating })
      .onConflict((c) => c.columns(['username', 'app_id']).doUpdateSet(rating))
      .execute();
    return ratingOf(appId);
  });

  app.delete<AppParams>('/apps/:systemId/:appId/rating', async (request) => {
    const { user, appId } = await markable(request.query, request.params);
    await db
      .deleteFrom('app_ratings')
      .where('username', '=', user)
      .where('app_id', '=', appId)
      .execute();
    return ratingOf(appId);
  });
};

// Around quick launches (backends.md §6): each user's favourites, each user's default quick launch
// per app, and the global default per app. A user sees only their own favourites and defaults,
// and only while they may still view the quick launch. Global defaults are changed by
// administrators: the gateway checks that, this service trusts its caller.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { isUniqueViolation } from '../../store/unique-violation.ts';
import { qualifiedUsername } from '../../common/users.ts';
import { callerOf } from './caller.ts';
import {
  isPublic,
  viewable,
  viewableQuickLaunch,
  type AnalysesDeps,
  type QuickLaunchRow,
} from './model.ts';
import {
  DefaultPatch,
  DefaultRequest,
  Deleted,
  Favorite,
  FavoriteRequest,
  GlobalDefault,
  IdParams,
  UserDefault,
} from '../../common/quick-launch-shapes.ts';
import { gatewayError } from '../../common/errors.ts';

type IdRequest = { Params: { id: string } };

const missing = (what: string, id: string) =>
  gatewayError('ERR_NOT_FOUND', `${what} ${id} not found`, { id });

/** An insert or update that broke a unique rule answers 400 ERR_EXISTS with `reason`. */
async function unique<T>(
  work: () => Promise<T>,
  reason: string,
  extra: Record<string, unknown>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw gatewayError('ERR_EXISTS', reason, extra);
    throw error;
  }
}

/** A default names a quick launch of the app it is the default for. */
function requireSameApp(quickLaunch: QuickLaunchRow, appId: string) {
  if (quickLaunch.app_id !== appId.toLowerCase()) {
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      `quick launch ${quickLaunch.id} is for app ${quickLaunch.app_id}, not ${appId}`,
      { field: 'app_id' },
    );
  }
}

export const defaultsRoutes: FastifyPluginAsync<AnalysesDeps> = async (
  app,
  { db, uidDomain, now },
) => {
  const caller = (request: Parameters<typeof callerOf>[0]) => callerOf(request, uidDomain).name;
  const qualified = (user: string) => qualifiedUsername(user, uidDomain);
  /** Ids of the quick launches `user` may view, as a subquery. */
  const viewableIds = (user: string) => viewable(db, user).select('quick_launches.id');

  // Favourites.
  const favorite = (row: { id: string; quick_launch_id: string; username: string }) => ({
    id: row.id,
    quick_launch_id: row.quick_launch_id,
    user: qualified(row.username),
  });
  const ownFavorite = async (user: string, id: string) => {
    const row = await db
      .selectFrom('quick_launch_favorites')
      .selectAll()
      .where('id', '=', id.toLowerCase())
      .where('username', '=', user)
      .where('quick_launch_id', 'in', viewableIds(user))
      .executeTakeFirst();
    if (!row) throw missing('quick-launch favorite', id);
    return row;
  };

  app.get(
    '/quicklaunch/favorites',
    { schema: { response: { 200: { type: 'array', items: Favorite } } } },
    async (request) => {
      const user = caller(request);
      const rows = await db
        .selectFrom('quick_launch_favorites')
        .selectAll()
        .where('username', '=', user)
        .where('quick_launch_id', 'in', viewableIds(user))
        .orderBy('created_on')
        .orderBy('id')
        .execute();
      return rows.map(favorite);
    },
  );

  app.post<{ Body: FavoriteRequest }>(
    '/quicklaunch/favorites',
    { schema: { body: FavoriteRequest, response: { 200: Favorite } } },
    async (request) => {
      const user = caller(request);
      const quickLaunch = await viewableQuickLaunch(db, user, request.body.quick_launch_id);
      const row = {
        id: randomUUID(),
        username: user,
        quick_launch_id: quickLaunch.id,
        created_on: now(),
      };
      await unique(
        () => db.insertInto('quick_launch_favorites').values(row).execute(),
        `quick launch ${quickLaunch.id} is already a favorite`,
        { quick_launch_id: quickLaunch.id },
      );
      return favorite(row);
    },
  );

  app.get<IdRequest>(
    '/quicklaunch/favorites/:id',
    { schema: { params: IdParams, response: { 200: Favorite } } },
    async (request) => favorite(await ownFavorite(caller(request), request.params.id)),
  );

  app.delete<IdRequest>(
    '/quicklaunch/favorites/:id',
    { schema: { params: IdParams, response: { 200: Deleted } } },
    async (request) => {
      const row = await ownFavorite(caller(request), request.params.id);
      await db.deleteFrom('quick_launch_favorites').where('id', '=', row.id).execute();
      return { id: row.id };
    },
  );

  // Each user's default quick launch per app: one per app, and a quick launch is the default of one app.
  const userDefault = (row: {
    id: string;
    username: string;
    quick_launch_id: string;
    app_id: string;
  }) => ({
    id: row.id,
    user: qualified(row.username),
    quick_launch_id: row.quick_launch_id,
    app_id: row.app_id,
  });
  const ownDefault = async (user: string, id: string) => {
    const row = await db
      .selectFrom('quick_launch_user_defaults')
      .selectAll()
      .where('id', '=', id.toLowerCase())
      .where('username', '=', user)
      .where('quick_launch_id', 'in', viewableIds(user))
      .executeTakeFirst();
    if (!row) throw missing('quick-launch user default', id);
    return row;
  };
  const userDefaultTaken =
    'the user already has a default for this app, or this quick launch is already a default';

  app.get(
    '/quicklaunch/defaults/user',
    { schema: { response: { 200: { type: 'array', items: UserDefault } } } },
    async (request) => {
      const user = caller(request);
      const rows = await db
        .selectFrom('quick_launch_user_defaults')
        .selectAll()
        .where('username', '=', user)
        .where('quick_launch_id', 'in', viewableIds(user))
        .orderBy('app_id')
        .execute();
      return rows.map(userDefault);
    },
  );

  app.post<{ Body: DefaultRequest }>(
    '/quicklaunch/defaults/user',
    { schema: { body: DefaultRequest, response: { 200: UserDefault } } },
    async (request) => {
      const user = caller(request);
      const quickLaunch = await viewableQuickLaunch(db, user, request.body.quick_launch_id);
      requireSameApp(quickLaunch, request.body.app_id);
      const row = {
        id: randomUUID(),
        username: user,
        app_id: quickLaunch.app_id,
        quick_launch_id: quickLaunch.id,
      };
      await unique(
        () => db.insertInto('quick_launch_user_defaults').values(row).execute(),
        userDefaultTaken,
        { app_id: row.app_id, quick_launch_id: row.quick_launch_id },
      );
      return userDefault(row);
    },
  );

  app.get<IdRequest>(
    '/quicklaunch/defaults/user/:id',
    { schema: { params: IdParams, response: { 200: UserDefault } } },
    async (request) => userDefault(await ownDefault(caller(request), request.params.id)),
  );

  app.patch<IdRequest & { Body: DefaultPatch }>(
    '/quicklaunch/defaults/user/:id',
    { schema: { params: IdParams, body: DefaultPatch, response: { 200: UserDefault } } },
    async (request) => {
      const user = caller(request);
      const current = await ownDefault(user, request.params.id);
      const quickLaunch = await viewableQuickLaunch(
        db,
        user,
        request.body.quick_launch_id ?? current.quick_launch_id,
      );
      requireSameApp(quickLaunch, request.body.app_id ?? current.app_id);
      const changes = { app_id: quickLaunch.app_id, quick_launch_id: quickLaunch.id };
      await unique(
        () =>
          db
            .updateTable('quick_launch_user_defaults')
            .set(changes)
            .where('id', '=', current.id)
            .execute(),
        userDefaultTaken,
        changes,
      );
      return userDefault({ ...current, ...changes });
    },
  );

  app.delete<IdRequest>(
    '/quicklaunch/defaults/user/:id',
    { schema: { params: IdParams, response: { 200: Deleted } } },
    async (request) => {
      const row = await ownDefault(caller(request), request.params.id);
      await db.deleteFrom('quick_launch_user_defaults').where('id', '=', row.id).execute();
      return { id: row.id };
    },
  );

  // Global defaults: one per app, naming a public quick launch of that app (everyone must be able to use it).
  const globalDefault = async (id: string) => {
    const row = await db
      .selectFrom('quick_launch_global_defaults')
      .selectAll()
      .where('id', '=', id.toLowerCase())
      .executeTakeFirst();
    if (!row) throw missing('quick-launch global default', id);
    return row;
  };
  const publicQuickLaunch = async (user: string, id: string, appId: string) => {
    const quickLaunch = await viewableQuickLaunch(db, user, id);
    if (!isPublic(quickLaunch))
      throw gatewayError(
        'ERR_BAD_OR_MISSING_FIELD',
        `a global default must be a public quick launch; ${quickLaunch.id} is not`,
        { field: 'quick_launch_id' },
      );
    requireSameApp(quickLaunch, appId);
    return quickLaunch;
  };
  const globalDefaultTaken =
    'the app already has a global default, or this quick launch is already one';

  app.get(
    '/quicklaunch/defaults/global',
    { schema: { response: { 200: { type: 'array', items: GlobalDefault } } } },
    async (request) => {
      caller(request);
      return db.selectFrom('quick_launch_global_defaults').selectAll().orderBy('app_id').execute();
    },
  );

  app.post<{ Body: DefaultRequest }>(
    '/quicklaunch/defaults/global',
    { schema: { body: DefaultRequest, response: { 200: GlobalDefault } } },
    async (request) => {
      const quickLaunch = await publicQuickLaunch(
        caller(request),
        request.body.quick_launch_id,
        request.body.app_id,
      );
      const row = { id: randomUUID(), app_id: quickLaunch.app_id, quick_launch_id: quickLaunch.id };
      await unique(
        () => db.insertInto('quick_launch_global_defaults').values(row).execute(),
        globalDefaultTaken,
        { app_id: row.app_id, quick_launch_id: row.quick_launch_id },
      );
      return row;
    },
  );

  app.get<IdRequest>(
    '/quicklaunch/defaults/global/:id',
    { schema: { params: IdParams, response: { 200: GlobalDefault } } },
    async (request) => {
      caller(request);
      return globalDefault(request.params.id);
    },
  );

  app.patch<IdRequest & { Body: DefaultPatch }>(
    '/quicklaunch/defaults/global/:id',
    { schema: { params: IdParams, body: DefaultPatch, response: { 200: GlobalDefault } } },
    async (request) => {
      const user = caller(request);
      const current = await globalDefault(request.params.id);
      const quickLaunch = await publicQuickLaunch(
        user,
        request.body.quick_launch_id ?? current.quick_launch_id,
        request.body.app_id ?? current.app_id,
      );
      const changes = { app_id: quickLaunch.app_id, quick_launch_id: quickLaunch.id };
      await unique(
        () =>
          db
            .updateTable('quick_launch_global_defaults')
            .set(changes)
            .where('id', '=', current.id)
            .execute(),
        globalDefaultTaken,
        changes,
      );
      return { ...current, ...changes };
    },
  );

  app.delete<IdRequest>(
    '/quicklaunch/defaults/global/:id',
    { schema: { params: IdParams, response: { 200: Deleted } } },
    async (request) => {
      caller(request);
      const row = await globalDefault(request.params.id);
      await db.deleteFrom('quick_launch_global_defaults').where('id', '=', row.id).execute();
      return { id: row.id };
    },
  );
};

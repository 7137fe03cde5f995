// Quick launches themselves (backends.md §6): create, list (own and public), per app, read,
// update and delete (by the creator), and the launch form they fill.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { ObjectIndex } from '../data-info/index.ts';
import { quickLaunchAppInfo } from './app-info.ts';
import { callerOf, shortName } from './caller.ts';
import {
  describe,
  isPublic,
  ownQuickLaunch,
  submissionOf,
  viewable,
  viewableQuickLaunch,
  type AnalysesDeps,
} from './model.ts';
import {
  AppIdParams,
  Deleted,
  IdParams,
  QuickLaunch,
  QuickLaunchCreate,
  QuickLaunchPatch,
} from '../../common/quick-launch-shapes.ts';
import { appVisibleTo, checkTarget } from './submission.ts';
import { gatewayError } from '../../common/errors.ts';

type IdRequest = { Params: { id: string } };

export const quickLaunchRoutes: FastifyPluginAsync<
  AnalysesDeps & { catalog: ObjectIndex }
> = async (app, { db, uidDomain, now, catalog }) => {
  const caller = (request: Parameters<typeof callerOf>[0]) => callerOf(request, uidDomain).name;
  const answer = (row: Parameters<typeof describe>[0]) => describe(row, uidDomain);

  app.post<{ Body: QuickLaunchCreate }>(
    '/quicklaunches',
    { schema: { body: QuickLaunchCreate, response: { 200: QuickLaunch } } },
    async (request) => {
      const body = request.body;
      const user = caller(request);
      // The gateway names the creator; called directly without one, the caller is.
      const creator = body.creator ? shortName(body.creator, uidDomain) : user;
      const isPublicLaunch = body.is_public ?? false;
      const checked = await checkTarget(db, catalog, {
        creator,
        appId: body.app_id,
        appVersionId: body.app_version_id,
        isPublic: isPublicLaunch,
        submission: body.submission,
      });
      const row = {
        id: randomUUID(),
        name: body.name,
        description: body.description ?? '',
        creator,
        app_id: checked.appId,
        app_version_id: checked.appVersionId,
        is_public: isPublicLaunch,
        submission: JSON.stringify(checked.submission),
        created_on: now(),
      };
      await db.insertInto('quick_launches').values(row).execute();
      return answer(row);
    },
  );

  app.get(
    '/quicklaunches',
    { schema: { response: { 200: { type: 'array', items: QuickLaunch } } } },
    async (request) => {
      const rows = await viewable(db, caller(request))
        .selectAll('quick_launches')
        .orderBy('quick_launches.name')
        .orderBy('quick_launches.id')
        .execute();
      return rows.map(answer);
    },
  );

  app.get<{ Params: { appId: string } }>(
    '/quicklaunches/apps/:appId',
    { schema: { params: AppIdParams, response: { 200: { type: 'array', items: QuickLaunch } } } },
    async (request) => {
      const user = caller(request);
      const target = await appVisibleTo(db, user, request.params.appId);
      const rows = await viewable(db, user)
        .selectAll('quick_launches')
        .where('quick_launches.app_id', '=', target.id)
        .orderBy('quick_launches.name')
        .orderBy('quick_launches.id')
        .execute();
      return rows.map(answer);
    },
  );

  app.get<IdRequest>(
    '/quicklaunches/:id',
    { schema: { params: IdParams, response: { 200: QuickLaunch } } },
    async (request) => answer(await viewableQuickLaunch(db, caller(request), request.params.id)),
  );

  app.get<IdRequest>(
    '/quicklaunches/:id/app-info',
    { schema: { params: IdParams } },
    async (request) => {
      const user = caller(request);
      return quickLaunchAppInfo(db, user, await viewableQuickLaunch(db, user, request.params.id));
    },
  );

  app.patch<IdRequest & { Body: QuickLaunchPatch }>(
    '/quicklaunches/:id',
    { schema: { params: IdParams, body: QuickLaunchPatch, response: { 200: QuickLaunch } } },
    async (request) => {
      const user = caller(request);
      const current = await ownQuickLaunch(db, user, request.params.id);
      const patch = request.body;
      const appChanged =
        patch.app_id !== undefined && patch.app_id.toLowerCase() !== current.app_id;
      const merged = {
        appId: patch.app_id ?? current.app_id,
        // A new app means its own version: the one named, else its current one.
        appVersionId: patch.app_version_id ?? (appChanged ? undefined : current.app_version_id),
        isPublic: patch.is_public ?? isPublic(current),
        submission: patch.submission ?? submissionOf(current),
      };
      const madePrivate = isPublic(current) && !merged.isPublic;
      if (appChanged || madePrivate)
        await refuseBreakingDefaults(current.id, { appChanged, madePrivate });
      const checked = await checkTarget(db, catalog, { creator: user, ...merged });
      const changes = {
        name: patch.name ?? current.name,
        description: patch.description ?? current.description,
        app_id: checked.appId,
        app_version_id: checked.appVersionId,
        is_public: merged.isPublic,
        submission: JSON.stringify(checked.submission),
      };
      await db.updateTable('quick_launches').set(changes).where('id', '=', current.id).execute();
      return answer({ ...current, ...changes });
    },
  );

  app.delete<IdRequest>(
    '/quicklaunches/:id',
    { schema: { params: IdParams, response: { 200: Deleted } } },
    async (request) => {
      const current = await ownQuickLaunch(db, caller(request), request.params.id);
      // Favourites and defaults naming it go with it (foreign keys cascade).
      await db.deleteFrom('quick_launches').where('id', '=', current.id).execute();
      return { id: current.id };
    },
  );

  /**
   * Defaults pick a quick launch for its app, and a global default is for everyone: a quick
   * launch may not move to another app while it is a default, nor turn private while global.
   */
  async function refuseBreakingDefaults(
    id: string,
    change: { appChanged: boolean; madePrivate: boolean },
  ) {
    const [userDefault, globalDefault] = await Promise.all([
      db
        .selectFrom('quick_launch_user_defaults')
        .select('id')
        .where('quick_launch_id', '=', id)
        .executeTakeFirst(),
      db
        .selectFrom('quick_launch_global_defaults')
        .select('id')
        .where('quick_launch_id', '=', id)
        .executeTakeFirst(),
    ]);
    if (change.appChanged && (userDefault || globalDefault)) {
      throw gatewayError(
        'ERR_ILLEGAL_ARGUMENT',
        `quick launch ${id} is a default for its app; remove the default before moving it to another app`,
        { id, field: 'app_id' },
      );
    }
    if (change.madePrivate && globalDefault) {
      throw gatewayError(
        'ERR_ILLEGAL_ARGUMENT',
        `quick launch ${id} is a global default and must stay public`,
        { id, field: 'is_public' },
      );
    }
  }
};

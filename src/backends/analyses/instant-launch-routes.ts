// Instant launches themselves (backends.md §6, routes.md §19): a quick launch made startable in
// one click (from the navigation drawer, or on a data file through the default mappings). Users
// see those whose quick launch they may view; a user adds one for a quick launch they may view and
// changes or deletes only the ones they added; administrators (the gateway checks that) add,
// change and delete any. Answers are the interactive-apps service's shapes: lists wrapped as
// `{instant_launches}`, one as InstantLaunch or FullInstantLaunch.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { gatewayError } from '../../common/errors.ts';
import { describe, viewableQuickLaunch, type AnalysesDeps } from './model.ts';
import {
  fullInstantLaunch,
  instantLaunchNotFound,
  optionalCaller,
  plainInstantLaunch,
  visibleInstantLaunches,
  type InstantLaunchRow,
} from './instant-launch-model.ts';
import { shortName } from './caller.ts';

const InstantLaunchRequest = Type.Object({
  quick_launch_id: Type.String({ format: 'uuid' }),
  added_by: Type.Optional(Type.String({ minLength: 1 })),
});
type InstantLaunchRequest = Static<typeof InstantLaunchRequest>;
type IdRequest = { Params: { id: string } };
const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const instantLaunchRoutes: FastifyPluginAsync<AnalysesDeps> = async (
  app,
  { db, uidDomain, now },
) => {
  const callerName = (request: FastifyRequest) => optionalCaller(request, uidDomain);
  const required = (request: FastifyRequest) => {
    const user = callerName(request);
    if (!user || user === 'anonymous')
      throw gatewayError('ERR_MISSING_QUERY_PARAMETER', 'user query parameter is required', {
        field: 'user',
      });
    return user;
  };
  const plain = (row: InstantLaunchRow) => plainInstantLaunch(row, uidDomain);
  const full = (row: InstantLaunchRow) => fullInstantLaunch(row, uidDomain);
  /** One instant launch `user` may see (every one for an administrator: `user` undefined → all). */
  const oneVisible = async (id: string, user: string | undefined, admin = false) => {
    const row = await visibleInstantLaunches(db, user, admin)
      .where('instant_launches.id', '=', id.toLowerCase())
      .executeTakeFirst();
    if (!row) throw instantLaunchNotFound(id);
    return row;
  };

  app.get('/instantlaunches', async (request) => ({
    instant_launches: (await visibleInstantLaunches(db, callerName(request)).execute()).map(plain),
  }));
  app.get('/instantlaunches/full', async (request) => ({
    instant_launches: (await visibleInstantLaunches(db, callerName(request)).execute()).map(full),
  }));
  app.get('/instantlaunches/quicklaunches/public', async () => {
    const rows = await db
      .selectFrom('quick_launches')
      .selectAll()
      .where('is_public', '=', true)
      .orderBy('name')
      .orderBy('id')
      .execute();
    return rows.map((row) => describe(row, uidDomain));
  });
  app.get<IdRequest>('/instantlaunches/:id', { schema: { params: IdParams } }, async (request) =>
    plain(await oneVisible(request.params.id, callerName(request))),
  );
  app.get<IdRequest>(
    '/instantlaunches/:id/full',
    { schema: { params: IdParams } },
    async (request) => full(await oneVisible(request.params.id, callerName(request))),
  );

  /** The quick launch an instant launch of `user` may start (any, for an administrator: undefined). */
  const target = async (quickLaunchId: string, user: string | undefined) => {
    if (user !== undefined) return (await viewableQuickLaunch(db, user, quickLaunchId)).id;
    const row = await db
      .selectFrom('quick_launches')
      .select('id')
      .where('id', '=', quickLaunchId.toLowerCase())
      .executeTakeFirst();
    if (!row)
      throw gatewayError('ERR_NOT_FOUND', `quick launch ${quickLaunchId} not found`, {
        id: quickLaunchId,
      });
    return row.id;
  };
  /** Adds an instant launch for a quick launch `user` may view (any, for an administrator). */
  const add = async (body: InstantLaunchRequest, addedBy: string, admin: boolean) => {
    const quickLaunchId = await target(body.quick_launch_id, admin ? undefined : addedBy);
    const id = randomUUID();
    await db
      .insertInto('instant_launches')
      .values({ id, quick_launch_id: quickLaunchId, added_by: addedBy, added_on: now() })
      .execute();
    return plain(await oneVisible(id, undefined, true));
  };
  /** Points an instant launch at another quick launch. */
  const update = async (id: string, body: InstantLaunchRequest, user: string | undefined) => {
    const quickLaunchId = await target(body.quick_launch_id, user);
    await db
      .updateTable('instant_launches')
      .set({ quick_launch_id: quickLaunchId })
      .where('id', '=', id.toLowerCase())
      .execute();
    return plain(await oneVisible(id, user, user === undefined));
  };
  /** The instant launch `user` added (any, for an administrator: `user` undefined). */
  const changeable = async (id: string, user: string | undefined) => {
    const row = await oneVisible(id, user, user === undefined);
    if (user !== undefined && row.added_by !== user)
      throw gatewayError('ERR_NOT_OWNER', `only who added instant launch ${id} may change it`, {
        id,
      });
    return row;
  };
  const remove = async (id: string) => {
    await db.deleteFrom('instant_launches').where('id', '=', id.toLowerCase()).execute();
    return { id };
  };

  for (const path of ['/instantlaunches', '/instantlaunches/']) {
    app.put<{ Body: InstantLaunchRequest }>(
      path,
      { schema: { body: InstantLaunchRequest } },
      async (request) => add(request.body, required(request), false),
    );
  }
  app.post<IdRequest & { Body: InstantLaunchRequest }>(
    '/instantlaunches/:id',
    { schema: { params: IdParams, body: InstantLaunchRequest } },
    async (request) => {
      const user = required(request);
      await changeable(request.params.id, user);
      return update(request.params.id, request.body, user);
    },
  );
  app.delete<IdRequest>(
    '/instantlaunches/:id',
    { schema: { params: IdParams } },
    async (request) => {
      await changeable(request.params.id, required(request));
      return remove(request.params.id);
    },
  );

  // Administrators' routes: the gateway admits only administrators; `user`, when sent, is who.
  for (const path of ['/instantlaunches/admin', '/instantlaunches/admin/']) {
    app.put<{ Body: InstantLaunchRequest }>(
      path,
      { schema: { body: InstantLaunchRequest } },
      async (request) => {
        const addedBy = request.body.added_by ?? callerName(request) ?? 'admin';
        return add(request.body, shortName(addedBy, uidDomain), true);
      },
    );
  }
  app.post<IdRequest & { Body: InstantLaunchRequest }>(
    '/instantlaunches/admin/:id',
    { schema: { params: IdParams, body: InstantLaunchRequest } },
    async (request) => {
      await changeable(request.params.id, undefined);
      return update(request.params.id, request.body, undefined);
    },
  );
  app.delete<IdRequest>(
    '/instantlaunches/admin/:id',
    { schema: { params: IdParams } },
    async (request) => {
      await changeable(request.params.id, undefined);
      return remove(request.params.id);
    },
  );
};

// AVU metadata on apps (routes.md §10, §16): the AVUs live in the metadata service's avus table
// (target type `app`) and follow its rules (avu-store.ts), so ontology classification, which reads
// that table, sees them at once. Users read the AVUs of the apps they can see and write those of
// the apps they integrated; administrators read and write any app's.
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Database } from '../../../store/schema.ts';
import { avusOf, requestedAvus, userQuery, Uuid, writeAvus } from '../../metadata/index.ts';
import { requireUserParam } from '../../../common/query-params.ts';
import { visibleAppsQuery } from './app-listings.ts';
import { shortUser, signedInUser } from '../shared/index.ts';
import { gatewayError } from '../../../common/errors.ts';

type AppRequest = { Params: { appId: string } };
const schema = { params: Type.Object({ appId: Uuid }), querystring: userQuery };

const noApp = (appId: string) =>
  gatewayError('ERR_NOT_FOUND', `no app ${appId}`, { app_id: appId });

export const appMetadataRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  now: () => number;
}> = async (app, { db, now }) => {
  const target = (appId: string) => ({ id: appId, type: 'app' as const });

  /** The app `user` can see (404 otherwise), with its integrator. */
  const seenApp = async (user: string, appId: string) => {
    const row = await visibleAppsQuery(db, user)
      .select(['apps.id', 'apps.integrator'])
      .where('apps.id', '=', appId.toLowerCase())
      .executeTakeFirst();
    if (!row) throw noApp(appId);
    return row;
  };

  /** Any app, deleted ones included: administrators look after them all. */
  const anyApp = async (appId: string) => {
    const row = await db
      .selectFrom('apps')
      .select('id')
      .where('id', '=', appId.toLowerCase())
      .executeTakeFirst();
    if (!row) throw noApp(appId);
    return row;
  };

  const write = async (user: string, appId: string, body: unknown, replace: boolean) => {
    const requests = requestedAvus(body, replace);
    await db
      .transaction()
      .execute((trx) => writeAvus(trx, user, now(), target(appId), requests, replace));
    return { avus: await avusOf(db, target(appId)) };
  };

  app.get<AppRequest>('/apps/:appId/metadata', { schema }, async (request) => {
    const row = await seenApp(shortUser(request.query), request.params.appId);
    return { avus: await avusOf(db, target(row.id)) };
  });

  app.get<AppRequest>('/admin/apps/:appId/metadata', { schema }, async (request) => {
    requireUserParam(request.query);
    return { avus: await avusOf(db, target((await anyApp(request.params.appId)).id)) };
  });

  // POST adds or updates AVUs; PUT makes the app's AVUs exactly those sent.
  for (const [method, replace] of [
    ['POST', false],
    ['PUT', true],
  ] as const) {
    app.route<AppRequest>({
      method,
      url: '/apps/:appId/metadata',
      schema,
      handler: async (request) => {
        const user = signedInUser(request.query, 'change app metadata');
        const row = await seenApp(user, request.params.appId);
        if (row.integrator !== user)
          throw gatewayError('ERR_NOT_OWNER', `${user} does not own app ${row.id}`, {
            app_id: row.id,
          });
        return write(user, row.id, request.body, replace);
      },
    });
    app.route<AppRequest>({
      method,
      url: '/admin/apps/:appId/metadata',
      schema,
      handler: async (request) => {
        const user = shortUser(request.query);
        return write(user, (await anyApp(request.params.appId)).id, request.body, replace);
      },
    });
  }
};

// Administrators' changes to any app (routes.md §17): PATCH an app or one of its versions (deleted,
// disabled, name, description, wiki_url, extra, the version's label), their documentation, details
// of a version, DELETE (marks deleted) and the shredder. The gateway lets only administrators
// reach these paths; the service checks nothing more of the caller.
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { adminAppDetails, anyApp, versionOf } from '../catalog/index.ts';
import {
  checkLabelFree,
  saveDocumentation,
  type AppParams,
  type VersionParams,
} from './app-edits.ts';
import { shredderIds } from './editor-routes.ts';
import { shortUser } from '../shared/index.ts';
import { isJsonObject } from '../../../common/request-body.ts';
import { gatewayError } from '../../../common/errors.ts';

const badField = (field: string, reason: string) =>
  gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field });

interface AdminPatch {
  app: {
    name?: string;
    description?: string;
    wiki_url?: string;
    deleted?: boolean;
    disabled?: boolean;
    edited_date: number;
  };
  extra?: unknown;
  label?: string;
}

/**
 * `{id?, name?, description?, wiki_url?, deleted?, disabled?, extra?, version?}`: `id`, when
 * given, must be the app's id (on a version, the app's or the version's: the web UI's admin app
 * form sends the app's); `extra` is any JSON object;
 * `version` relabels a version (version routes only). Deleted and disabled are the app's: this
 * store keeps them per app, not per version.
 */
function adminPatch(body: unknown, ids: string[], at: number, onVersion: boolean): AdminPatch {
  if (!isJsonObject(body)) throw badField('body', 'the body must be a JSON object');
  const patch: AdminPatch = { app: { edited_date: at } };
  if (
    body.id !== undefined &&
    (typeof body.id !== 'string' || !ids.includes(body.id.toLowerCase()))
  )
    throw badField('id', `"id" must be the app's${onVersion ? " or the version's" : ''} id`);
  for (const field of ['name', 'description', 'wiki_url'] as const) {
    const value = body[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || (field === 'name' && value.trim() === ''))
      throw badField(field, `"${field}" must be a${field === 'name' ? ' non-empty' : ''} string`);
    patch.app[field] = field === 'name' ? value.trim() : value;
  }
  for (const field of ['deleted', 'disabled'] as const) {
    const value = body[field];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') throw badField(field, `"${field}" must be true or false`);
    patch.app[field] = value;
  }
  if (body.extra !== undefined) {
    if (!isJsonObject(body.extra)) throw badField('extra', '"extra" must be an object');
    patch.extra = body.extra;
  }
  if (onVersion && body.version !== undefined) {
    if (typeof body.version !== 'string' || body.version.trim() === '')
      throw badField('version', '"version" must be a non-empty string');
    patch.label = body.version.trim();
  }
  return patch;
}

export const adminAppRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  now: () => number;
}> = async (app, { db, now }) => {
  const apply = async (appId: string, patch: AdminPatch, versionId?: string) => {
    if (patch.label && versionId) await checkLabelFree(db, appId, patch.label, versionId);
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('apps').set(patch.app).where('id', '=', appId).execute();
      if (patch.label && versionId)
        await trx
          .updateTable('app_versions')
          .set({ version: patch.label })
          .where('id', '=', versionId)
          .execute();
      if (patch.extra !== undefined) {
        const extra = JSON.stringify(patch.extra);
        await trx
          .insertInto('app_extras')
          .values({ app_id: appId, extra })
          .onConflict((conflict) => conflict.column('app_id').doUpdateSet({ extra }))
          .execute();
      }
    });
  };

  app.patch<AppParams>('/admin/apps/:systemId/:appId', async (request) => {
    const row = await anyApp(db, request.params.systemId, request.params.appId);
    await apply(row.id, adminPatch(request.body, [row.id], now(), false));
    return adminAppDetails(db, shortUser(request.query), await anyApp(db, 'de', row.id));
  });

  app.patch<VersionParams>('/admin/apps/:systemId/:appId/versions/:versionId', async (request) => {
    const row = await anyApp(db, request.params.systemId, request.params.appId);
    const version = await versionOf(db, row.id, request.params.versionId);
    await apply(row.id, adminPatch(request.body, [row.id, version.id], now(), true), version.id);
    return adminAppDetails(
      db,
      shortUser(request.query),
      await anyApp(db, 'de', row.id),
      version.id,
    );
  });

  app.get<VersionParams>(
    '/admin/apps/:systemId/:appId/versions/:versionId/details',
    async (request) =>
      adminAppDetails(
        db,
        shortUser(request.query),
        await anyApp(db, request.params.systemId, request.params.appId),
        request.params.versionId,
      ),
  );

  for (const method of ['POST', 'PATCH'] as const) {
    app.route<AppParams>({
      method,
      url: '/admin/apps/:systemId/:appId/documentation',
      handler: async (request) => {
        const row = await anyApp(db, request.params.systemId, request.params.appId);
        return saveDocumentation(db, row.id, undefined, request.body);
      },
    });
    app.route<VersionParams>({
      method,
      url: '/admin/apps/:systemId/:appId/versions/:versionId/documentation',
      handler: async (request) => {
        const row = await anyApp(db, request.params.systemId, request.params.appId);
        return saveDocumentation(db, row.id, request.params.versionId, request.body);
      },
    });
  }

  app.delete<AppParams>('/admin/apps/:systemId/:appId', async (request) => {
    const row = await anyApp(db, request.params.systemId, request.params.appId);
    await db
      .updateTable('apps')
      .set({ deleted: true, edited_date: now() })
      .where('id', '=', row.id)
      .execute();
    return { id: row.id };
  });

  /** Marks any apps deleted, all or none: an unknown id (404) refuses the whole body. */
  app.post('/admin/apps/shredder', async (request) => {
    const ids = shredderIds(request.body);
    for (const id of ids) await anyApp(db, 'de', id);
    await db
      .updateTable('apps')
      .set({ deleted: true, edited_date: now() })
      .where('id', 'in', ids)
      .execute();
    return { app_ids: ids };
  });
};

// Creating and changing apps (routes.md §16): apps, their versions and documentation. The
// integrator changes their app, and so does a `write` grantee (docs/api/sharing.md); only the
// integrator deletes it. The built-in apps belong to the platform. The editor's own routes (`ui`,
// per-version edits, copies, previews) are editor-routes.ts.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { documentationOf, launchView, versionOf, visibleApp } from '../catalog/index.ts';
import { appRequest, shortUser } from '../shared/index.ts';
import {
  addVersion,
  callerOf,
  changeableApp,
  checkLabelFree,
  checkTools,
  insertApp,
  namedVersion,
  nextOrder,
  saveDocumentation,
  saveOverVersion,
  type AppParams,
  type VersionParams,
} from './app-edits.ts';
import { relabel } from './editor-views.ts';
import { gatewayError } from '../../../common/errors.ts';

export const editingRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  now: () => number;
}> = async (app, { db, now }) => {
  const answer = (user: string, appId: string) =>
    visibleApp(db, user, 'de', appId).then((row) => launchView(db, user, row));

  app.post<{ Params: { systemId: string } }>('/apps/:systemId', async (request) => {
    const caller = callerOf(request.query);
    if (request.params.systemId.toLowerCase() !== 'de')
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `apps can be made only in system "de"`, {
        system_id: request.params.systemId,
      });
    const wanted = appRequest(request.body);
    const id = randomUUID();
    await db.transaction().execute(async (trx) => {
      await checkTools(trx, wanted, caller.user);
      const at = now();
      await insertApp(
        trx,
        {
          id,
          name: wanted.name,
          description: wanted.description,
          wikiUrl: wanted.wikiUrl ?? null,
        },
        caller,
        at,
      );
      await addVersion(trx, id, wanted, caller.user, 1, at);
    });
    return answer(caller.user, id);
  });

  /** PUT replaces the current version's definition; PATCH changes only what it names (labels). */
  app.put<AppParams>('/apps/:systemId/:appId', async (request) => {
    const caller = callerOf(request.query);
    const current = await changeableApp(db, caller, request.params, 'write');
    await saveOverVersion(db, {
      app: current,
      version: await versionOf(db, current.id),
      request: appRequest(request.body, current),
      label: namedVersion(request.body),
      editor: caller.user,
      at: now(),
    });
    return answer(caller.user, current.id);
  });

  app.patch<AppParams>('/apps/:systemId/:appId', async (request) => {
    const caller = callerOf(request.query);
    const current = await changeableApp(db, caller, request.params, 'write');
    await relabel(db, current, await versionOf(db, current.id), request.body, now());
    return answer(caller.user, current.id);
  });

  app.delete<AppParams>('/apps/:systemId/:appId', async (request) => {
    const caller = callerOf(request.query);
    const current = await changeableApp(db, caller, request.params, 'own');
    await db
      .updateTable('apps')
      .set({ deleted: true, edited_date: now() })
      .where('id', '=', current.id)
      .execute();
    return { id: current.id };
  });

  app.post<AppParams>('/apps/:systemId/:appId/versions', async (request) => {
    const caller = callerOf(request.query);
    const current = await changeableApp(db, caller, request.params, 'write');
    const wanted = appRequest(request.body, current);
    const label = namedVersion(request.body);
    if (!label)
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'a new version needs "version"', {
        field: 'version',
      });
    await checkLabelFree(db, current.id, label);
    await db.transaction().execute(async (trx) => {
      await checkTools(trx, wanted, caller.user, current.id);
      const at = now();
      await addVersion(trx, current.id, wanted, caller.user, await nextOrder(trx, current.id), at);
      await trx.updateTable('apps').set({ edited_date: at }).where('id', '=', current.id).execute();
    });
    return answer(caller.user, current.id);
  });

  app.get<VersionParams>('/apps/:systemId/:appId/versions/:versionId', async (request) => {
    const user = shortUser(request.query);
    return launchView(
      db,
      user,
      await visibleApp(db, user, request.params.systemId, request.params.appId),
      request.params.versionId,
    );
  });

  app.delete<VersionParams>('/apps/:systemId/:appId/versions/:versionId', async (request) => {
    const caller = callerOf(request.query);
    const current = await changeableApp(db, caller, request.params, 'own');
    const versions = await db
      .selectFrom('app_versions')
      .select('id')
      .where('app_id', '=', current.id)
      .execute();
    const versionId = request.params.versionId.toLowerCase();
    if (!versions.some((version) => version.id === versionId))
      throw gatewayError('ERR_NOT_FOUND', `app ${current.id} has no version ${versionId}`, {
        version_id: versionId,
      });
    if (versions.length === 1)
      throw gatewayError(
        'ERR_ILLEGAL_ARGUMENT',
        'the only version of an app cannot be deleted; delete the app',
        { version_id: versionId },
      );
    await db.deleteFrom('app_versions').where('id', '=', versionId).execute();
    return { id: current.id, version_id: versionId };
  });

  // Documentation of the current version, or of one version.
  app.get<AppParams>('/apps/:systemId/:appId/documentation', async (request) => {
    const user = shortUser(request.query);
    const row = await visibleApp(db, user, request.params.systemId, request.params.appId);
    return documentationOf(db, row.id);
  });
  app.get<VersionParams>(
    '/apps/:systemId/:appId/versions/:versionId/documentation',
    async (request) => {
      const user = shortUser(request.query);
      const row = await visibleApp(db, user, request.params.systemId, request.params.appId);
      return documentationOf(db, row.id, request.params.versionId);
    },
  );
  for (const method of ['POST', 'PATCH'] as const) {
    app.route<AppParams>({
      method,
      url: '/apps/:systemId/:appId/documentation',
      handler: async (request) => {
        const current = await changeableApp(db, callerOf(request.query), request.params, 'write');
        return saveDocumentation(db, current.id, undefined, request.body);
      },
    });
    app.route<VersionParams>({
      method,
      url: '/apps/:systemId/:appId/versions/:versionId/documentation',
      handler: async (request) => {
        const current = await changeableApp(db, callerOf(request.query), request.params, 'write');
        return saveDocumentation(db, current.id, request.params.versionId, request.body);
      },
    });
  }
};

// The app editor's routes (routes.md §16): the editor's view of an app and of each version (`ui`),
// their steps (`tasks`) and tools, per-version details, replacing, relabelling and copying a
// version, the order of versions, copying an app, the command-line preview, and deleting many
// apps at once (`shredder`). Editing needs `write` on the app (its integrator or a `write`
// grantee); reading what anyone who sees the app sees needs only that.
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import {
  anyApp,
  appDetails,
  toolsOf,
  versionOf,
  visibleApp,
  type AppRow,
} from '../catalog/index.ts';
import { appRequest, argumentPreview, shortUser, type AppDefinition } from '../shared/index.ts';
import {
  callerOf,
  changeableApp,
  namedVersion,
  saveOverVersion,
  type AppParams,
  type VersionParams,
} from './app-edits.ts';
import { relabel, tasksView, uiView, publishability } from './editor-views.ts';
import { copyAsNewApp, copyAsNewVersion } from './app-copies.ts';
import { isJsonObject } from '../../../common/request-body.ts';
import { gatewayError } from '../../../common/errors.ts';

const badField = (field: string, reason: string) =>
  gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field });

/** `{app_ids: [...]}`: the ids of a shredder body (at least one, each a string). */
export function shredderIds(body: unknown): string[] {
  const ids = isJsonObject(body) ? body.app_ids : undefined;
  if (
    !Array.isArray(ids) ||
    ids.length === 0 ||
    ids.some((id) => typeof id !== 'string' || id === '')
  )
    throw badField('app_ids', '"app_ids" must be a non-empty list of app ids');
  return [...new Set((ids as string[]).map((id) => id.toLowerCase()))];
}

export const editorRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  now: () => number;
}> = async (app, { db, now }) => {
  const seen = (query: unknown, params: AppParams['Params']) =>
    visibleApp(db, shortUser(query), params.systemId, params.appId);
  const ui = async (row: AppRow, versionId?: string) =>
    uiView(db, row, await versionOf(db, row.id, versionId));

  // The editor's view: for those who may edit the app.
  app.get<AppParams>('/apps/:systemId/:appId/ui', async (request) =>
    ui(await changeableApp(db, callerOf(request.query), request.params, 'write')),
  );
  app.get<VersionParams>('/apps/:systemId/:appId/versions/:versionId/ui', async (request) =>
    ui(
      await changeableApp(db, callerOf(request.query), request.params, 'write'),
      request.params.versionId,
    ),
  );

  // Steps and tools: for anyone who sees the app.
  const tasks = async (query: unknown, params: AppParams['Params'], versionId?: string) => {
    const row = await seen(query, params);
    return tasksView(db, row, await versionOf(db, row.id, versionId));
  };
  const tools = async (query: unknown, params: AppParams['Params'], versionId?: string) => {
    const row = await seen(query, params);
    const version = await versionOf(db, row.id, versionId);
    return { tools: await toolsOf(db, JSON.parse(version.definition) as AppDefinition) };
  };
  app.get<AppParams>('/apps/:systemId/:appId/tasks', async (request) =>
    tasks(request.query, request.params),
  );
  app.get<VersionParams>('/apps/:systemId/:appId/versions/:versionId/tasks', async (request) =>
    tasks(request.query, request.params, request.params.versionId),
  );
  app.get<AppParams>('/apps/:systemId/:appId/tools', async (request) =>
    tools(request.query, request.params),
  );
  app.get<VersionParams>('/apps/:systemId/:appId/versions/:versionId/tools', async (request) =>
    tools(request.query, request.params, request.params.versionId),
  );
  app.get<VersionParams>('/apps/:systemId/:appId/versions/:versionId/details', async (request) => {
    const row = await seen(request.query, request.params);
    const details = await appDetails(db, shortUser(request.query), row, request.params.versionId);
    const { job_count_completed, job_last_completed } = details.job_stats;
    return {
      ...details,
      job_stats: { job_count_completed, ...(job_last_completed ? { job_last_completed } : {}) },
    };
  });

  app.get<AppParams>('/apps/:systemId/:appId/is-publishable', async (request) => {
    const row = await changeableApp(db, callerOf(request.query), request.params, 'write');
    return publishability(row, await versionOf(db, row.id));
  });

  /** Replaces one version from the editor's app (as `ui` answers it); the app's name and description follow. */
  app.put<VersionParams>('/apps/:systemId/:appId/versions/:versionId', async (request) => {
    const caller = callerOf(request.query);
    const row = await changeableApp(db, caller, request.params, 'write');
    const version = await versionOf(db, row.id, request.params.versionId);
    await saveOverVersion(db, {
      app: row,
      version,
      request: appRequest(request.body, row),
      label: namedVersion(request.body),
      editor: caller.user,
      at: now(),
    });
    return ui(await anyApp(db, 'de', row.id), version.id);
  });

  app.patch<VersionParams>('/apps/:systemId/:appId/versions/:versionId', async (request) => {
    const row = await changeableApp(db, callerOf(request.query), request.params, 'write');
    const version = await versionOf(db, row.id, request.params.versionId);
    await relabel(db, row, version, request.body, now());
    return ui(await anyApp(db, 'de', row.id), version.id);
  });

  /** A copy of a version becomes the app's newest (current) version, labelled `<label> (copy)`. */
  app.post<VersionParams>('/apps/:systemId/:appId/versions/:versionId/copy', async (request) => {
    const caller = callerOf(request.query);
    const row = await changeableApp(db, caller, request.params, 'write');
    const version = await versionOf(db, row.id, request.params.versionId);
    return ui(row, await copyAsNewVersion(db, row, version, caller.user, now()));
  });

  /**
   * The order of an app's versions (`{versions: [{version_id}, ...]}`, every version once, newest
   * first as the `versions` of a launch form or details list them): the first becomes current.
   */
  app.put<AppParams>('/apps/:systemId/:appId/versions', async (request) => {
    const row = await changeableApp(db, callerOf(request.query), request.params, 'write');
    const body = request.body;
    const listed = isJsonObject(body) ? body.versions : undefined;
    if (
      !Array.isArray(listed) ||
      listed.some((item) => !isJsonObject(item) || typeof item.version_id !== 'string')
    )
      throw badField('versions', '"versions" must be a list of {version_id}');
    const ids = listed.map((item) => (item as { version_id: string }).version_id.toLowerCase());
    const existing = (
      await db.selectFrom('app_versions').select('id').where('app_id', '=', row.id).execute()
    ).map((version) => version.id);
    if (
      new Set(ids).size !== ids.length ||
      ids.length !== existing.length ||
      ids.some((id) => !existing.includes(id))
    )
      throw badField(
        'versions',
        `"versions" must list each of the app's ${existing.length} versions once`,
      );
    await db.transaction().execute(async (trx) => {
      // Out of the way first: (app_id, version_order) is unique.
      for (const [index, id] of ids.entries())
        await trx
          .updateTable('app_versions')
          .set({ version_order: -1 - index })
          .where('id', '=', id)
          .execute();
      for (const [index, id] of ids.entries())
        await trx
          .updateTable('app_versions')
          .set({ version_order: ids.length - index })
          .where('id', '=', id)
          .execute();
      await trx.updateTable('apps').set({ edited_date: now() }).where('id', '=', row.id).execute();
    });
    return ui(row);
  });

  /** A private copy of an app the caller sees, theirs, named "Copy of <name>", of its current version. */
  app.post<AppParams>('/apps/:systemId/:appId/copy', async (request) => {
    const caller = callerOf(request.query);
    const source = await visibleApp(db, caller.user, request.params.systemId, request.params.appId);
    const id = await copyAsNewApp(db, source, await versionOf(db, source.id), caller, now());
    return ui(await visibleApp(db, caller.user, 'de', id));
  });

  app.post('/apps/:systemId/arg-preview', async (request) => {
    callerOf(request.query);
    return argumentPreview(request.body);
  });

  /** Marks the caller's own apps deleted, all or none: any app not theirs refuses the whole body. */
  app.post('/apps/shredder', async (request) => {
    const caller = callerOf(request.query);
    const ids = shredderIds(request.body);
    for (const appId of ids) await changeableApp(db, caller, { systemId: 'de', appId }, 'own');
    await db
      .updateTable('apps')
      .set({ deleted: true, edited_date: now() })
      .where('id', 'in', ids)
      .execute();
    return { app_ids: ids };
  });
};

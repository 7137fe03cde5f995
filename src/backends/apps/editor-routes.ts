// The app editor's routes (routes.md §16): the editor's view of an app and of each version (`ui`),
// their steps (`tasks`) and tools, per-version details, replacing, relabelling and copying a
// version, the order of versions, copying an app, the command-line preview, and deleting many
// apps at once (`shredder`). Editing needs `write` on the app (its integrator or a `write`
// grantee); reading what anyone who sees the app sees needs only that.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../store/schema.js';
import { visibleApp, type AppRow } from './app-views.js';
import { appRequest, type AppDefinition } from './definition.js';
import { shortUser } from './caller.js';
import {
  anyApp,
  callerOf,
  changeableApp,
  namedVersion,
  nextOrder,
  saveOverVersion,
  versionOf,
  type AppParams,
  type VersionParams,
  type VersionRow,
} from './app-edits.js';
import { appDetails } from './app-listing-routes.js';
import { relabel, tasksView, toolsOf, uiView, publishability } from './editor-views.js';
import { argumentPreview } from './arg-preview.js';
import { isJsonObject } from '../../common/request-body.js';
import { gatewayError } from '../../common/errors.js';

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

/** A label like `label` that none of `taken` is: `label`, `label (2)`, `label (3)`, ... */
function freeLabel(label: string, taken: string[]): string {
  if (!taken.includes(label)) return label;
  for (let n = 2; ; n += 1) if (!taken.includes(`${label} (${n})`)) return `${label} (${n})`;
}

/** A copy of `version` as a version of `appId` (the same app or another), its tools too. */
async function copyVersion(
  trx: Transaction<Database>,
  version: VersionRow,
  appId: string,
  fields: { version: string; version_order: number; created_by: string; created_on: number },
): Promise<string> {
  const id = randomUUID();
  await trx
    .insertInto('app_versions')
    .values({ ...version, ...fields, id, app_id: appId })
    .execute();
  const steps = await trx
    .selectFrom('app_version_tools')
    .select(['step_number', 'tool_id'])
    .where('app_version_id', '=', version.id)
    .execute();
  if (steps.length > 0)
    await trx
      .insertInto('app_version_tools')
      .values(steps.map((step) => ({ ...step, app_version_id: id })))
      .execute();
  return id;
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
    const taken = (
      await db.selectFrom('app_versions').select('version').where('app_id', '=', row.id).execute()
    ).map((other) => other.version);
    const id = await db.transaction().execute(async (trx) => {
      const at = now();
      const made = await copyVersion(trx, version, row.id, {
        version: freeLabel(`${version.version} (copy)`, taken),
        version_order: await nextOrder(trx, row.id),
        created_by: caller.user,
        created_on: at,
      });
      await trx.updateTable('apps').set({ edited_date: at }).where('id', '=', row.id).execute();
      return made;
    });
    return ui(row, id);
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
    const version = await versionOf(db, source.id);
    const id = randomUUID();
    await db.transaction().execute(async (trx) => {
      const at = now();
      await trx
        .insertInto('apps')
        .values({
          id,
          name: `Copy of ${source.name}`.slice(0, 255),
          description: source.description,
          wiki_url: source.wiki_url,
          integrator: caller.user,
          integrator_name: caller.name,
          integrator_email: caller.email,
          integration_date: at,
          edited_date: at,
        })
        .execute();
      await copyVersion(trx, version, id, {
        version: version.version,
        version_order: 1,
        created_by: caller.user,
        created_on: at,
      });
    });
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

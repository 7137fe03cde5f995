// Pipelines (routes.md §16 app-pipelines): apps whose steps are other apps, one step each, with
// outputs of earlier steps mapped onto inputs of later ones (shared/definition.ts says how they are
// stored). Creating one, its editor's view (`ui`), saving it, new versions, copies. Editing needs
// `write` on the pipeline (its integrator or a `write` grantee) and, as in DE, a pipeline made
// public may no longer be edited (403 ERR_NOT_WRITEABLE); copying it needs only to see it.
// Listings, launch forms and launches are the app catalog's (catalog/app-listings.ts,
// catalog/app-views.ts, jobs/job-submission.ts), which know mapped inputs.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { asBoolean } from '../../../store/sqlite-booleans.ts';
import { anyApp, versionOf, visibleApp, type AppRow, type VersionRow } from '../catalog/index.ts';
import {
  callerOf,
  changeableApp,
  checkLabelFree,
  copyAsNewApp,
  copyAsNewVersion,
  insertApp,
  insertVersion,
  nextOrder,
  writeDefinition,
  type Caller,
} from '../editor/index.ts';
import type { AppDefinition } from '../shared/index.ts';
import { pipelineRequest } from './pipeline-request.ts';
import { pipelineView } from './pipeline-views.ts';
import { isJsonObject } from '../../../common/request-body.ts';
import { gatewayError } from '../../../common/errors.ts';

type PipelineParams = { Params: { appId: string } };
type PipelineVersionParams = { Params: { appId: string; versionId: string } };

export const pipelineRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  now: () => number;
}> = async (app, { db, now }) => {
  const view = async (appId: string, versionId?: string) => {
    const row = await anyApp(db, 'de', appId);
    return pipelineView(db, row, await versionOf(db, row.id, versionId));
  };

  /** The pipeline when `caller` may edit it: `write` on it, and not public. */
  const editable = async (caller: Caller, appId: string): Promise<AppRow> => {
    const row = await changeableApp(db, caller, { systemId: 'de', appId }, 'write');
    if (asBoolean(row.is_public))
      throw gatewayError(
        'ERR_NOT_WRITEABLE',
        `pipeline ${row.id} is public and may not be edited`,
        {
          app_id: row.id,
        },
      );
    return row;
  };

  /** Saves a body over one version in place; the pipeline's name and description follow it. */
  const saveOver = async (caller: Caller, row: AppRow, version: VersionRow, body: unknown) => {
    const wanted = await pipelineRequest(db, caller.user, body, {
      current: row,
      previous: JSON.parse(version.definition) as AppDefinition,
    });
    await db.transaction().execute(async (trx) => {
      if (wanted.label) await checkLabelFree(trx, row.id, wanted.label, version.id);
      await writeDefinition(trx, version, wanted.definition, { version: wanted.label });
      await trx
        .updateTable('apps')
        .set({ name: wanted.name, description: wanted.description, edited_date: now() })
        .where('id', '=', row.id)
        .execute();
    });
    return view(row.id, version.id);
  };

  app.post('/apps/pipelines', async (request) => {
    const caller = callerOf(request.query);
    const wanted = await pipelineRequest(db, caller.user, request.body);
    const id = randomUUID();
    await db.transaction().execute(async (trx) => {
      const at = now();
      await insertApp(trx, { id, name: wanted.name, description: wanted.description }, caller, at);
      await insertVersion(trx, id, wanted.definition, {
        version: wanted.label ?? '1.0',
        references: [],
        user: caller.user,
        order: 1,
        at,
      });
    });
    return view(id);
  });

  app.get<PipelineParams>('/apps/pipelines/:appId/ui', async (request) => {
    const row = await editable(callerOf(request.query), request.params.appId);
    return view(row.id);
  });
  app.get<PipelineVersionParams>(
    '/apps/pipelines/:appId/versions/:versionId/ui',
    async (request) => {
      const row = await editable(callerOf(request.query), request.params.appId);
      return view(row.id, request.params.versionId);
    },
  );

  /** Saves over the current version, or over the one the body's `version_id` names. */
  app.put<PipelineParams>('/apps/pipelines/:appId', async (request) => {
    const caller = callerOf(request.query);
    const row = await editable(caller, request.params.appId);
    const body = request.body;
    const named = isJsonObject(body) && typeof body.version_id === 'string' ? body.version_id : '';
    return saveOver(caller, row, await versionOf(db, row.id, named || undefined), body);
  });
  app.put<PipelineVersionParams>('/apps/pipelines/:appId/versions/:versionId', async (request) => {
    const caller = callerOf(request.query);
    const row = await editable(caller, request.params.appId);
    const version = await versionOf(db, row.id, request.params.versionId);
    return saveOver(caller, row, version, request.body);
  });

  /** A new version (it needs its own `version` label), which becomes current. */
  app.post<PipelineParams>('/apps/pipelines/:appId/versions', async (request) => {
    const caller = callerOf(request.query);
    const row = await editable(caller, request.params.appId);
    const wanted = await pipelineRequest(db, caller.user, request.body, { current: row });
    const label = wanted.label;
    if (!label)
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'a new version needs "version"', {
        field: 'version',
      });
    const id = await db.transaction().execute(async (trx) => {
      await checkLabelFree(trx, row.id, label);
      const at = now();
      const made = await insertVersion(trx, row.id, wanted.definition, {
        version: label,
        references: [],
        user: caller.user,
        order: await nextOrder(trx, row.id),
        at,
      });
      await trx
        .updateTable('apps')
        .set({ name: wanted.name, description: wanted.description, edited_date: at })
        .where('id', '=', row.id)
        .execute();
      return made;
    });
    return view(row.id, id);
  });

  /** A copy of a version becomes the pipeline's newest (current) version, labelled `<label> (copy)`. */
  app.post<PipelineVersionParams>(
    '/apps/pipelines/:appId/versions/:versionId/copy',
    async (request) => {
      const caller = callerOf(request.query);
      const row = await editable(caller, request.params.appId);
      const version = await versionOf(db, row.id, request.params.versionId);
      return view(row.id, await copyAsNewVersion(db, row, version, caller.user, now()));
    },
  );

  /** A private copy, the caller's, named "Copy of <name>", of the current version of a pipeline they see. */
  app.post<PipelineParams>('/apps/pipelines/:appId/copy', async (request) => {
    const caller = callerOf(request.query);
    const source = await visibleApp(db, caller.user, 'de', request.params.appId);
    return view(await copyAsNewApp(db, source, await versionOf(db, source.id), caller, now()));
  });
};

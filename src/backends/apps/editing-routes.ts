// Creating and changing one's own apps (routes.md §16): apps, their versions and documentation.
// Only the integrator changes an app; the built-in apps belong to the platform.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../store/schema.js';
import { launchView, visibleApp } from './app-views.js';
import { appRequest, definitionOf, type AppDefinition, type AppRequest } from './definition.js';
import { shortUser, signedInUser } from './caller.js';
import { visibleToolsQuery } from './tool-model.js';
import { errorAs, gatewayError } from '../../common/errors.js';

const stepTools = (versionId: string, definition: AppDefinition) =>
  definition.steps.map((step, index) => ({
    app_version_id: versionId,
    step_number: index + 1,
    tool_id: step.tool_id,
  }));

type AppParams = { Params: { systemId: string; appId: string } };
type VersionParams = { Params: { systemId: string; appId: string; versionId: string } };

interface Caller {
  user: string;
  name: string;
  email: string;
}

function callerOf(query: unknown): Caller {
  const user = signedInUser(query, 'change apps');
  const {
    email = '',
    'first-name': first = '',
    'last-name': last = '',
  } = query as Record<string, string>;
  return { user, name: `${first} ${last}`.trim() || user, email };
}

export const editingRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  now: () => number;
}> = async (app, { db, now }) => {
  /** The app when `caller` integrated it; 404 when they cannot see it, 403 when it is someone else's. */
  const ownApp = async (caller: Caller, params: AppParams['Params']) => {
    const row = await visibleApp(db, caller.user, params.systemId, params.appId);
    if (row.integrator !== caller.user)
      throw gatewayError('ERR_NOT_OWNER', `${caller.user} does not own app ${row.id}`, {
        app_id: row.id,
      });
    return row;
  };

  /** The request's tools must be ones `user` may see (public, their own, shared with them). */
  const checkTools = async (
    request: AppRequest,
    user: string,
    trx: Transaction<Database> | Kysely<Database>,
  ) => {
    if (request.toolIds.length === 0) return;
    const found = new Set(
      (
        await visibleToolsQuery(trx, user)
          .select('tools.id')
          .where('tools.id', 'in', request.toolIds)
          .execute()
      ).map((row) => row.id),
    );
    const missing = request.toolIds.filter((id) => !found.has(id));
    if (missing.length > 0)
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `no tool ${missing.join(', ')}`, {
        field: 'tools',
        tools: missing,
      });
  };

  const addVersion = async (
    trx: Transaction<Database>,
    appId: string,
    request: AppRequest,
    user: string,
    order: number,
  ) => {
    const definition = definitionOf(request);
    const id = randomUUID();
    await trx
      .insertInto('app_versions')
      .values({
        id,
        app_id: appId,
        version: request.version,
        version_order: order,
        definition: JSON.stringify(definition),
        reference_urls: JSON.stringify(request.references),
        created_by: user,
        created_on: now(),
      })
      .execute();
    await trx.insertInto('app_version_tools').values(stepTools(id, definition)).execute();
    return id;
  };

  app.post<{ Params: { systemId: string } }>('/apps/:systemId', async (request) => {
    const caller = callerOf(request.query);
    if (request.params.systemId.toLowerCase() !== 'de')
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `apps can be made only in system "de"`, {
        system_id: request.params.systemId,
      });
    const wanted = appRequest(request.body);
    const id = randomUUID();
    await db.transaction().execute(async (trx) => {
      await checkTools(wanted, caller.user, trx);
      const at = now();
      await trx
        .insertInto('apps')
        .values({
          id,
          name: wanted.name,
          description: wanted.description,
          wiki_url: wanted.wikiUrl ?? null,
          integrator: caller.user,
          integrator_name: caller.name,
          integrator_email: caller.email,
          integration_date: at,
          edited_date: at,
        })
        .execute();
      await addVersion(trx, id, wanted, caller.user, 1);
    });
    return launchView(db, caller.user, await visibleApp(db, caller.user, 'de', id));
  });

  /** PUT replaces the current version's definition; PATCH changes only what it names (labels). */
  app.put<AppParams>('/apps/:systemId/:appId', async (request) => {
    const caller = callerOf(request.query);
    const current = await ownApp(caller, request.params);
    const wanted = appRequest(request.body, current);
    await db.transaction().execute(async (trx) => {
      await checkTools(wanted, caller.user, trx);
      // In place: analyses and quick launches that name this version keep naming it.
      const top = await trx
        .selectFrom('app_versions')
        .select(['id', 'version'])
        .where('app_id', '=', current.id)
        .orderBy('version_order', 'desc')
        .executeTakeFirstOrThrow();
      const definition = definitionOf(wanted);
      const version =
        typeof (request.body as { version?: unknown }).version === 'string'
          ? wanted.version
          : top.version;
      await trx
        .updateTable('app_versions')
        .set({
          version,
          definition: JSON.stringify(definition),
          reference_urls: JSON.stringify(wanted.references),
        })
        .where('id', '=', top.id)
        .execute();
      await trx.deleteFrom('app_version_tools').where('app_version_id', '=', top.id).execute();
      await trx.insertInto('app_version_tools').values(stepTools(top.id, definition)).execute();
      await trx
        .updateTable('apps')
        .set({
          name: wanted.name,
          description: wanted.description,
          wiki_url: wanted.wikiUrl ?? current.wiki_url,
          edited_date: now(),
        })
        .where('id', '=', current.id)
        .execute();
    });
    return launchView(db, caller.user, await visibleApp(db, caller.user, 'de', current.id));
  });

  app.patch<AppParams>('/apps/:systemId/:appId', async (request) => {
    const caller = callerOf(request.query);
    const current = await ownApp(caller, request.params);
    const body = (request.body ?? {}) as Record<string, unknown>;
    const changes: { name?: string; description?: string; wiki_url?: string; edited_date: number } =
      { edited_date: now() };
    for (const field of ['name', 'description', 'wiki_url'] as const) {
      const value = body[field];
      if (value === undefined) continue;
      if (typeof value !== 'string' || (field === 'name' && value.trim() === ''))
        throw gatewayError(
          'ERR_BAD_OR_MISSING_FIELD',
          `"${field}" must be a${field === 'name' ? ' non-empty' : ''} string`,
          { field },
        );
      changes[field] = value;
    }
    await db.updateTable('apps').set(changes).where('id', '=', current.id).execute();
    return launchView(db, caller.user, await visibleApp(db, caller.user, 'de', current.id));
  });

  app.delete<AppParams>('/apps/:systemId/:appId', async (request) => {
    const caller = callerOf(request.query);
    const current = await ownApp(caller, request.params);
    await db
      .updateTable('apps')
      .set({ deleted: true, edited_date: now() })
      .where('id', '=', current.id)
      .execute();
    return { id: current.id };
  });

  app.post<AppParams>('/apps/:systemId/:appId/versions', async (request) => {
    const caller = callerOf(request.query);
    const current = await ownApp(caller, request.params);
    const wanted = appRequest(request.body, current);
    if (typeof (request.body as { version?: unknown }).version !== 'string')
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'a new version needs "version"', {
        field: 'version',
      });
    const taken = await db
      .selectFrom('app_versions')
      .select('id')
      .where('app_id', '=', current.id)
      .where('version', '=', wanted.version)
      .executeTakeFirst();
    if (taken)
      throw errorAs(
        'ERR_EXISTS',
        'conflict',
        `app ${current.id} already has version ${wanted.version}`,
        { version: wanted.version },
      );
    await db.transaction().execute(async (trx) => {
      await checkTools(wanted, caller.user, trx);
      const top = await trx
        .selectFrom('app_versions')
        .select((eb) => eb.fn.max('version_order').as('top'))
        .where('app_id', '=', current.id)
        .executeTakeFirst();
      await addVersion(trx, current.id, wanted, caller.user, Number(top?.top ?? 0) + 1);
      await trx
        .updateTable('apps')
        .set({ edited_date: now() })
        .where('id', '=', current.id)
        .execute();
    });
    return launchView(db, caller.user, await visibleApp(db, caller.user, 'de', current.id));
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
    const current = await ownApp(caller, request.params);
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

  const documentation = async (appId: string) => {
    const version = await db
      .selectFrom('app_versions')
      .selectAll()
      .where('app_id', '=', appId)
      .orderBy('version_order', 'desc')
      .executeTakeFirstOrThrow();
    return {
      app_id: appId,
      version_id: version.id,
      documentation: version.documentation ?? '',
      references: JSON.parse(version.reference_urls) as string[],
    };
  };

  app.get<AppParams>('/apps/:systemId/:appId/documentation', async (request) => {
    const user = shortUser(request.query);
    return documentation(
      (await visibleApp(db, user, request.params.systemId, request.params.appId)).id,
    );
  });

  const saveDocumentation = async (request: {
    query: unknown;
    params: AppParams['Params'];
    body: unknown;
  }) => {
    const caller = callerOf(request.query);
    const current = await ownApp(caller, request.params);
    const body = (request.body ?? {}) as { documentation?: unknown; references?: unknown };
    if (typeof body.documentation !== 'string')
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', '"documentation" must be a string', {
        field: 'documentation',
      });
    if (
      body.references !== undefined &&
      (!Array.isArray(body.references) || body.references.some((item) => typeof item !== 'string'))
    ) {
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', '"references" must be a list of strings', {
        field: 'references',
      });
    }
    const version = (await documentation(current.id)).version_id;
    await db
      .updateTable('app_versions')
      .set({
        documentation: body.documentation,
        ...(body.references ? { reference_urls: JSON.stringify(body.references) } : {}),
      })
      .where('id', '=', version)
      .execute();
    return documentation(current.id);
  };
  app.post<AppParams>('/apps/:systemId/:appId/documentation', async (request) =>
    saveDocumentation(request),
  );
  app.patch<AppParams>('/apps/:systemId/:appId/documentation', async (request) =>
    saveDocumentation(request),
  );
};

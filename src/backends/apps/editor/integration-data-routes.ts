// Integration data routes of the apps service (routes.md §17, §18): administrators keep the records
// (`/admin/integration-data`) and say which one an app or a tool shows; users read an app's (and
// each version's, which is the app's) and a tool's, when they may see it.
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Database } from '../../../store/schema.ts';
import { choiceParam, countParam, singleParam } from '../../../common/query-params.ts';
import { gatewayError } from '../../../common/errors.ts';
import { anyApp, versionOf, visibleApp } from '../catalog/index.ts';
import { shortUser, signedInUser } from '../shared/index.ts';
import {
  appIntegrationData,
  assignToApp,
  assignToTool,
  createIntegrationData,
  deleteIntegrationData,
  findIntegrationData,
  integrationDataView,
  listIntegrationData,
  sortFields,
  toolIntegrationData,
  updateIntegrationData,
} from './integration-data.ts';
import { shortUsername } from '../../../common/users.ts';
import { visibleToolsQuery } from '../tools/index.ts';

const Fields = {
  integrator_name: Type.String({ minLength: 1, maxLength: 255 }),
  integrator_email: Type.String({ minLength: 1, maxLength: 255, format: 'email' }),
};
const CreateBody = Type.Object({
  ...Fields,
  user: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
});
const UpdateBody = Type.Object(Fields);

type AppParams = { systemId: string; appId: string; versionId?: string };

export const integrationDataRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  uidDomain: string;
  now: () => number;
}> = async (app, { db, uidDomain, now }) => {
  /** The app the caller may see (administrators: any app); with a version, one of its versions. */
  const appOf = async (user: string, params: AppParams, asAdmin = false) => {
    const row = asAdmin
      ? await anyApp(db, params.systemId, params.appId)
      : await visibleApp(db, user, params.systemId, params.appId);
    if (params.versionId !== undefined) await versionOf(db, row.id, params.versionId);
    return row;
  };
  const toolOf = async (id: string) => {
    const tool = await db
      .selectFrom('tools')
      .selectAll()
      .where('id', '=', id.toLowerCase())
      .executeTakeFirst();
    if (!tool) throw gatewayError('ERR_NOT_FOUND', `no tool ${id}`, { tool_id: id });
    return tool;
  };

  for (const path of [
    '/apps/:systemId/:appId/integration-data',
    '/apps/:systemId/:appId/versions/:versionId/integration-data',
  ])
    app.get<{ Params: AppParams }>(path, async (request) =>
      integrationDataView(
        await appIntegrationData(db, await appOf(shortUser(request.query), request.params), now()),
      ),
    );

  for (const path of [
    '/admin/apps/:systemId/:appId/integration-data/:dataId',
    '/admin/apps/:systemId/:appId/versions/:versionId/integration-data/:dataId',
  ])
    app.put<{ Params: AppParams & { dataId: string } }>(path, async (request) => {
      const row = await appOf(shortUser(request.query), request.params, true);
      const data = await findIntegrationData(db, request.params.dataId);
      await assignToApp(db, row.id, data);
      return integrationDataView(data);
    });

  // A tool's, for whoever may see it (as an app's): a private tool others cannot see is 404.
  app.get<{ Params: { toolId: string } }>('/tools/:toolId/integration-data', async (request) => {
    const user = signedInUser(request.query, 'read integration data');
    const visible = await visibleToolsQuery(db, user)
      .select('tools.id')
      .where('tools.id', '=', request.params.toolId.toLowerCase())
      .executeTakeFirst();
    if (!visible)
      throw gatewayError('ERR_NOT_FOUND', `no tool ${request.params.toolId}`, {
        tool_id: request.params.toolId,
      });
    return integrationDataView(
      await toolIntegrationData(db, await toolOf(visible.id), uidDomain, now()),
    );
  });

  app.put<{ Params: { toolId: string; dataId: string } }>(
    '/admin/tools/:toolId/integration-data/:dataId',
    async (request) => {
      const tool = await toolOf(request.params.toolId);
      const data = await findIntegrationData(db, request.params.dataId);
      await assignToTool(db, tool.id, data);
      return integrationDataView(data);
    },
  );

  app.get('/admin/integration-data', async (request) => {
    const { query } = request;
    return listIntegrationData(db, {
      search: singleParam(query, 'search'),
      limit: countParam(query, 'limit', 0),
      offset: countParam(query, 'offset', 0),
      sortField: choiceParam(
        query,
        'sort-field',
        Object.keys(sortFields) as (keyof typeof sortFields)[],
        'name',
      ),
      sortDir: choiceParam(query, 'sort-dir', ['asc', 'desc'] as const, 'asc'),
    });
  });

  app.post('/admin/integration-data', { schema: { body: CreateBody } }, async (request) => {
    const body = request.body as {
      integrator_name: string;
      integrator_email: string;
      user?: string;
    };
    return integrationDataView(
      await createIntegrationData(
        db,
        { ...body, ...(body.user ? { user: shortUsername(body.user) } : {}) },
        now(),
      ),
    );
  });

  type DataParams = { Params: { dataId: string } };
  app.get<DataParams>('/admin/integration-data/:dataId', async (request) =>
    integrationDataView(await findIntegrationData(db, request.params.dataId)),
  );
  app.put<DataParams>(
    '/admin/integration-data/:dataId',
    { schema: { body: UpdateBody } },
    async (request) =>
      integrationDataView(
        await updateIntegrationData(
          db,
          request.params.dataId,
          request.body as { integrator_name: string; integrator_email: string },
        ),
      ),
  );
  app.delete<DataParams>('/admin/integration-data/:dataId', async (request) => {
    await deleteIntegrationData(db, request.params.dataId);
    return { id: request.params.dataId.toLowerCase() };
  });
};

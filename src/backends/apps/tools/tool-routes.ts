// Tools (routes.md §17, §18; docs/api/tools.md): users import private tools, list what they may
// see (public, their own, shared with them), change and delete theirs, and list the apps that use
// one; administrators list, import (public), change, delete and publish any tool. Built-in tools
// belong to the platform: administrators change only their descriptive fields.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { asBoolean } from '../../../store/sqlite-booleans.ts';
import { paged } from '../../../store/paging.ts';
import { gatewayError } from '../../../common/errors.ts';
import {
  badQueryParam,
  booleanParam,
  countParam,
  normalizeQuery,
  optionalBooleanParam,
} from '../../../common/query-params.ts';
import { isJsonObject } from '../../../common/request-body.ts';
import type { UserNotification } from '../../../common/notifications.ts';
import { atLeast, removeGrantsOn, type Level } from '../../permissions/index.ts';
import {
  levelOf,
  sharedLevels,
  shortUser,
  signedInUser,
  type AppDefinition,
} from '../shared/index.ts';
import {
  answeredContainer,
  sameContainer,
  toolColumns,
  toolInput,
  toolView,
  visibleToolsQuery,
  type ToolInput,
  type ToolRow,
} from './tool-model.ts';
import { shortUsername } from '../../../common/users.ts';
import { approvalOf, toolProgram } from './tool-program.ts';

/** The GPU models a tool's container may ask for (`GET /tools/gpu-models`). */
export const gpuModels = [
  'NVIDIA A100 80GB PCIe',
  'NVIDIA A100-SXM4-40GB',
  'NVIDIA A16',
  'NVIDIA GeForce RTX 3090',
  'NVIDIA H100 80GB HBM3',
  'NVIDIA L4',
  'NVIDIA L40S',
  'Tesla T4',
  'Tesla V100-PCIE-32GB',
] as const;

/**
 * The apps whose versions run a tool, as `user` lists them (those they may see), or every app not
 * deleted with `everyApp` (administrators): the catalog's listing, which the tool routes answer
 * without depending on the catalog.
 */
export type AppsUsingTool = (
  toolId: string,
  user: string,
  options?: { everyApp?: boolean },
) => Promise<{ apps: Record<string, unknown>[] }>;

const sortFields = ['name', 'description', 'type', 'version', 'location', 'attribution'] as const;
type SortField = (typeof sortFields)[number];

interface ToolListingQuery {
  search?: string;
  sortField: SortField;
  sortDir: 'asc' | 'desc';
  limit: number;
  offset: number;
  publicOnly: boolean;
}

function toolListingQuery(raw: unknown): ToolListingQuery {
  const query = normalizeQuery(raw) as Record<string, string>;
  const sortField = (query['sort-field'] ?? 'name').toLowerCase();
  const sortDir = (query['sort-dir'] ?? 'asc').toLowerCase();
  if (!(sortFields as readonly string[]).includes(sortField))
    throw badQueryParam('sort-field', `sort-field must be one of ${sortFields.join(', ')}`);
  if (sortDir !== 'asc' && sortDir !== 'desc')
    throw badQueryParam('sort-dir', 'sort-dir must be ASC or DESC');
  const search = query.search?.trim();
  return {
    // Clients send `*` for everything.
    search: search && search !== '*' ? search : undefined,
    sortField: sortField as SortField,
    sortDir,
    limit: countParam(query, 'limit', 0),
    offset: countParam(query, 'offset', 0),
    publicOnly: optionalBooleanParam(query, 'public') ?? false,
  };
}

type ToolParams = { Params: { toolId: string } };

interface Caller {
  user: string;
  name: string;
  email: string;
}

function callerOf(query: unknown, what: string): Caller {
  const user = signedInUser(query, what);
  const {
    email = '',
    'first-name': first = '',
    'last-name': last = '',
  } = query as Record<string, string>;
  return { user, name: `${first} ${last}`.trim() || user, email };
}

export const toolRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  notify: (notification: UserNotification) => Promise<boolean>;
  now: () => number;
  /** CONTAINER_RUNTIME, which decides what a registry-image tool runs (tool-program.ts). */
  containerRuntime?: string;
  /** The apps using a tool, as the catalog lists them (the service's door passes the catalog's). */
  appsUsing: AppsUsingTool;
}> = async (app, { db, notify, now, containerRuntime, appsUsing }) => {
  /** One page of `from` (tools), searched and sorted, with the total before paging. */
  const listTools = async (
    from: ReturnType<typeof visibleToolsQuery>,
    query: ToolListingQuery,
    permissionOf: (rows: ToolRow[]) => Promise<(row: ToolRow) => Level>,
  ) => {
    let selection = from;
    if (query.publicOnly) selection = selection.where('tools.is_public', '=', true);
    if (query.search) {
      const pattern = `%${query.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      selection = selection.where((eb) =>
        eb.or([
          sql<boolean>`lower(tools.name) like ${pattern} escape '\\'`,
          sql<boolean>`lower(tools.description) like ${pattern} escape '\\'`,
          sql<boolean>`lower(tools.location) like ${pattern} escape '\\'`,
        ]),
      );
    }
    const total = await selection
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirst();
    const rows = await paged(
      selection
        .selectAll('tools')
        .orderBy(sql`lower(${sql.ref(`tools.${query.sortField}`)})`, query.sortDir)
        .orderBy('tools.id', query.sortDir),
      query.limit,
      query.offset,
    ).execute();
    const permission = await permissionOf(rows);
    return {
      tools: rows.map((row) => toolView(row, permission(row))),
      total: Number(total?.count ?? 0),
    };
  };

  /** Each tool's level for `user` (who may see them all). */
  const levelsFor = async (user: string, rows: ToolRow[]) => {
    const granted = await sharedLevels(
      db,
      'tool',
      rows.filter((row) => row.integrator !== user).map((row) => row.id),
      user,
    );
    return (row: ToolRow): Level =>
      levelOf(row.integrator, user, granted.get(row.id), asBoolean(row.is_public)) ?? 'read';
  };

  const findTool = async (id: string): Promise<ToolRow | undefined> =>
    db.selectFrom('tools').selectAll().where('id', '=', id.toLowerCase()).executeTakeFirst();

  const notFound = (id: string) => gatewayError('ERR_NOT_FOUND', `no tool ${id}`, { tool_id: id });

  /** The tool and `user`'s level on it; 404 when they may not see it. */
  const visibleTool = async (user: string, id: string) => {
    const row = await findTool(id);
    if (!row) throw notFound(id);
    const granted = await sharedLevels(db, 'tool', [row.id], user);
    const level = levelOf(row.integrator, user, granted.get(row.id), asBoolean(row.is_public));
    if (!level) throw notFound(id);
    return { row, level };
  };

  const adminTool = async (id: string) => {
    const row = await findTool(id);
    if (!row) throw notFound(id);
    return row;
  };

  const builtInRefusal = (row: ToolRow) => {
    if (row.executor !== null)
      throw gatewayError(
        'ERR_ILLEGAL_ARGUMENT',
        `tool ${row.id} is built in: it belongs to the platform and does not change`,
        { tool_id: row.id },
      );
  };

  /**
   * What an administrator's change of a built-in tool keeps: its descriptive fields (`description`,
   * `attribution`, `version`, `implementation`). What it runs (`name`, `type`, `location`,
   * `interactive`, `restricted`, `time_limit_seconds`, the container's image) may be sent only as
   * it is answered (400 `ERR_ILLEGAL_ARGUMENT` naming the field otherwise); the rest of a sent
   * container is not kept, since a built-in runs in-process and no container setting applies.
   */
  const builtInChanges = (row: ToolRow, input: ToolInput): ToolInput => {
    const refuse = (field: string) =>
      gatewayError(
        'ERR_ILLEGAL_ARGUMENT',
        `tool ${row.id} is built in: its ${field} belongs to the platform and does not change (only description, attribution, version and implementation do)`,
        { tool_id: row.id, field },
      );
    for (const field of ['name', 'type', 'location'] as const)
      if (input[field] !== undefined && input[field] !== row[field]) throw refuse(field);
    for (const field of ['interactive', 'restricted'] as const)
      if (input[field] !== undefined && input[field] !== asBoolean(row[field])) throw refuse(field);
    if (
      input.time_limit_seconds !== undefined &&
      (input.time_limit_seconds ?? 0) !== (row.time_limit_seconds ?? 0)
    )
      throw refuse('time_limit_seconds');
    if (input.container !== undefined) {
      const answered = answeredContainer(row).image as Record<string, unknown>;
      const image = input.container.image as Record<string, unknown>;
      for (const key of ['name', 'tag', 'url', 'osg_image_path'])
        if ((image[key] ?? '') !== (answered[key] ?? '')) throw refuse(`container.image.${key}`);
    }
    const { description, attribution, version, implementation } = input;
    return { description, attribution, version, implementation };
  };

  /** The input without its container when that says what the tool's already does. */
  const withoutSameContainer = (row: ToolRow, input: ToolInput): ToolInput =>
    input.container !== undefined && sameContainer(row, input.container)
      ? { ...input, container: undefined }
      : input;

  const update = async (row: ToolRow, input: ToolInput) => {
    await db
      .updateTable('tools')
      .set({ ...toolColumns(input), modified_on: now() })
      .where('id', '=', row.id)
      .execute();
    return (await findTool(row.id))!;
  };

  /**
   * An administrator's approval of what the tool runs as it now stands (tool-program.ts): imports
   * and changes through the admin routes approve; a later change of the program or image by its
   * owner is not approved.
   */
  const approve = async (id: string, admin: string) => {
    const row = (await findTool(id))!;
    const program = toolProgram(row, containerRuntime);
    await db
      .updateTable('tools')
      .set(
        'reason' in program
          ? { approved_run: null, approved_by: null }
          : { approved_run: approvalOf(program), approved_by: admin },
      )
      .where('id', '=', id)
      .execute();
  };

  /** The versions naming the tool, with whether their app is deleted. */
  const usersOf = (toolId: string) =>
    db
      .selectFrom('app_version_tools')
      .innerJoin('app_versions', 'app_versions.id', 'app_version_tools.app_version_id')
      .innerJoin('apps', 'apps.id', 'app_versions.app_id')
      .select([
        'app_versions.id as version_id',
        'app_versions.definition',
        'apps.id',
        'apps.deleted',
      ])
      .where('app_version_tools.tool_id', '=', toolId)
      .execute();

  /**
   * Deletes a tool. One an app (not deleted) uses is refused unless `force`; forced, or for deleted
   * apps, those versions' steps lose their tool (the apps can no longer run).
   */
  const deleteTool = async (row: ToolRow, force: boolean) => {
    builtInRefusal(row);
    const versions = await usersOf(row.id);
    const live = [...new Set(versions.filter((v) => !asBoolean(v.deleted)).map((v) => v.id))];
    if (live.length > 0 && !force)
      throw gatewayError(
        'ERR_ILLEGAL_ARGUMENT',
        `tool ${row.id} is used by ${live.length} app(s); delete with force-delete=true to take it from them`,
        { tool_id: row.id, app_ids: live },
      );
    await db.transaction().execute(async (trx) => {
      for (const version of versions) {
        const definition = JSON.parse(version.definition) as AppDefinition;
        for (const step of definition.steps) if (step.tool_id === row.id) step.tool_id = null;
        await trx
          .updateTable('app_versions')
          .set({ definition: JSON.stringify(definition) })
          .where('id', '=', version.version_id)
          .execute();
      }
      await trx
        .updateTable('app_version_tools')
        .set({ tool_id: null })
        .where('tool_id', '=', row.id)
        .execute();
      await removeGrantsOn(trx, 'tool', row.id);
      await trx.deleteFrom('tools').where('id', '=', row.id).execute();
    });
    return { id: row.id };
  };

  const tell = (user: string, subject: string, action: string, row: ToolRow) =>
    void notify({
      type: 'tool',
      user,
      subject,
      payload: {
        action,
        tool_id: row.id,
        tool_name: row.name,
        tool_version: row.version,
        is_public: asBoolean(row.is_public),
      },
    }).catch(() => false);

  // ---- users ------------------------------------------------------------------------------------

  app.get('/tools', async (request) => {
    const user = shortUser(request.query);
    return listTools(visibleToolsQuery(db, user), toolListingQuery(request.query), (rows) =>
      levelsFor(user, rows),
    );
  });

  app.post('/tools', async (request) => {
    const caller = callerOf(request.query, 'import tools');
    const input = toolInput(request.body, false);
    const id = randomUUID();
    const at = now();
    await db
      .insertInto('tools')
      .values({
        id,
        integrator: caller.user,
        created_on: at,
        modified_on: at,
        is_public: false,
        ...toolColumns({
          ...input,
          implementation: input.implementation ?? {
            implementor: caller.name,
            implementor_email: caller.email,
            test: { input_files: [], output_files: [] },
          },
        }),
        name: input.name!,
        type: input.type!,
      })
      .execute();
    return toolView((await findTool(id))!, 'own');
  });

  // Before `/tools/:toolId`, though the router would prefer the static segment anyway.
  app.get('/tools/gpu-models', async () => ({ gpu_models: [...gpuModels] }));

  app.get<ToolParams>('/tools/:toolId', async (request) => {
    const user = shortUser(request.query);
    const { row, level } = await visibleTool(user, request.params.toolId);
    return toolView(row, level, booleanParam(request.query, 'include-defaults', false));
  });

  app.patch<ToolParams>('/tools/:toolId', async (request) => {
    const caller = callerOf(request.query, 'change tools');
    const { row, level } = await visibleTool(caller.user, request.params.toolId);
    builtInRefusal(row);
    if (asBoolean(row.is_public))
      throw gatewayError(
        'ERR_FORBIDDEN',
        `tool ${row.id} is public: administrators change it (PATCH /admin/tools/${row.id})`,
        { tool_id: row.id },
      );
    if (!atLeast(level, 'write'))
      throw gatewayError('ERR_NOT_WRITEABLE', `${caller.user} may not change tool ${row.id}`, {
        tool_id: row.id,
      });
    // A client that sends the whole tool back (the web UI's form) sends its container unchanged.
    const changed = await update(
      row,
      withoutSameContainer(row, toolInput(request.body ?? {}, true)),
    );
    return toolView(changed, level);
  });

  app.delete<ToolParams>('/tools/:toolId', async (request) => {
    const caller = callerOf(request.query, 'delete tools');
    const { row, level } = await visibleTool(caller.user, request.params.toolId);
    builtInRefusal(row);
    if (asBoolean(row.is_public))
      throw gatewayError(
        'ERR_FORBIDDEN',
        `tool ${row.id} is public: administrators delete it (DELETE /admin/tools/${row.id})`,
        { tool_id: row.id },
      );
    if (level !== 'own')
      throw gatewayError('ERR_NOT_OWNER', `only its owner deletes tool ${row.id}`, {
        tool_id: row.id,
      });
    return deleteTool(row, booleanParam(request.query, 'force-delete', false));
  });

  app.get<ToolParams>('/tools/:toolId/apps', async (request) => {
    const user = shortUser(request.query);
    const { row } = await visibleTool(user, request.params.toolId);
    return appsUsing(row.id, user);
  });

  // ---- administrators (the gateway lets only them through) ---------------------------------------

  app.get('/admin/tools', async (request) =>
    listTools(db.selectFrom('tools'), toolListingQuery(request.query), async () => () => 'own'),
  );

  app.post('/admin/tools', async (request) => {
    const caller = callerOf(request.query, 'import tools');
    const body = request.body;
    if (!isJsonObject(body) || !Array.isArray(body.tools) || body.tools.length === 0)
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', '"tools" must be a non-empty list of tools', {
        field: 'tools',
      });
    if (body.tools.length > 100)
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'at most 100 tools per import', {
        field: 'tools',
      });
    const tools = (body.tools as unknown[]).map((raw, index) => {
      const prefix = `tools[${index}].`;
      const input = toolInput(raw, false, prefix);
      const owner = (raw as Record<string, unknown>).user;
      if (owner !== undefined && (typeof owner !== 'string' || owner.trim() === ''))
        throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `"${prefix}user" must be a username`, {
          field: `${prefix}user`,
        });
      return { input, owner: owner === undefined ? caller.user : shortUsername(owner) };
    });
    const at = now();
    const ids = tools.map(() => randomUUID());
    await db.transaction().execute(async (trx) => {
      for (const [index, { input, owner }] of tools.entries())
        await trx
          .insertInto('tools')
          .values({
            id: ids[index]!,
            integrator: owner,
            created_on: at,
            modified_on: at,
            is_public: true,
            ...toolColumns(input),
            name: input.name!,
            type: input.type!,
          })
          .execute();
    });
    for (const [index, { owner }] of tools.entries()) {
      await approve(ids[index]!, caller.user);
      const row = (await findTool(ids[index]!))!;
      tell(owner, `Tool ${row.name} ${row.version} has been deployed`, 'tool_deployment', row);
    }
    return { tool_ids: ids };
  });

  app.get<ToolParams>('/admin/tools/:toolId', async (request) =>
    toolView(
      await adminTool(request.params.toolId),
      'own',
      booleanParam(request.query, 'include-defaults', false),
    ),
  );

  app.patch<ToolParams>('/admin/tools/:toolId', async (request) => {
    const row = await adminTool(request.params.toolId);
    const sent = toolInput(request.body ?? {}, true);
    if (row.executor !== null) {
      await update(row, builtInChanges(row, sent));
      return toolView((await findTool(row.id))!, 'own');
    }
    const input = withoutSameContainer(row, sent);
    if (
      input.container !== undefined &&
      asBoolean(row.is_public) &&
      !booleanParam(request.query, 'overwrite-public', false)
    ) {
      // ERR_NOT_WRITEABLE with the apps it would change is what the web UI's admin tool form
      // answers with its "overwrite public apps?" dialog, then sends again with overwrite-public=true.
      const caller = shortUser(request.query);
      const { apps } = await appsUsing(row.id, caller);
      throw gatewayError(
        'ERR_NOT_WRITEABLE',
        `tool ${row.id} is public: its container settings change only with overwrite-public=true`,
        {
          tool_id: row.id,
          field: 'container',
          apps: apps.filter((app) => app.is_public).map(({ id, name }) => ({ id, name })),
        },
      );
    }
    await update(row, input);
    await approve(row.id, shortUser(request.query));
    return toolView((await findTool(row.id))!, 'own');
  });

  app.delete<ToolParams>('/admin/tools/:toolId', async (request) =>
    deleteTool(
      await adminTool(request.params.toolId),
      booleanParam(request.query, 'force-delete', false),
    ),
  );

  app.get<ToolParams>('/admin/tools/:toolId/apps', async (request) => {
    const row = await adminTool(request.params.toolId);
    return appsUsing(row.id, shortUser(request.query), { everyApp: true });
  });

  app.post<ToolParams>('/admin/tools/:toolId/publish', async (request) => {
    const row = await adminTool(request.params.toolId);
    // Publishing a public tool again changes nothing (built-in tools are public).
    if (asBoolean(row.is_public)) return toolView(row, 'own');
    await db
      .updateTable('tools')
      .set({ is_public: true, modified_on: now() })
      .where('id', '=', row.id)
      .execute();
    const published = (await findTool(row.id))!;
    tell(
      row.integrator,
      `Tool ${row.name} ${row.version} is now public`,
      'tool_published',
      published,
    );
    return toolView(published, 'own');
  });
};

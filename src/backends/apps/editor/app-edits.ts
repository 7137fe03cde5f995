// What every route that changes an app shares (editing-routes.ts, editor-routes.ts,
// publication-routes.ts, admin-app-routes.ts): who is calling, whether they may change the app
// (its integrator always; a `write` grantee for edits, docs/api/sharing.md), and writing versions.
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { atLeast } from '../../permissions/index.ts';
import {
  documentationOf,
  versionOf,
  visibleApp,
  type AppRow,
  type Db,
  type VersionRow,
} from '../catalog/index.ts';
import {
  definitionOf,
  isPipeline,
  levelOf,
  sharedLevels,
  signedInUser,
  type AppDefinition,
  type AppRequest,
} from '../shared/index.ts';
import { isJsonObject } from '../../../common/request-body.ts';
import { errorAs, gatewayError } from '../../../common/errors.ts';
import { visibleToolsQuery } from '../tools/index.ts';

export type AppParams = { Params: { systemId: string; appId: string } };
export type VersionParams = { Params: { systemId: string; appId: string; versionId: string } };

export interface Caller {
  user: string;
  name: string;
  email: string;
}

/** The signed-in caller with the name and email the gateway sends along. */
export function callerOf(query: unknown): Caller {
  const user = signedInUser(query, 'change apps');
  const {
    email = '',
    'first-name': first = '',
    'last-name': last = '',
  } = query as Record<string, string>;
  return { user, name: `${first} ${last}`.trim() || user, email };
}

/**
 * The app when `caller` may change it: `own` (its integrator) for deleting, publishing and
 * sharing, `write` (its integrator or a `write` grantee) for edits. 404 when they cannot see it,
 * 403 ERR_NOT_OWNER when they see it but may not change it.
 */
export async function changeableApp(
  db: Kysely<Database>,
  caller: Caller,
  params: AppParams['Params'],
  needed: 'write' | 'own',
): Promise<AppRow> {
  const row = await visibleApp(db, caller.user, params.systemId, params.appId);
  if (row.integrator === caller.user) return row;
  const granted =
    needed === 'write'
      ? (await sharedLevels(db, 'app', [row.id], caller.user)).get(row.id)
      : undefined;
  if (!atLeast(levelOf(row.integrator, caller.user, granted), needed))
    throw gatewayError(
      'ERR_NOT_OWNER',
      needed === 'own'
        ? `${caller.user} does not own app ${row.id}`
        : `${caller.user} may not change app ${row.id}`,
      { app_id: row.id },
    );
  return row;
}

/** Every tool a request names exists (400 naming the missing ones otherwise). */
/**
 * The request's tools must be ones `user` may see (public, their own, shared with them) or ones the
 * app already runs (a `write` grantee editing someone's app keeps its private tools).
 */
export async function checkTools(
  db: Db,
  request: AppRequest,
  user: string,
  appId?: string,
): Promise<void> {
  if (request.toolIds.length === 0) return;
  const found = new Set(
    (
      await visibleToolsQuery(db, user)
        .select('tools.id')
        .where('tools.id', 'in', request.toolIds)
        .execute()
    ).map((row) => row.id),
  );
  if (appId !== undefined) {
    const used = await db
      .selectFrom('app_version_tools')
      .innerJoin('app_versions', 'app_versions.id', 'app_version_tools.app_version_id')
      .select('app_version_tools.tool_id')
      .where('app_versions.app_id', '=', appId)
      .execute();
    for (const row of used) if (row.tool_id) found.add(row.tool_id);
  }
  const missing = request.toolIds.filter((id) => !found.has(id));
  if (missing.length > 0)
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `no tool ${missing.join(', ')}`, {
      field: 'tools',
      tools: missing,
    });
}

const stepTools = (versionId: string, definition: AppDefinition) =>
  definition.steps.map((step, index) => ({
    app_version_id: versionId,
    step_number: index + 1,
    tool_id: step.tool_id,
  }));

/** Adds a version (`order`: its version_order) made from a checked request; answers its id. */
export async function addVersion(
  trx: Transaction<Database>,
  appId: string,
  request: AppRequest,
  user: string,
  order: number,
  at: number,
  documentation: string | null = null,
): Promise<string> {
  return insertVersion(trx, appId, definitionOf(request), {
    version: request.version,
    references: request.references,
    user,
    order,
    at,
    documentation,
  });
}

/** A new private app of `caller` (its versions are added after), made at `at`. */
export async function insertApp(
  trx: Transaction<Database>,
  app: { id: string; name: string; description: string; wikiUrl?: string | null },
  caller: Caller,
  at: number,
): Promise<void> {
  await trx
    .insertInto('apps')
    .values({
      id: app.id,
      name: app.name,
      description: app.description,
      ...(app.wikiUrl !== undefined ? { wiki_url: app.wikiUrl } : {}),
      integrator: caller.user,
      integrator_name: caller.name,
      integrator_email: caller.email,
      integration_date: at,
      edited_date: at,
    })
    .execute();
}

/** Adds a version holding `definition` (its steps' tools recorded too); answers its id. */
export async function insertVersion(
  trx: Transaction<Database>,
  appId: string,
  definition: AppDefinition,
  fields: {
    version: string;
    references: string[];
    user: string;
    order: number;
    at: number;
    documentation?: string | null;
  },
): Promise<string> {
  const id = randomUUID();
  await trx
    .insertInto('app_versions')
    .values({
      id,
      app_id: appId,
      version: fields.version,
      version_order: fields.order,
      definition: JSON.stringify(definition),
      documentation: fields.documentation ?? null,
      reference_urls: JSON.stringify(fields.references),
      created_by: fields.user,
      created_on: fields.at,
    })
    .execute();
  await trx.insertInto('app_version_tools').values(stepTools(id, definition)).execute();
  return id;
}

/** The next version_order of an app (one above its current version). */
export async function nextOrder(db: Db, appId: string): Promise<number> {
  const top = await db
    .selectFrom('app_versions')
    .select((eb) => eb.fn.max('version_order').as('top'))
    .where('app_id', '=', appId)
    .executeTakeFirst();
  return Number(top?.top ?? 0) + 1;
}

/**
 * Replaces a version's definition in place (analyses and quick launches that name the version keep
 * naming it); steps keep their ids where the request keeps a step, so the launch form's parameter
 * ids stay the same. `label`: the version's new label, when the request names one.
 */
export async function replaceVersion(
  trx: Transaction<Database>,
  version: VersionRow,
  request: AppRequest,
  label: string | undefined,
): Promise<void> {
  const previous = JSON.parse(version.definition) as AppDefinition;
  const fresh = definitionOf(request);
  const definition: AppDefinition = {
    ...previous,
    steps: fresh.steps.map((step, index) => ({
      ...step,
      id: previous.steps[index]?.id ?? step.id,
      name: previous.steps[index]?.name ?? step.name,
    })),
    groups: fresh.groups,
  };
  await writeDefinition(trx, version, definition, {
    version: label,
    references: request.references,
  });
}

/** Stores `definition` over a version in place (its steps' tools too), with a new label or references. */
export async function writeDefinition(
  trx: Transaction<Database>,
  version: VersionRow,
  definition: AppDefinition,
  changes: { version?: string; references?: string[] },
): Promise<void> {
  await trx
    .updateTable('app_versions')
    .set({
      version: changes.version ?? version.version,
      definition: JSON.stringify(definition),
      ...(changes.references ? { reference_urls: JSON.stringify(changes.references) } : {}),
    })
    .where('id', '=', version.id)
    .execute();
  await trx.deleteFrom('app_version_tools').where('app_version_id', '=', version.id).execute();
  await trx.insertInto('app_version_tools').values(stepTools(version.id, definition)).execute();
}

/** A version label no other version of the app has (ERR_EXISTS, 409, otherwise). */
export async function checkLabelFree(
  db: Db,
  appId: string,
  label: string,
  except?: string,
): Promise<void> {
  let query = db
    .selectFrom('app_versions')
    .select('id')
    .where('app_id', '=', appId)
    .where('version', '=', label);
  if (except) query = query.where('id', '!=', except);
  if (await query.executeTakeFirst())
    throw errorAs('ERR_EXISTS', 'conflict', `app ${appId} already has version ${label}`, {
      version: label,
    });
}

/** Whether the body names a version label (`version`, a string). */
export const namedVersion = (body: unknown): string | undefined =>
  isJsonObject(body) && typeof body.version === 'string' && body.version.trim() !== ''
    ? body.version.trim()
    : undefined;

/** A documentation body: `{documentation, references?}`. */
export function documentationBody(body: unknown): {
  documentation: string;
  references?: string[];
} {
  const object = (isJsonObject(body) ? body : {}) as {
    documentation?: unknown;
    references?: unknown;
  };
  if (typeof object.documentation !== 'string')
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', '"documentation" must be a string', {
      field: 'documentation',
    });
  if (
    object.references !== undefined &&
    (!Array.isArray(object.references) ||
      object.references.some((item) => typeof item !== 'string'))
  ) {
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', '"references" must be a list of strings', {
      field: 'references',
    });
  }
  return {
    documentation: object.documentation,
    ...(object.references ? { references: object.references as string[] } : {}),
  };
}

/** Saves a version's documentation (its current one without `versionId`) and answers it. */
export async function saveDocumentation(
  db: Kysely<Database>,
  appId: string,
  versionId: string | undefined,
  body: unknown,
) {
  const wanted = documentationBody(body);
  const version = await versionOf(db, appId, versionId);
  await db
    .updateTable('app_versions')
    .set({
      documentation: wanted.documentation,
      ...(wanted.references ? { reference_urls: JSON.stringify(wanted.references) } : {}),
    })
    .where('id', '=', version.id)
    .execute();
  return documentationOf(db, appId, version.id);
}

/**
 * Saves an editor's body over one version of an app in one transaction: its tools and label
 * checked, the version replaced in place, the app's name, description and wiki link following the
 * body.
 */
export async function saveOverVersion(
  db: Kysely<Database>,
  edit: {
    app: AppRow;
    version: VersionRow;
    request: AppRequest;
    label: string | undefined;
    editor: string;
    at: number;
  },
): Promise<void> {
  const { app, version, request, label } = edit;
  // The app editor's body has tools, not the apps a pipeline's steps come from nor its mappings.
  if (isPipeline(JSON.parse(version.definition) as AppDefinition))
    throw gatewayError(
      'ERR_ILLEGAL_ARGUMENT',
      `app ${app.id} is a pipeline: save it through /apps/pipelines/${app.id}`,
      { app_id: app.id },
    );
  await db.transaction().execute(async (trx) => {
    await checkTools(trx, request, edit.editor, app.id);
    if (label) await checkLabelFree(trx, app.id, label, version.id);
    await replaceVersion(trx, version, request, label);
    await trx
      .updateTable('apps')
      .set({
        name: request.name,
        description: request.description,
        wiki_url: request.wikiUrl ?? app.wiki_url,
        edited_date: edit.at,
      })
      .where('id', '=', app.id)
      .execute();
  });
}

// Publishing apps (routes.md §16 `publish`, §17 publication requests and blessing): an integrator
// asks for their app to become public; administrators list the requests and approve one, which
// makes the app public, completes the request and tells the integrator (an `apps` notification,
// action `app_publication`). Administrators also mark apps as reviewed (`isBlessed`).
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { asBoolean } from '../../../store/sqlite-booleans.ts';
import { anyApp, currentVersions, listingEntries, toolsOf, versionOf } from '../catalog/index.ts';
import { shortUser, type AppDefinition } from '../shared/index.ts';
import {
  callerOf,
  changeableApp,
  documentationBody,
  saveDocumentation,
  type AppParams,
} from './app-edits.ts';
import { publishability } from './editor-views.ts';
import type { UserNotification } from '../../../common/notifications.ts';
import { booleanParam, normalizeQuery } from '../../../common/query-params.ts';
import { isJsonObject } from '../../../common/request-body.ts';
import { gatewayError } from '../../../common/errors.ts';
import { shortUsername } from '../../../common/users.ts';

type RequestRow = Selectable<Database['app_publication_requests']>;
const iso = (ms: number | null) => (ms === null ? undefined : new Date(Number(ms)).toISOString());

/** A publication request as the routes answer it. */
function requestEntry(row: RequestRow & { app_name: string; system_id: string }) {
  const sent = JSON.parse(row.request) as { documentation?: string; references?: string[] };
  return {
    id: row.id,
    app_id: row.app_id,
    system_id: row.system_id,
    app_name: row.app_name,
    requestor: row.requestor,
    requested_on: iso(row.requested_on),
    completed: asBoolean(row.completed),
    ...(row.completed_by ? { completed_by: row.completed_by } : {}),
    ...(row.completed_on !== null ? { completed_on: iso(row.completed_on) } : {}),
    ...sent,
  };
}

/**
 * The entries with their `app` as the web UI's publication requests tab reads it (`app.name`,
 * `integrator_name`, `integrator_email`, `system_id`, `tools[].container.image`): the app and the
 * tools of its current version.
 */
async function withApps(db: Kysely<Database>, entries: ReturnType<typeof requestEntry>[]) {
  const ids = [...new Set(entries.map((entry) => entry.app_id))];
  if (ids.length === 0) return entries;
  const [rows, versions] = await Promise.all([
    db.selectFrom('apps').selectAll().where('id', 'in', ids).execute(),
    currentVersions(db, ids),
  ]);
  const apps = new Map(
    await Promise.all(
      rows.map(async (row) => {
        const version = versions.get(row.id);
        const tools = version
          ? await toolsOf(db, JSON.parse(version.definition) as AppDefinition)
          : [];
        return [
          row.id,
          {
            id: row.id,
            system_id: row.system_id,
            name: row.name,
            description: row.description,
            integrator_name: row.integrator_name,
            integrator_email: row.integrator_email,
            is_public: asBoolean(row.is_public),
            ...(version ? { version: version.version, version_id: version.id } : {}),
            tools,
          },
        ] as const;
      }),
    ),
  );
  return entries.map((entry) => ({ ...entry, app: apps.get(entry.app_id) }));
}

const requests = (db: Kysely<Database>) =>
  db
    .selectFrom('app_publication_requests as r')
    .innerJoin('apps', 'apps.id', 'r.app_id')
    .selectAll('r')
    .select(['apps.name as app_name', 'apps.system_id']);

export const publicationRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  now: () => number;
  notify: (notification: UserNotification) => Promise<boolean>;
}> = async (app, { db, now, notify }) => {
  /**
   * The owner asks for their app to be published. `{documentation?, references?}` are saved as the
   * current version's first (as POST .../documentation would); then the app must be publishable
   * (400 ERR_ILLEGAL_ARGUMENT with the reason otherwise) and have no pending request (400 ERR_EXISTS).
   */
  app.post<AppParams>('/apps/:systemId/:appId/publish', async (request) => {
    const caller = callerOf(request.query);
    const row = await changeableApp(db, caller, request.params, 'own');
    const body = isJsonObject(request.body) ? request.body : {};
    if (body.documentation !== undefined || body.references !== undefined) {
      const current = await versionOf(db, row.id);
      const wanted = documentationBody({
        documentation: body.documentation ?? current.documentation ?? '',
        references: body.references,
      });
      await saveDocumentation(db, row.id, current.id, wanted);
    }
    const verdict = publishability(row, await versionOf(db, row.id));
    if (!verdict.publishable)
      throw gatewayError(
        'ERR_ILLEGAL_ARGUMENT',
        `app ${row.name} cannot be published: ${verdict.reason}`,
        {
          app_id: row.id,
          reason: verdict.reason,
        },
      );
    const pending = await db
      .selectFrom('app_publication_requests')
      .select('id')
      .where('app_id', '=', row.id)
      .where('completed', '=', false)
      .executeTakeFirst();
    if (pending)
      throw gatewayError(
        'ERR_EXISTS',
        `app ${row.name} already has a pending publication request`,
        {
          app_id: row.id,
          request_id: pending.id,
        },
      );
    const id = randomUUID();
    const sent = {
      ...(typeof body.documentation === 'string' ? { documentation: body.documentation } : {}),
      ...(Array.isArray(body.references) ? { references: body.references } : {}),
    };
    await db
      .insertInto('app_publication_requests')
      .values({
        id,
        app_id: row.id,
        requestor: caller.user,
        requested_on: now(),
        request: JSON.stringify(sent),
      })
      .execute();
    return requestEntry(await requests(db).where('r.id', '=', id).executeTakeFirstOrThrow());
  });

  /** `app_id`, `requestor` narrow the list; completed requests only with `include_completed=true`. */
  app.get('/admin/apps/publication-requests', async (request) => {
    shortUser(request.query);
    const query = normalizeQuery(request.query) as Record<string, string>;
    let selection = requests(db).orderBy('r.requested_on', 'asc').orderBy('r.id');
    if (query.app_id) selection = selection.where('r.app_id', '=', query.app_id.toLowerCase());
    if (query.requestor)
      selection = selection.where('r.requestor', '=', shortUsername(query.requestor));
    if (!booleanParam(query, 'include_completed', false))
      selection = selection.where('r.completed', '=', false);
    return {
      publication_requests: await withApps(db, (await selection.execute()).map(requestEntry)),
    };
  });

  /**
   * Administrators publish an app: it becomes public (whether or not its integrator asked), every
   * pending request of it is completed, and the integrator is told. An app already public, or
   * deleted, is 400 ERR_ILLEGAL_ARGUMENT.
   */
  app.post<AppParams>('/admin/apps/:systemId/:appId/publish', async (request) => {
    const adminUser = shortUser(request.query);
    const row = await anyApp(db, request.params.systemId, request.params.appId);
    if (asBoolean(row.deleted) || asBoolean(row.is_public))
      throw gatewayError(
        'ERR_ILLEGAL_ARGUMENT',
        `app ${row.name} is ${asBoolean(row.deleted) ? 'deleted' : 'already public'}`,
        { app_id: row.id },
      );
    const at = now();
    const completed = await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('apps')
        .set({ is_public: true, edited_date: at })
        .where('id', '=', row.id)
        .execute();
      const pending = await trx
        .selectFrom('app_publication_requests')
        .select('id')
        .where('app_id', '=', row.id)
        .where('completed', '=', false)
        .execute();
      await trx
        .updateTable('app_publication_requests')
        .set({ completed: true, completed_by: adminUser, completed_on: at })
        .where('app_id', '=', row.id)
        .where('completed', '=', false)
        .execute();
      return pending.map((pendingRow) => pendingRow.id);
    });
    void notify({
      type: 'apps',
      user: row.integrator,
      subject: `Your app ${row.name} has been published`,
      message: `${row.name} is now public: every user can find and launch it.`,
      payload: {
        action: 'app_publication',
        app_id: row.id,
        app_name: row.name,
        system_id: row.system_id,
        publisher: adminUser,
        publication_request_ids: completed,
      },
    }).catch(() => false);
    const [entry] = await listingEntries(db, [await anyApp(db, row.system_id, row.id)], adminUser);
    return { ...entry, publication_request_ids: completed };
  });

  const bless = (isBlessed: boolean) => async (request: { query: unknown; params: unknown }) => {
    const user = shortUser(request.query);
    const { systemId, appId } = request.params as AppParams['Params'];
    const row = await anyApp(db, systemId, appId);
    await db.updateTable('apps').set({ is_blessed: isBlessed }).where('id', '=', row.id).execute();
    const [entry] = await listingEntries(db, [await anyApp(db, systemId, row.id)], user);
    return entry;
  };
  app.post('/admin/apps/:systemId/:appId/blessing', bless(true));
  app.delete('/admin/apps/:systemId/:appId/blessing', bless(false));
};

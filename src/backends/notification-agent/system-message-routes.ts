// System messages (backends.md §4.5): administrators publish them for a window of time; each user
// moves each one through received, seen (acknowledged) and dismissed, never back.
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { asBoolean } from '../../store/sqlite-booleans.ts';
import { badField } from './model.ts';
import type { AgentOptions, AgentRoutes } from './options.ts';
import { paged } from '../../store/paging.ts';
import {
  badQueryParam,
  countParam,
  optionalBooleanParam,
  normalizeQuery,
} from '../../common/query-params.ts';
import { activeSystemMessages, agentQuery, markAllUser, maxIds, uuidListOf } from './queries.ts';
import { gatewayError } from '../../common/errors.ts';

const received = 1;
const acknowledged = 2;
const dismissed = 3;

type SystemRow = Selectable<Database['system_notifications']>;

function systemJson(row: SystemRow) {
  return {
    uuid: row.id,
    type: row.type,
    message: row.message,
    date_created: row.date_created,
    activation_date: row.activation_date,
    deactivation_date: row.deactivation_date,
    dismissible: asBoolean(row.dismissible),
    logins_disabled: asBoolean(row.logins_disabled),
  };
}

const systemColumns = [
  's.id',
  's.type',
  's.message',
  's.date_created',
  's.activation_date',
  's.deactivation_date',
  's.dismissible',
  's.logins_disabled',
] as const;

/** A date in ms since the epoch: a number, a string of digits, or an ISO 8601 date-time. */
function dateField(body: Record<string, unknown>, field: string): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return ms;
  }
  throw badField(
    field,
    `body field "${field}" must be a time in milliseconds since the epoch or an ISO 8601 date-time`,
  );
}

function booleanField(body: Record<string, unknown>, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean')
    throw badField(field, `body field "${field}" must be true or false`);
  return value;
}

function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badField('body', 'the body must be a JSON object');
  return body as Record<string, unknown>;
}

const notFound = (id: string) =>
  gatewayError('ERR_NOT_FOUND', `no system message ${id}`, { uuid: id });

/** Checks a new message, or the changes to an existing one (`current`), against the rules of §4.5. */
async function systemChanges(options: AgentOptions, raw: unknown, current?: SystemRow) {
  const body = bodyObject(raw);
  const now = options.now();
  const type = body.type ?? current?.type;
  if (typeof type !== 'string' || type === '')
    throw badField('type', 'body field "type" is required');
  const known = await options.db
    .selectFrom('system_notification_types')
    .select('name')
    .where('name', '=', type.toLowerCase())
    .executeTakeFirst();
  if (!known) {
    const types = await options.db
      .selectFrom('system_notification_types')
      .select('name')
      .orderBy('name')
      .execute();
    throw badField(
      'type',
      `body field "type" must be one of ${types.map((row) => row.name).join(', ')}`,
    );
  }
  const message = body.message ?? current?.message;
  if (typeof message !== 'string' || message.trim() === '')
    throw badField('message', 'body field "message" must be a non-empty string');
  const activation = dateField(body, 'activation_date') ?? current?.activation_date ?? now;
  const deactivation = dateField(body, 'deactivation_date') ?? current?.deactivation_date;
  if (deactivation === undefined)
    throw badField('deactivation_date', 'body field "deactivation_date" is required');
  if (deactivation <= activation)
    throw badField(
      'deactivation_date',
      'the deactivation date must come after the activation date',
    );
  if (deactivation <= now && (current === undefined || body.deactivation_date !== undefined)) {
    throw badField('deactivation_date', 'the deactivation date must lie in the future');
  }
  return {
    type: known.name,
    message,
    activation_date: activation,
    deactivation_date: deactivation,
    dismissible:
      booleanField(body, 'dismissible') ?? (current ? asBoolean(current.dismissible) : false),
    logins_disabled:
      booleanField(body, 'logins_disabled') ??
      (current ? asBoolean(current.logins_disabled) : false),
  };
}

export const systemMessageRoutes: AgentRoutes = async (app, options) => {
  const { db, now, events, live } = options;

  /** A user's active messages whose state is below `below` (no row counts as below everything). */
  const listFor = async (user: string, below: number) => {
    const rows = await activeSystemMessages(db, user, now())
      .select([...systemColumns, 'a.state'])
      .where((eb) => eb.or([eb('a.state', 'is', null), eb('a.state', '<', below)]))
      .orderBy('s.activation_date', 'desc')
      .orderBy('s.id')
      .execute();
    return {
      'system-messages': rows.map((row) => ({
        ...systemJson(row),
        acknowledged: (row.state ?? 0) >= acknowledged,
      })),
    };
  };

  const countBelow = async (user: string, below: number) => {
    const row = await activeSystemMessages(db, user, now())
      .where((eb) => eb.or([eb('a.state', 'is', null), eb('a.state', '<', below)]))
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirst();
    return { count: Number(row?.count ?? 0) };
  };

  /**
   * Raises the state of some of a user's messages to `state` (never lowers one) and answers how
   * many active messages remain below it. `onlyDismissible` restricts dismissals.
   */
  const raise = async (
    user: string,
    state: number,
    ids: string[] | 'active',
    onlyDismissible = false,
  ) => {
    const at = now();
    let targets = db.selectFrom('system_notifications as s').select('s.id');
    if (ids === 'active')
      targets = targets.where('s.activation_date', '<=', at).where('s.deactivation_date', '>', at);
    else if (ids.length === 0) return countBelow(user, state);
    else targets = targets.where('s.id', 'in', ids);
    if (onlyDismissible) targets = targets.where('s.dismissible', '=', true);
    const messageIds = (await targets.execute()).map((row) => row.id);
    if (messageIds.length > 0) {
      await db.transaction().execute(async (trx) => {
        for (let start = 0; start < messageIds.length; start += maxIds) {
          const part = messageIds.slice(start, start + maxIds);
          await trx
            .insertInto('system_notification_acknowledgments')
            .values(
              part.map((id) => ({
                username: user,
                system_notification_id: id,
                state,
                date_acknowledged: state >= acknowledged ? at : null,
              })),
            )
            .onConflict((conflict) =>
              conflict
                .columns(['username', 'system_notification_id'])
                .doUpdateSet((eb) => ({
                  state,
                  date_acknowledged: eb.fn.coalesce(
                    'system_notification_acknowledgments.date_acknowledged',
                    eb.val(state >= acknowledged ? at : null),
                  ),
                }))
                .where('system_notification_acknowledgments.state', '<', state),
            )
            .execute();
        }
      });
      await events.publish({ user, kind: 'counts' });
    }
    return countBelow(user, state);
  };

  app.get('/system/messages', async (request) =>
    listFor(agentQuery(request.query).user, dismissed),
  );
  app.get('/system/new-messages', async (request) =>
    listFor(agentQuery(request.query).user, received),
  );
  app.get('/system/unseen-messages', async (request) =>
    listFor(agentQuery(request.query).user, acknowledged),
  );
  app.post('/system/received', async (request) =>
    raise(agentQuery(request.query).user, received, uuidListOf(request.body)),
  );
  app.post('/system/mark-all-received', async (request) =>
    raise(markAllUser(request), received, 'active'),
  );
  app.post('/system/seen', async (request) =>
    raise(agentQuery(request.query).user, acknowledged, uuidListOf(request.body)),
  );
  app.post('/system/mark-all-seen', async (request) =>
    raise(markAllUser(request), acknowledged, 'active'),
  );
  app.post('/system/delete', async (request) =>
    raise(agentQuery(request.query).user, dismissed, uuidListOf(request.body), true),
  );
  app.delete('/system/delete-all', async (request) =>
    raise(agentQuery(request.query).user, dismissed, 'active', true),
  );

  const find = async (id: string) => {
    const row = await db
      .selectFrom('system_notifications as s')
      .select([...systemColumns])
      .where('s.id', '=', id.toLowerCase())
      .executeTakeFirst();
    if (!row) throw notFound(id);
    return row;
  };

  app.put('/admin/system', async (request) => {
    const changes = await systemChanges(options, request.body);
    const row = { id: randomUUID(), date_created: now(), ...changes };
    await db.insertInto('system_notifications').values(row).execute();
    await events.publish({ user: '*', kind: 'counts' });
    const created = systemJson(row);
    live?.announceSystemMessage(created, 'created');
    return { 'system-notification': created };
  });

  app.get('/admin/system', async (request) => {
    const query = normalizeQuery(request.query) as Record<string, string>;
    const activeOnly = optionalBooleanParam(query, 'active-only') ?? false;
    const limit = countParam(query, 'limit', 0);
    const offset = countParam(query, 'offset', 0);
    const type = query.type?.toLowerCase();
    if (type === '') throw badQueryParam('type', 'query parameter "type" must not be empty');
    let selection = db.selectFrom('system_notifications as s');
    if (activeOnly)
      selection = selection
        .where('s.activation_date', '<=', now())
        .where('s.deactivation_date', '>', now());
    if (type !== undefined) selection = selection.where('s.type', '=', type);
    const page = paged(
      selection
        .select([...systemColumns])
        .orderBy('s.date_created', 'desc')
        .orderBy('s.id'),
      limit,
      offset,
    );
    const [rows, total] = await Promise.all([
      page.execute(),
      selection.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirst(),
    ]);
    return { 'system-messages': rows.map(systemJson), total: Number(total?.count ?? 0) };
  });

  app.get<{ Params: { id: string } }>('/admin/system/:id', async (request) => ({
    'system-notification': systemJson(await find(request.params.id)),
  }));

  app.post<{ Params: { id: string } }>('/admin/system/:id', async (request) => {
    const current = await find(request.params.id);
    const changes = await systemChanges(options, request.body, current);
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('system_notifications')
        .set(changes)
        .where('id', '=', current.id)
        .execute();
      // An update is news again: every user sees it as unreceived.
      await trx
        .deleteFrom('system_notification_acknowledgments')
        .where('system_notification_id', '=', current.id)
        .execute();
    });
    await events.publish({ user: '*', kind: 'counts' });
    const updated = systemJson({ ...current, ...changes });
    live?.announceSystemMessage(updated, 'updated');
    return { 'system-notification': updated };
  });

  app.delete<{ Params: { id: string } }>('/admin/system/:id', async (request) => {
    const current = await find(request.params.id);
    await db.deleteFrom('system_notifications').where('id', '=', current.id).execute();
    await events.publish({ user: '*', kind: 'counts' });
    const deleted = systemJson(current);
    live?.announceSystemMessage(deleted, 'deleted');
    return { 'system-notification': deleted };
  });

  app.get('/admin/system-types', async () => {
    const rows = await db
      .selectFrom('system_notification_types')
      .select('name')
      .orderBy('name')
      .execute();
    return { types: rows.map((row) => row.name) };
  });
};

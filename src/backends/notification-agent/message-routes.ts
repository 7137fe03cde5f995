// User notifications (backends.md §4.1–4.4), with the spec's counts: marks answer how many are still unseen.
import { randomUUID } from 'node:crypto';
import {
  badField,
  notificationColumns,
  notificationJson,
  notificationRequest,
  storedType,
} from './model.ts';
import { isUuid } from '../../common/ids.ts';
import type { AgentRoutes } from './options.ts';
import { paged } from '../../store/paging.ts';
import { badQueryParam, countParam } from '../../common/query-params.ts';
import {
  agentQuery,
  countSelected,
  markAllUser,
  selected,
  selectionOf,
  spelled,
  systemCounts,
  unseenCount,
  uuidListOf,
} from './queries.ts';

const sortColumns = {
  timestamp: 'time_created',
  date_created: 'time_created',
  uuid: 'id',
  subject: 'subject',
} as const;

export const messageRoutes: AgentRoutes = async (app, { db, now, events, webhooks, live }) => {
  // Creation times strictly increase within this process: notifications recorded one after the
  // other in one millisecond (a job's Running and Completed) list in the order they came, and the
  // event stream's (time, id) cursor never passes over one whose random id sorts lower.
  let lastCreated = 0;
  const creationTime = () => (lastCreated = Math.max(now(), lastCreated + 1));

  app.post('/notification', async (request) => {
    const notification = notificationRequest(request.body);
    // A sender that may send one notification twice (job-notices.ts) names it: recorded once.
    const key = request.headers['idempotency-key'];
    if (key !== undefined && !isUuid(key))
      throw badField('Idempotency-Key', 'the Idempotency-Key header must be a UUID');
    if (key !== undefined) {
      const known = await db
        .selectFrom('notifications')
        .select([...notificationColumns])
        .where('id', '=', key)
        .executeTakeFirst();
      if (known) return { notification: notificationJson(known) };
    }
    const row = {
      id: key ?? randomUUID(),
      username: notification.user,
      type: storedType(notification.type),
      subject: notification.subject,
      seen: false,
      deleted: false,
      time_created: creationTime(),
      incoming_json: JSON.stringify(notification),
    };
    // The live message and the webhook deliveries are written with the notification, so that each
    // goes out once committed, whatever the broker, the receivers or this process do meanwhile
    // (amqp.ts, webhook-delivery.ts).
    const inserted = await db.transaction().execute(async (trx) => {
      // Two sends of one key at once: the second adds nothing.
      const result = await trx
        .insertInto('notifications')
        .values(row)
        .onConflict((conflict) => conflict.column('id').doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 1) === 0) return false;
      await live?.record(trx, row);
      await webhooks.record(trx, row);
      return true;
    });
    if (!inserted) return { notification: notificationJson(row) };
    await events.publish({ user: row.username, kind: 'notification', id: row.id });
    // In the background: a slow or failing webhook or broker never delays or fails the notification.
    webhooks.written();
    live?.announce(row);
    return { notification: notificationJson(row) };
  });

  app.get('/messages', async (request) => {
    const { user, query } = agentQuery(request.query);
    const which = selectionOf(user, query);
    const limit = countParam(query, 'limit', 0);
    const offset = countParam(query, 'offset', 0);
    const sortField = (
      spelled(query, 'sort_field', 'sort-field', 'sortfield') ?? 'timestamp'
    ).toLowerCase();
    const sortDir = (spelled(query, 'sort_dir', 'sort-dir', 'sortdir') ?? 'desc').toLowerCase();
    if (!(sortField in sortColumns))
      throw badQueryParam(
        'sort_field',
        `sort_field must be one of ${Object.keys(sortColumns).join(', ')}`,
      );
    if (sortDir !== 'asc' && sortDir !== 'desc')
      throw badQueryParam('sort_dir', 'sort_dir must be asc or desc');
    const column = sortColumns[sortField as keyof typeof sortColumns];

    const page = paged(
      selected(db, which)
        .select([...notificationColumns])
        .orderBy(column, sortDir)
        .orderBy('id', sortDir),
      limit,
      offset,
    );
    const [rows, total, unseenTotal] = await Promise.all([
      page.execute(),
      countSelected(db, which),
      countSelected(db, { user, type: which.type, seen: false }),
    ]);
    return { messages: rows.map(notificationJson), total, unseen_total: unseenTotal };
  });

  app.get('/unseen-messages', async (request) => {
    const { user } = agentQuery(request.query);
    const rows = await selected(db, { user, seen: false })
      .select([...notificationColumns])
      .orderBy('time_created', 'asc')
      .orderBy('id', 'asc')
      .execute();
    return { messages: rows.map(notificationJson), total: rows.length, unseen_total: rows.length };
  });

  app.get('/count-messages', async (request) => {
    const { user, query } = agentQuery(request.query);
    const [userTotal, system] = await Promise.all([
      countSelected(db, selectionOf(user, query)),
      systemCounts(db, user, now()),
    ]);
    return { 'user-total': userTotal, ...system };
  });

  /** Applies a change to some of a user's live notifications; answers the spec's count (still unseen). */
  const change = async (
    user: string,
    set: { seen?: true; deleted?: true },
    which: { ids?: string[]; type?: string; seen?: boolean } = {},
  ) => {
    if (which.ids?.length !== 0) {
      let update = db
        .updateTable('notifications')
        .set(set)
        .where('username', '=', user)
        .where('deleted', '=', false);
      if (which.ids) update = update.where('id', 'in', which.ids);
      if (which.type !== undefined) update = update.where('type', '=', which.type);
      if (which.seen !== undefined) update = update.where('seen', '=', which.seen);
      const result = await update.executeTakeFirst();
      if (Number(result.numUpdatedRows) > 0) await events.publish({ user, kind: 'counts' });
    }
    return { success: true, count: await unseenCount(db, user) };
  };

  app.post('/seen', async (request) =>
    change(agentQuery(request.query).user, { seen: true }, { ids: uuidListOf(request.body) }),
  );
  app.post('/mark-all-seen', async (request) => change(markAllUser(request), { seen: true }));
  app.post('/delete', async (request) =>
    change(agentQuery(request.query).user, { deleted: true }, { ids: uuidListOf(request.body) }),
  );
  // `filter` as in listings (`new`: the unseen ones), `seen` too.
  app.delete('/delete-all', async (request) => {
    const { user, query } = agentQuery(request.query);
    const { type, seen } = selectionOf(user, query);
    return change(user, { deleted: true }, { type, seen });
  });
};

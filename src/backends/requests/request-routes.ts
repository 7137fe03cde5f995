// The requests service's requests (backends.md §8): filing one (within its type's limits),
// listing and reading them, and their status changes, each of which the requester is told of.
import type { FastifyPluginAsync } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { gatewayError } from '../../common/errors.ts';
import type { UserNotification } from '../../common/notifications.ts';
import { optionalBooleanParam, requireUserParam, singleParam } from '../../common/query-params.ts';
import type { Database } from '../../store/schema.ts';
import {
  completedStatuses,
  listRequests,
  requestDetails,
  requestStatuses,
  type RequestDetails,
} from './request-model.ts';
import type { RequestTypeRow } from './request-types.ts';

export interface RequestRouteOptions {
  db: Kysely<Database>;
  /**
   * Serialises filings of one type, and status changes of one request, on PostgreSQL (`FOR
   * UPDATE` of the row); SQLite runs one writing transaction at a time anyway.
   */
  lockRows: boolean;
  notify: (notification: UserNotification) => Promise<boolean>;
  now: () => number;
}

function objectOf(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'the body must be a JSON object', {});
  return body as Record<string, unknown>;
}

const statusWords: Record<string, string> = {
  submitted: 'has been received',
  'in-progress': 'is being processed',
  approved: 'has been approved',
  rejected: 'has been rejected',
};

/** What the requester is told of a status change (notification type `requests`). */
function statusNotification(request: RequestDetails): UserNotification {
  const latest = request.updates.at(-1)!;
  const subject = `Your ${request.request_type} request ${statusWords[latest.status] ?? latest.status}`;
  return {
    type: 'requests',
    user: request.requesting_user,
    subject,
    ...(latest.message ? { message: latest.message } : {}),
    payload: {
      request_id: request.id,
      request_type: request.request_type,
      status: latest.status,
      message: latest.message,
      updating_user: latest.updating_user,
    },
  };
}

/** 400 ERR_LIMIT_REACHED when `user` may file no more requests of `type`. */
async function checkLimits(db: Kysely<Database>, type: RequestTypeRow, user: string) {
  const filed = await listRequests(db, {
    requestType: type.name,
    requestingUser: user,
    includeCompleted: true,
  });
  const open = filed.filter((each) => !completedStatuses.includes(each.status));
  const overTotal =
    type.maximum_requests_per_user !== null && filed.length >= type.maximum_requests_per_user;
  const overOpen =
    type.maximum_concurrent_requests_per_user !== null &&
    open.length >= type.maximum_concurrent_requests_per_user;
  if (overTotal || overOpen) {
    throw gatewayError(
      'ERR_LIMIT_REACHED',
      overOpen && open.length > 0
        ? `you already have an open ${type.name} request`
        : `you may file no more ${type.name} requests`,
      { request_type: type.name, open: open.map((each) => each.id) },
    );
  }
}

export const requestRoutes: FastifyPluginAsync<RequestRouteOptions> = async (
  app,
  { db, lockRows, notify, now },
) => {
  app.get('/requests', async (request) => {
    const requestType = singleParam(request.query, 'request-type');
    const requestingUser = singleParam(request.query, 'requesting-user');
    return {
      requests: await listRequests(db, {
        ...(requestType ? { requestType } : {}),
        ...(requestingUser ? { requestingUser } : {}),
        includeCompleted: optionalBooleanParam(request.query, 'include-completed') ?? false,
      }),
    };
  });

  app.post('/requests', async (request) => {
    const user = requireUserParam(request.query);
    const body = objectOf(request.body);
    const typeName = body.request_type;
    if (typeof typeName !== 'string' || typeName === '')
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', '"request_type" must name a request type', {
        field: 'request_type',
      });
    const details = body.details ?? {};
    objectOf(details);
    const id = randomUUID();
    await db.transaction().execute(async (trx) => {
      let typeQuery = trx.selectFrom('request_types').selectAll().where('name', '=', typeName);
      if (lockRows) typeQuery = typeQuery.forUpdate();
      const type = await typeQuery.executeTakeFirst();
      if (!type)
        throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `no request type named "${typeName}"`, {
          field: 'request_type',
        });
      await checkLimits(trx, type, user);
      const at = now();
      await trx
        .insertInto('requests')
        .values({
          id,
          request_type_id: type.id,
          requesting_user: user,
          details: JSON.stringify(details),
          created_date: at,
        })
        .execute();
      await trx
        .insertInto('request_updates')
        .values({
          id: randomUUID(),
          request_id: id,
          status: 'submitted',
          updating_user: user,
          created_date: at,
        })
        .execute();
    });
    const created = await requestDetails(db, id);
    await notify(statusNotification(created));
    return created;
  });

  type Params = { Params: { id: string } };
  app.get<Params>('/requests/:id', async (request) => requestDetails(db, request.params.id));

  app.post<Params>('/requests/:id/status', async (request) => {
    const user = requireUserParam(request.query);
    const body = objectOf(request.body);
    const status = body.status;
    if (typeof status !== 'string' || !(requestStatuses as readonly string[]).includes(status))
      throw gatewayError(
        'ERR_BAD_OR_MISSING_FIELD',
        `"status" must be one of ${requestStatuses.join(', ')}`,
        { field: 'status' },
      );
    const message = body.message ?? '';
    if (typeof message !== 'string' || message.length > 10_000)
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', '"message" must be text', {
        field: 'message',
      });
    const id = request.params.id;
    // One status change of a request at a time on PostgreSQL (its row locked), so that two
    // administrators' decisions cannot both complete it.
    await db.transaction().execute(async (trx) => {
      if (lockRows)
        await trx.selectFrom('requests').select('id').where('id', '=', id).forUpdate().execute();
      const current = await requestDetails(trx, id);
      if (completedStatuses.includes(current.status))
        throw gatewayError('ERR_ILLEGAL_ARGUMENT', `the request is already ${current.status}`, {
          id: current.id,
          status: current.status,
        });
      await trx
        .insertInto('request_updates')
        .values({
          id: randomUUID(),
          request_id: current.id,
          status,
          updating_user: user,
          message,
          // After the latest update, even within its millisecond or under a moved clock: the
          // history is read in time order.
          created_date: Math.max(now(), Date.parse(current.updated_date) + 1),
        })
        .execute();
    });
    const updated = await requestDetails(db, id);
    await notify(statusNotification(updated));
    return updated;
  });
};

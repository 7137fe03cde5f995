// The ticket routes (backends.md §2.6): create, list and remove tickets (tickets.ts); the
// downloads a ticket grants are ticket-download-routes.ts, registered here under the same plain
// ticket errors.
import type { FastifyError, FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { sendError, toGatewayError } from '../../common/error-replies.ts';
import {
  booleanParam,
  integerParam,
  pathList,
  stringList,
  bodyObject,
  stringParam,
} from './bulk.ts';
import { atLeast } from './object-index.ts';
import { inTransaction } from './moves.ts';
import type { DataStore } from './store.ts';
import {
  createTickets,
  neededLevel,
  requireLevel,
  ticketDefinition,
  type TicketDefinition,
  type TicketOptions,
} from './tickets.ts';
import { ticketDownloadRoutes } from './ticket-download-routes.ts';
import { gatewayError } from '../../common/errors.ts';

/** Spec: ticket errors are `{error_code, reason}` only. */
function plainTicketErrors(app: Parameters<FastifyPluginAsync>[0]): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const answer = toGatewayError(error);
    if (answer.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(reply, answer.withExtra({}));
  });
}

const userQuery = Type.Object(
  { user: Type.String({ minLength: 1 }) },
  { additionalProperties: true },
);

export const ticketRoutes: FastifyPluginAsync<{ data: DataStore }> = async (app, { data }) => {
  plainTicketErrors(app);

  app.post('/tickets', { schema: { querystring: userQuery } }, async (request) => {
    const caller = await data.writerOf(request.query);
    const mode = stringParam(request.query, 'mode') || 'read';
    if (mode !== 'read' && mode !== 'write')
      throw gatewayError('ERR_BAD_QUERY_PARAMETER', 'query parameter "mode" must be read or write');
    const options: TicketOptions = {
      mode,
      public: booleanParam(request.query, 'public'),
      forJob: booleanParam(request.query, 'for-job', false),
      usesLimit: integerParam(request.query, 'uses-limit'),
      fileWriteLimit: integerParam(request.query, 'file-write-limit'),
    };
    const paths = pathList(data, request.body, 'paths');
    return { user: caller.name, tickets: await createTickets(data, caller, paths, options) };
  });

  app.post('/ticket-lister', { schema: { querystring: userQuery } }, async (request) => {
    const caller = await data.callerOf(request.query);
    const level = neededLevel(booleanParam(request.query, 'for-job', false));
    const paths = pathList(data, request.body, 'paths');
    const tickets: Record<string, TicketDefinition[]> = {};
    for (const path of paths) {
      const object = await data.catalog.byPath(path);
      if (!object) throw gatewayError('ERR_DOES_NOT_EXIST', `${path} does not exist`);
      await requireLevel(data, caller, object, level);
      const rows = await data.db
        .selectFrom('data_tickets')
        .select('id')
        .where('object_id', '=', object.id)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      tickets[path] = rows.map((row) => ticketDefinition(data, path, row.id));
    }
    return { tickets };
  });

  app.post('/ticket-deleter', { schema: { querystring: userQuery } }, async (request) => {
    const caller = await data.writerOf(request.query);
    const forJob = booleanParam(request.query, 'for-job', false);
    const ids = [
      ...new Set(
        stringList(bodyObject(request.body).tickets, 'tickets').map((id) => id.toUpperCase()),
      ),
    ];
    await inTransaction(data, async (trx) => {
      const rows =
        ids.length === 0
          ? []
          : await trx
              .selectFrom('data_tickets')
              .select(['id', 'object_id', 'mode'])
              .where('id', 'in', ids)
              .execute();
      const missing = ids.filter((id) => !rows.some((row) => row.id === id));
      if (missing.length > 0)
        throw gatewayError('ERR_TICKET_DOES_NOT_EXIST', `no such ticket: ${missing.join(', ')}`);
      for (const row of rows) {
        const object = (await data.catalog.byId(row.object_id, trx))!;
        if (
          !atLeast(await data.permission(caller, object.path, trx), neededLevel(forJob, row.mode))
        ) {
          throw gatewayError(
            'ERR_NOT_WRITEABLE',
            `${caller.name} cannot remove the tickets of ${object.path}`,
          );
        }
      }
      if (ids.length > 0) await trx.deleteFrom('data_tickets').where('id', 'in', ids).execute();
    });
    return { user: caller.name, tickets: ids };
  });

  await app.register(ticketDownloadRoutes, { data });
};
